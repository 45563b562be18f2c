"""Replies to the service's mails as a player's or the game master's mail program writes them,
for the property test of issue 40, finding 5 ("every mail about a game, to a player or the
game master, must be answerable": tests/service/test_every_mail_answerable*.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from itertools import count

from playing import client_reply, clock_of, new_game
from sqlmodel import Session, col, select

from adjudicator.service.app import App
from adjudicator.storage import queries
from adjudicator.storage.models import Game, OutboxMail, Submission

GM = "gm@example.org"
ALICE, BOB, CAROL = (f"{p}@example.org" for p in ("alice", "bob", "carol"))

KIND_OF_ROW = {"gm:copy": "observed", "tournament": "tournament_round"}
"""Outbox kinds that are another template's mail: the game master's copy of the observers'
result (``COPY ON``) is the ``observed`` mail, a tournament's mail of a round its
``tournament_round``."""


_ids = count(1)


def new_message_id() -> str:
    """A Message-ID as a player's mail program writes it, new each time."""
    return f"<p{next(_ids)}@client.example.org>"


def note_of(app: App, message_id: str) -> str:
    """What the service did with the mail ``message_id`` (its submission's note)."""
    with Session(app.engine) as session:
        found = session.exec(select(Submission).where(Submission.message_id == message_id)).one()
        return found.note or ""


@dataclass
class Replies:
    """Replies, from the registered address and with no password, to the first mail of each
    kind that went to a seat of its game or to its game master, each checked to be read as
    theirs: a command only the seat (HISTORY) or the game master (COPY OFF, or ON) may give.
    Every such mail is checked to carry a reply address. Asked before a seat or the game
    master changes hands or address: a reply to a mail of before is no longer theirs."""

    app: App
    signed: bool = False  # the reply carries a DKIM pass for its From domain
    gm_command: str = "COPY OFF"
    read: dict[tuple[str, bool], str] = field(default_factory=dict)
    """What each reply did (its submission's note), by kind and whether to the game master."""
    seen: int = 0  # the last outbox row looked at

    def answer_new(self) -> None:
        """Reply to the mails queued since the last call, and to the answers to those."""
        while True:
            with Session(self.app.engine) as session:
                query = select(OutboxMail).where(col(OutboxMail.id) > self.seen)
                rows = list(session.exec(query.order_by(col(OutboxMail.id))))
            if not rows:
                return
            self.seen = rows[-1].id or self.seen
            for row in rows:
                self._answer(row)

    def kinds(self, *, gm: bool | None = None) -> set[str]:
        """The kinds replied to (only those to the game master, or to a seat)."""
        return {kind for kind, to_gm in self.read if gm is None or to_gm == gm}

    def _answer(self, row: OutboxMail) -> None:
        if row.game_id is None:
            return
        with Session(self.app.engine) as session:
            game = session.get(Game, row.game_id)
            assert game is not None
            seat = queries.seat_at_address(session, game.id, row.recipient)
            to_gm = (game.gm_address or "").lower() == row.recipient.lower()
        removed = seat is not None and not seat.active
        if not to_gm and (seat is None or (removed and row.kind != "removed")):
            return  # not a seat's mail (NOT_A_SEATS), or the last of a seat taken out
        kind = KIND_OF_ROW.get(row.kind, row.kind)
        mail: EmailMessage = message_from_bytes(row.message, policy=policy.default)
        # Every one has a reply address; the first of each kind is replied to.
        assert mail["Reply-To"], f"{kind} to {row.recipient} has no reply address"
        if (kind, to_gm) in self.read:
            return
        message_id = new_message_id()
        clock_of(self.app).advance(minutes=1)
        raw = client_reply(
            mail,
            self.gm_command if to_gm else "HISTORY",
            sender=row.recipient,
            message_id=message_id,
        )
        if self.signed:  # as the receiving server notes a valid signature of the sender
            domain = row.recipient.rpartition("@")[2]
            signed = f"Authentication-Results: mx.pbem.test; dkim=pass header.d={domain}\n"
            raw = signed.encode() + raw
        self.app.ingest(raw, channel="t")
        note = note_of(self.app, message_id)
        self.read[(kind, to_gm)] = note
        if to_gm:
            assert "game master: 1 command(s) done, 0 refused" in note, (kind, note)
        elif removed:  # read as the seat's, which the game master took out
            assert f"removed from game {game.name}" in note, (kind, note)
        else:
            assert "history sent" in note, (kind, note)
            assert "refused" not in note, (kind, note)


def welcomed_game(app: App, name: str, *, settings: dict[str, object] | None = None) -> None:
    """A game of Giveaway of alice, bob and carol with its game master, started, everyone
    welcomed and the game master told."""
    new_game(
        app,
        ["alice", "bob", "carol"],
        name=name,
        settings=settings,
        gm_address=GM,
        welcome=True,
        told=True,
    )


def reply(app: App, mail: EmailMessage, body: str, *, sender: str) -> str:
    """``sender``'s reply to ``mail``, as a mail program writes it; what it did (its note)."""
    message_id = new_message_id()
    app.ingest(client_reply(mail, body, sender=sender, message_id=message_id), channel="t")
    return note_of(app, message_id)
