"""The tables. Times are aware datetimes in UTC (SQLModel's ``UTCDateTime`` refuses naive ones).

Raw mail is kept forever in :class:`Submission`; a game's state is only a cache of replaying its
rounds' stored orders; every round step is a compare-and-set on :attr:`Round.state`.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, NamedTuple

from sqlalchemy import (
    JSON,
    Column,
    ColumnElement,
    Index,
    LargeBinary,
    String,
    UniqueConstraint,
    false,
    text,
)
from sqlmodel import Field, SQLModel, col


class GameStatus(StrEnum):
    SETUP = "setup"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"


class RoundState(StrEnum):
    """A round's life cycle; each step is taken once, by compare-and-set."""

    OPEN = "open"
    CLOSING = "closing"
    ADJUDICATED = "adjudicated"
    REPORTED = "reported"


class SubmissionStatus(StrEnum):
    RECEIVED = "received"  # stored, not yet processed
    ACCEPTED = "accepted"  # orders stored
    REJECTED = "rejected"  # answered with the problems
    IGNORED = "ignored"  # auto-reply, bounce, loop, oversized: logged, never answered
    FAILED = "failed"  # processing raised; kept for the game master


class OutboxStatus(StrEnum):
    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"  # permanently refused by the SMTP server
    DROPPED = "dropped"  # given up by the operator (``adjudicate outbox drop``): never sent


class Game(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True, description="the game master's tag, e.g. gw42")
    kind: str = Field(description="a game name of docs/record-format.md")
    options: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    setup: dict[str, Any] = Field(
        default_factory=dict,
        sa_column=Column(JSON, nullable=False),
        description="the record header's colours, start, pieces and to-move",
    )
    settings: dict[str, Any] = Field(
        default_factory=dict,
        sa_column=Column(JSON, nullable=False),
        description="service settings of this game (grace, reminders, mail policy)",
    )
    status: GameStatus = Field(default=GameStatus.SETUP, sa_type=String(16))
    time_zone: str = "UTC"
    schedule: str | None = Field(default=None, description="deadline rule, e.g. '72h'")
    state: dict[str, Any] | None = Field(
        default=None, sa_column=Column(JSON), description="cache of the replayed game state"
    )
    current_round: int = 0
    created_at: datetime
    finished_at: datetime | None = None
    gm_address: str | None = Field(default=None, description="where game master notices go")
    paused_at: datetime | None = Field(default=None, description="set while the game is paused")
    gm_token: str | None = Field(
        default=None,
        description="digest of a random token the game master's reply address is bound to: "
        "a new one voids every earlier reply address (security.gm_reply_address)",
    )
    gm_copy: bool = Field(
        default=False, description="COPY ON: the game master gets every round's public result"
    )
    replaced_results: dict[str, str] = Field(
        default_factory=dict,
        sa_column=Column(JSON, nullable=False, server_default="{}"),
        description="round number -> when its result, discarded by a rollback, was mailed: "
        "the new result says it replaces that one",
    )


class Person(SQLModel, table=True):
    """A player as one person across games, known by his registered address (in lower case,
    as addresses are compared): the settings of his own, which hold in every game he plays,
    now and later (``storage/persons.py``). His seats carry a copy of them, written whenever
    they change and whenever a seat is made or moved to his address, so that each mail about a
    seat reads them with the seat."""

    id: int | None = Field(default=None, primary_key=True)
    address: str = Field(unique=True, description="the registered address, in lower case")
    time_zone: str | None = Field(default=None, description="SET TIMEZONE (None: the game's)")
    password_hash: str | None = Field(
        default=None,
        description="salted digest of the password he chose (SET PASSWORD), every seat's "
        "password; None: each seat keeps its machine-made one",
    )
    quiet_hours: str | None = Field(
        default=None, description="SET QUIET: no reminders then, e.g. '22:00-07:00' (own zone)"
    )
    weekend: str | None = Field(
        default=None, description="SET WEEKEND: days without reminders, e.g. 'sat,sun'"
    )
    public: bool = Field(
        default=True, description="shown on the archive's pages by his handle (SET PUBLIC OFF)"
    )
    digest: str | None = Field(
        default=None,
        description="SET DIGEST DAILY: the time of day ('08:00', his own zone) his mail that "
        "can wait comes as one digest (``notify/digest.py``); None: every mail at once",
    )
    webhook_url: str | None = Field(
        default=None, description="SET WEBHOOK: his own notices are posted there too"
    )
    webhook_secret: str | None = Field(
        default=None, description="the key his webhook's posts are signed with (docs/webhooks.md)"
    )
    changed_at: datetime = Field(description="when a setting of his last changed")


class Seat(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("game_id", "handle"),
        UniqueConstraint("game_id", "seat"),
        # Addresses are compared in lower case (migration 0011).
        Index("ix_seat_lower_address", text("lower(address)")),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int = Field(description="0-based seat order")
    handle: str
    address: str = Field(index=True)
    secret_hash: str = Field(
        description="salted SHA-256 digest of the machine-made secret (security.py says why), "
        "or of the password its person chose (Person.password_hash)"
    )
    reply_token: str | None = Field(default=None, unique=True, description="orders+TOKEN@")
    time_zone: str | None = Field(default=None, description="its person's (Person.time_zone)")
    active: bool = True
    unreachable: bool = False
    missed_rounds: int = 0
    failed_logins: int = 0
    locked_until: datetime | None = None
    wait: bool = Field(
        default=False,
        description="SET WAIT: the player wants each round to run to its deadline, even when "
        "every order is in early",
    )
    quiet_hours: str | None = Field(default=None, description="its person's (Person)")
    weekend: str | None = Field(default=None, description="its person's (Person)")


class SeatRoll(NamedTuple):
    """A seat as the questions about a whole game's seats need it (who moves, who is still in
    play, who asked for the full time): four columns, not a row of every column to load."""

    id: int
    handle: str
    active: bool
    wait: bool


class Absence(SQLModel, table=True):
    """A player's time away from one game (``service/absence.py``): asked for by ``SET
    ABSENCE``, or a day taken from the allowance when a deadline would have passed without the
    player's orders. ``key`` makes taking it twice (a retry, a second instance) a no-op."""

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, description="asked:<submission>:<section> or auto:<round>:...")
    game_id: int = Field(foreign_key="game.id", index=True)
    seat_id: int = Field(foreign_key="seat.id", index=True)
    starts_at: datetime
    ends_at: datetime = Field(description="cut to the moment of SET ABSENCE OFF")
    days: int = Field(description="what it costs of the allowance")
    automatic: bool = Field(default=False, description="taken by a deadline, not asked for")
    created_at: datetime


class LoginFailure(SQLModel, table=True):
    """Wrong passwords for one seat from one source (``authentication.py``): a forger's tries
    lock out the forger's source, not the real player."""

    __table_args__ = (UniqueConstraint("seat_id", "source"),)

    id: int | None = Field(default=None, primary_key=True)
    seat_id: int = Field(foreign_key="seat.id", index=True)
    source: str = Field(description="where the tries come from: the sending host's address")
    failures: int = 0
    first_at: datetime = Field(description="the first failure of the current window")
    locked_until: datetime | None = None
    told: bool = Field(default=False, description="the real player was told in this window")


class Round(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("game_id", "number"),
        Index("ix_round_state_deadline", "state", "deadline"),
        # Ids are never reused (a rollback deletes rounds): the outbox keys of result mails
        # name rounds by id. PostgreSQL's sequences never reuse ids anyway.
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    number: int
    state: RoundState = Field(default=RoundState.OPEN, sa_type=String(16))
    opened_at: datetime
    deadline: datetime | None = None
    closed_at: datetime | None = None
    adjudicated_at: datetime | None = None
    reported_at: datetime | None = None
    error: str | None = Field(default=None, description="why adjudication stopped, for the GM")
    grace_until: datetime | None = Field(
        default=None,
        description="set when the deadline passed with orders missing: the round "
        "waits until then for them",
    )
    reminded_for: str | None = Field(
        default=None, description="'<deadline epoch>:<minutes before>' of the last reminder sent"
    )
    complete_at: datetime | None = Field(
        default=None,
        description="when the last orders of a round that closes early came in: it is closed "
        "after the mail's transaction, by the reporter (service/closing.py close_completed)",
    )


class Submission(SQLModel, table=True):
    __table_args__ = (
        # The mails that looked automatic from one sender lately (``notify/loop_guard.py``).
        Index("ix_submission_lower_sender_received", text("lower(sender)"), "received_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    received_at: datetime
    channel: str = Field(description="imap, maildir (piped mail too; pipe in older rows) or cli")
    digest: str = Field(unique=True, description="sha256 of the raw bytes: re-delivery is a no-op")
    message_id: str | None = Field(default=None, index=True)
    sender: str | None = None
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    status: SubmissionStatus = Field(
        default=SubmissionStatus.RECEIVED, index=True, sa_type=String(16)
    )
    note: str | None = None
    auth_results: str | None = None
    game_id: int | None = Field(default=None, foreign_key="game.id")
    seat_id: int | None = Field(default=None, foreign_key="seat.id")
    processed_at: datetime | None = None
    automatic: str | None = Field(
        default=None,
        description="why the mail looked sent by a program answering our answers rather than "
        "by a person (``service/loop_guard.py``): such mails count towards the loop guard; "
        "``held back: `` in front when its answers were held back as a loop",
    )


WITHDRAWN = "withdrawn:"
"""The start of the receipt of an order set withdrawn when its seat passed to somebody else in
the open round (the computer's orders when a person takes the seat back, a former player's
when a newcomer takes it): kept, with its receipt after this mark, but never in force again."""


class OrderSet(SQLModel, table=True):
    """One accepted set of orders; the newest for a (round, seat) not :data:`WITHDRAWN` is the
    one in force."""

    id: int | None = Field(default=None, primary_key=True)
    round_id: int = Field(foreign_key="round.id", index=True)
    seat_id: int = Field(foreign_key="seat.id", index=True)
    submission_id: int | None = Field(default=None, foreign_key="submission.id", index=True)
    lines: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    receipt: str
    created_at: datetime

    @property
    def withdrawn(self) -> bool:
        return self.receipt.startswith(WITHDRAWN)


def standing_order_sets() -> ColumnElement[bool]:
    """The condition that an order set was not withdrawn (:data:`WITHDRAWN`), for queries."""
    return col(OrderSet.receipt).not_like(f"{WITHDRAWN}%")


class RoundResult(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    round_id: int = Field(foreign_key="round.id", unique=True)
    orders: dict[str, list[str]] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False)
    )
    rejected: list[dict[str, str]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
    public_state: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False)
    )
    report: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    state: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    finished: bool = False
    winners: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    draw: bool = False
    created_at: datetime


class OutboxMail(SQLModel, table=True):
    """A mail waiting to be sent, committed with the change that caused it."""

    __table_args__ = (
        # Answers per recipient and per hour are counted (``notify/throttle.py``).
        Index("ix_outboxmail_recipient_created", "recipient", "created_at"),
        Index("ix_outboxmail_created_at", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, description="idempotency key: queuing twice is a no-op")
    kind: str
    channel: str = Field(
        default="mail",
        sa_column_kwargs={"server_default": "mail"},
        description="how it is told: the lane of the outbox its channel's sender claims "
        "(``adjudicator/notify/channels.py``)",
    )
    answer: bool = Field(
        default=False,
        sa_column_kwargs={"server_default": false()},
        description="an answer to a mail the recipient just sent: sent before the mails due "
        "that nobody is waiting for (a burst's results), so that a player is answered at once",
    )
    game_id: int | None = Field(default=None, foreign_key="game.id")
    round_id: int | None = Field(default=None, foreign_key="round.id")
    recipient: str
    envelope_sender: str | None = Field(default=None, description="Return-Path for bounces")
    message: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    status: OutboxStatus = Field(default=OutboxStatus.PENDING, index=True, sa_type=String(16))
    attempts: int = 0
    next_attempt_at: datetime
    sent_at: datetime | None = None
    last_error: str | None = None
    created_at: datetime


class HeldNotice(SQLModel, table=True):
    """A notice that can wait, held for its recipient's daily digest (``notify/digest.py``):
    rendered as it would have been sent, kept until the digest that carries it is queued, in
    the transaction that marks it (``digest_key``)."""

    __table_args__ = (Index("ix_heldnotice_address_digest", "address", "digest_key"),)

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, description="the outbox key it would have had: held once")
    address: str = Field(description="the recipient, in lower case")
    kind: str
    game_id: int | None = Field(default=None, foreign_key="game.id")
    round_id: int | None = Field(default=None, foreign_key="round.id")
    message: bytes = Field(
        sa_column=Column(LargeBinary, nullable=False),
        description="the whole mail it would have been; emptied once its digest is queued",
    )
    held_at: datetime
    digest_key: str | None = Field(
        default=None, description="the outbox key of the digest that carried it; None: held"
    )


class PicturePng(SQLModel, table=True):
    """A picture of a position as PNG, made once (with no transaction open) and kept for every
    mail that shows it: the round's results, and reports asked for later."""

    digest: str = Field(primary_key=True, description="of the picture's SVG (picture_digest)")
    png: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: datetime


class MailboxCursor(SQLModel, table=True):
    """How far an IMAP folder has been read: (UIDVALIDITY, last UID)."""

    id: int | None = Field(default=None, primary_key=True)
    mailbox: str = Field(unique=True, description="user@host/folder")
    uidvalidity: int
    last_uid: int = 0


class Press(SQLModel, table=True):
    """A press message a player sent through the service: kept with the round it was sent in,
    shown in the game's history (to those who may read it) and counted for the rate limit."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    round_number: int = Field(description="the game's round when it was sent (0: before round 1)")
    seat_id: int = Field(foreign_key="seat.id", index=True, description="who sent it")
    sender: str = Field(description="the sender's handle when it was sent")
    recipients: list[str] = Field(
        default_factory=list,
        sa_column=Column(JSON, nullable=False),
        description="the handles it went to; empty: every player (public press)",
    )
    anonymous: bool = Field(default=False, description="relayed without the sender's handle")
    text: str = Field(description="the message, control characters taken out")
    submission_id: int | None = Field(default=None, foreign_key="submission.id")
    created_at: datetime


class Observer(SQLModel, table=True):
    """An address that gets a game's public result of every round (``OBSERVE``): never a
    player's private report, never anybody's address."""

    __table_args__ = (UniqueConstraint("game_id", "address"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    address: str
    created_at: datetime


class Standby(SQLModel, table=True):
    """An address that wants a seat in a game of ``kind`` when one is offered (``STANDBY``,
    confirmed with a code mailed to the address): it gets every seat offer of that kind."""

    __table_args__ = (UniqueConstraint("kind", "address"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(index=True, description="a game name of docs/record-format.md")
    address: str
    created_at: datetime


class SeatOffer(SQLModel, table=True):
    """A seat offered for replacement to the standby list of its game's kind; taken once, by
    compare-and-set on ``taken_at`` (two takers, one seat)."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat_id: int = Field(foreign_key="seat.id", index=True)
    reason: str = Field(description="gm, absent or resigned")
    opened_at: datetime
    taken_at: datetime | None = None
    taken_by: str | None = Field(default=None, description="the address that took the seat")


class SeatHandover(SQLModel, table=True):
    """A seat that passed to a new person: the old holder's address and reply token (digest),
    so that his later mails are answered with where the seat went, in its own game's name."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat_id: int = Field(foreign_key="seat.id", index=True)
    old_address: str = Field(index=True)
    old_reply_token: str | None = Field(default=None, index=True)
    created_at: datetime


class JoinRequest(SQLModel, table=True):
    """A JOIN waiting for the game master's approval (setting ``join=approve``)."""

    __table_args__ = (UniqueConstraint("game_id", "address"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    address: str
    handle: str
    status: str = Field(
        default="waiting", sa_type=String(16), description="waiting, approved, declined"
    )
    created_at: datetime
    decided_at: datetime | None = None


class ServiceKey(SQLModel, table=True):
    """Which key file the database's mail was made with: one row, holding the key's id
    (``security.key_id``, an HMAC of a fixed label under the key, which tells nothing of the key
    itself). Reply addresses, bounce addresses, receipts and codes already mailed are MACs under
    that key: a command refuses a missing or different key file while the database holds games
    (``storage/opening.py``)."""

    id: int = Field(default=1, primary_key=True)
    key_id: str = Field(max_length=64)
    recorded_at: datetime
