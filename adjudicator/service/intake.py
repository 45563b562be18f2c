"""Mail intake: every raw message is committed before anything else happens, then processed in
one transaction that stores the orders, marks the submission handled and queues the answer.

Processing reads the mail into typed commands per game section (``mail/commands.py``), reads
once what the addresses it went to prove (``authentication.Addressing``), proves the seat only
where a command needs one (``authentication.py``), and hands each command to its handler from
one table (``command_handlers.HANDLERS``), with the seat proven where it needs one. Commands
that need no seat (HELP, LIST, STATUS, FORGOT, OBSERVE, JOIN) are answered even when the
section names no game or its seat is not proven. A mail gets one answer to each address it
concerns (``conversation.queue_answer``): the confirmation or rejection of each game section's
orders and the answer to every command, in the order written.

A crash before that transaction commits leaves the submission ``received`` and it is processed
again on restart; a crash after it leaves nothing to do. Re-delivery of the same bytes (an IMAP
re-scan, a mail server retrying a pipe) is recognised by the digest and ignored; a copy with
other bytes (one more Received line, a replay) by its Message-ID, and ignored with a note.

``batch_intake.py`` runs these steps a batch at a time (one transaction for many mails).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from adjudicator.mail.command_specs import needs_seat, spec_of
from adjudicator.mail.commands import Command, CommandProblem, MailSection, Orders
from adjudicator.mail.parse import InboundMail, MailKind, SectionLine
from adjudicator.mail.reading import Reading, read_whole
from adjudicator.notify import loop_guard
from adjudicator.notify.context import ServiceContext
from adjudicator.service import (
    command_handlers,
    conversation,
    handover,
    offers,
)
from adjudicator.service.authentication import (
    Addressing,
    authenticate,
    authenticate_person,
    find_game,
    person_seats,
)
from adjudicator.service.bounces import record_bounce
from adjudicator.service.game_context import base_context
from adjudicator.service.handling import (
    MailAnswer,
    PersonHandling,
    SeatedHandling,
    SectionHandling,
)
from adjudicator.service.mail_policy import mail_policy_problem
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus, Seat, Submission, SubmissionStatus

MAX_SECTIONS = 5
"""Game sections read in one mail. Each section may be answered, and a forged mail with
thousands of GAME lines would otherwise make thousands of answers to whoever it names as
sender (reply amplification) and hold the intake for seconds: the sections past the limit
are not read, and one mail says how many were left out."""

LISTED_LEFT_OUT = 10
"""Games named in that mail; the others are counted."""


def digest_of(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def received_time(now: datetime, arrived: datetime | None) -> datetime:
    """A mail's ``received_at``: when it reached the service's mailbox (a Maildir's delivery
    time) rather than when it was stored, which a crash, a restart or an outage may delay past
    a deadline; never later than now (another machine's clock may run ahead)."""
    return now if arrived is None else min(arrived, now)


def store_raw(
    session: Session,
    raw: bytes,
    *,
    channel: str,
    now: datetime,
    arrived: datetime | None = None,
) -> int | None:
    """Store the raw message; return its id, or ``None`` when these bytes were stored before.
    ``arrived``: when it reached the service's mailbox, if known (see ``received_at``)."""
    digest = digest_of(raw)
    if queries.submission_stored(session, digest):
        return None
    received_at = received_time(now, arrived)
    submission = Submission(received_at=received_at, channel=channel, digest=digest, raw=raw)
    try:
        with session.begin_nested():
            session.add(submission)
    except IntegrityError:  # another instance stored the same bytes a moment ago
        return None
    return submission.id


def pending_submissions(session: Session) -> list[int]:
    """Submissions stored but not processed (after a crash, or by another instance)."""
    return queries.pending_submission_ids(session)


def read_stored(raw: bytes, *, ctx: ServiceContext) -> Reading:
    """Read a stored mail (no database: a batch reads all its mails before it asks anything)."""
    return read_whole(raw, own_addresses=ctx.own_addresses, max_bytes=ctx.max_bytes)


def process_claimed(
    session: Session,
    submission: Submission,
    raw: bytes,
    *,
    ctx: ServiceContext,
    now: datetime,
    reading: Reading | None = None,
) -> SubmissionStatus:
    """Process a submission this caller has claimed; ``raw`` is its stored bytes (passed in, so
    that a caller holding them does not load them again), ``reading`` those bytes read, where
    the caller read them already."""
    mail, sections, redacted = reading or read_stored(raw, ctx=ctx)
    automatic = None
    if mail.kind == MailKind.BOUNCE:
        outcome = record_bounce(session, mail, ctx=ctx, submission_id=submission.id, now=now)
        status, note = SubmissionStatus.IGNORED, f"{mail.kind}: {mail.kind_reason}; {outcome}"
    elif mail.kind != MailKind.ORDINARY:
        status, note = SubmissionStatus.IGNORED, f"{mail.kind}: {mail.kind_reason}"
    elif (first := _first_copy(session, mail, submission)) is not None:
        status, note = SubmissionStatus.IGNORED, f"replay of submission {first} (same Message-ID)"
    else:
        # Asked before the answers are queued, as each answer asks it (``loop_guard.py``).
        automatic = loop_guard.stored(
            loop_guard.looks_automatic(session, mail, identity=ctx.identity, now=now),
            loop_guard.held_back(session, mail, identity=ctx.identity, now=now),
        )
        accepted, notes = _answer(session, ctx, mail, submission, now, sections=sections)
        status = SubmissionStatus.ACCEPTED if accepted else SubmissionStatus.REJECTED
        note = "; ".join(notes)
    if redacted is not None:
        # Processed: the passwords the mail held, and the tags of the personal reply addresses
        # it went to, leave its stored bytes (``mail/redact.py``; taken out when it was read).
        # The digest of the bytes received stays, and still recognises a re-delivery. Written
        # only when changed: the column may be a large one.
        submission.raw = redacted
    # Written last: an early change would be flushed by the first query and hold SQLite's
    # write lock for the whole of the processing.
    submission.message_id = mail.message_id
    submission.sender = mail.sender
    submission.auth_results = "\n".join(a.raw for a in mail.auth_results) or None
    submission.processed_at = now
    submission.status, submission.note = status, note or None
    submission.automatic = automatic
    session.add(submission)
    return status


def _first_copy(session: Session, mail: InboundMail, submission: Submission) -> int | None:
    """The earlier submission processed with this mail's Message-ID, if any: a copy with other
    bytes (one more Received line, a relay's rewrite, a replay) is the same mail."""
    if not mail.message_id:
        return None
    return queries.processed_with_message_id(session, mail.message_id, before=submission.id or 0)


def _answer(
    session: Session,
    ctx: ServiceContext,
    mail: InboundMail,
    submission: Submission,
    now: datetime,
    *,
    sections: Sequence[MailSection],
) -> tuple[bool, list[str]]:
    """Answer the game sections of an ordinary mail (at most ``MAX_SECTIONS``); whether any
    was accepted, and notes."""
    addressing = Addressing.of(session, mail, key=ctx.receipt_key)
    accepted, notes = False, []
    answer = MailAnswer()
    handling = None
    if len(sections) > MAX_SECTIONS:  # told first: answers to a sender are limited too
        past = SectionHandling(session, ctx, mail, submission, now, MAX_SECTIONS, answer=answer)
        notes.append(_leave_out(past, sections[MAX_SECTIONS:]))
    for index, section in enumerate(sections[:MAX_SECTIONS]):
        handling = SectionHandling(session, ctx, mail, submission, now, index, answer=answer)
        handling.gm_game = addressing.gm_game
        handling.gm_tournament = addressing.gm_tournament
        former = addressing.former
        if former is not None and _passed_on(handling, section, former):
            continue
        token_seat = addressing.token_seat(session, section)
        accepted |= _dispatch(handling, section, token_seat)
        notes += handling.notes
    if handling is not None:
        noted = len(handling.notes)
        conversation.queue_answer(
            session, ctx=ctx, handling=handling, answer=answer, submission=submission, now=now
        )
        notes += handling.notes[noted:]  # answers held back
    return accepted, notes


def _passed_on(handling: SectionHandling, section: MailSection, former: Seat) -> bool:
    """Answer a section of a mail to a former player's old reply address that needs the seat
    (in the seat's own game) with where the seat went; whether it was."""
    game = handling.session.get(Game, former.game_id)
    if game is None or not section.needs_seat or section.game not in (None, game.name):
        return False
    handling.game = game
    handover.answer_passed_on(handling, former)
    return True


def _leave_out(handling: SectionHandling, left: Sequence[MailSection]) -> str:
    """One mail for the sections past the limit, naming the first few of their games."""
    names = [section.game or "(no game)" for section in left]
    handling.reply(
        "too_many_sections",
        handling.sender,
        {"limit": MAX_SECTIONS, "left_out": len(names), "named": names[:LISTED_LEFT_OUT]},
    )
    return f"{len(names)} section(s) past the limit of {MAX_SECTIONS} left out"


def _dispatch(handling: SectionHandling, section: MailSection, token_seat: Seat | None) -> bool:
    """Find the game, answer what needs no seat, prove the seat where a command needs one, run
    the other handlers."""
    handling.named, handling.token_seat = section.game, token_seat
    game = handling.game = find_game(handling, section, token_seat)
    if game is not None and section.remark_only and _remark(handling, game, token_seat):
        return True
    if not section.needs_seat:
        return bool(_run_handlers(handling, section))
    gm_game = handling.gm_game
    if game is not None and token_seat is None and gm_game is not None and gm_game.id == game.id:
        return _game_master_section(handling, section)
    if game is None and section.game is None and _for_the_person(section):
        seats = person_seats(handling)
        if seats:
            return _person_section(handling, section, seats)
    if game is None:
        handling.notes.append("no game")
        if _run_handlers(handling, section) is None:
            handling.reply("no_game", handling.sender, {"named": section.game})
        else:  # named in the one answer, beside the commands that were answered
            player = bool(queries.seats_at_address(handling.session, handling.sender))
            unplaced = _without_game(section, orders=player)
            if unplaced:
                conversation.answer_problems(handling, [], unplaced)
        return False
    seated = _seated(handling, game, section, token_seat)
    if seated is not None:
        return bool(_run_handlers(seated, section))
    _run_handlers(handling, section)  # what needs no seat is answered still
    return False


def _for_the_person(section: MailSection) -> bool:
    """Whether every line of the section that needs a seat sets a setting of the person's,
    which holds in all his games (``CommandSpec.personal``, ``storage/persons.py``): a
    section that names no game may hold them."""
    kinds = [type(c) for c in section.asks] + [p.command for p in section.problems]
    return all(spec_of(kind).personal for kind in kinds if needs_seat(kind))


def _person_section(
    handling: SectionHandling, section: MailSection, seats: list[tuple[Seat, Game]]
) -> bool:
    """A section with no game that sets the sender's own settings: proven for his person (a
    password of his), it is done for all his games; else what needs no seat is answered."""
    seat = handling.seat = authenticate_person(handling, section, seats)
    if seat is None:
        _run_handlers(handling, section)
        return False
    handling.notes.append("for the person at the sender's address")
    return bool(_run_handlers(handling.for_the_person(seat), section))


def _remark(handling: SectionHandling, game: Game, token_seat: Seat | None) -> bool:
    """Acknowledge a section that asks nothing ("Good game!", "Congrats bob") about a game
    that is over, or from one of its observers who holds no seat in it: a remark is no failed
    order, and is never refused. Whether it was acknowledged so (else it is read as before: a
    seated player's bare mail in a running game is answered as orders)."""
    session, sender = handling.session, handling.sender
    over = game.status == GameStatus.FINISHED
    seated = (token_seat is not None and token_seat.game_id == game.id) or (
        queries.seat_at_address(session, game.id, sender) is not None
    )
    observer = not seated and queries.observer_at(session, game.id, sender.lower()) is not None
    if not (over or observer):
        return False
    handling.answer_sender("remark", {"game": game.name, "over": over}, known=observer)
    handling.notes.append(f"a remark about game {game.name}: acknowledged")
    return True


def _game_master_section(handling: SectionHandling, section: MailSection) -> bool:
    """A section sent to the game master's reply address that holds more than the game
    master's commands: those run, and the lines only a player may send are named (the game
    master has no seat to send them for)."""
    accepted = bool(_run_handlers(handling, section))
    why = (
        "this is not a game master's command; orders and players' commands go from a "
        "player's own address"
    )
    stray = _seat_lines(section, why, orders=True)
    if stray:
        conversation.answer_problems(handling, [], stray)
    return accepted


def _without_game(section: MailSection, *, orders: bool) -> list[CommandProblem]:
    """The lines of a section without a game that only a game's player may send; the lines
    left as orders only when ``orders`` (the sender has a seat: they may be misplaced orders;
    from anybody else they are chatter around the commands)."""
    if section.game:
        why = f"there is no game called {section.game!r} here"
    else:
        why = (
            "orders and a game's commands need their game: write GAME and the game's name "
            "on a line above them (e.g. GAME gw42)"
        )
    return _seat_lines(section, why, orders=orders)


def _seat_lines(section: MailSection, why: str, *, orders: bool) -> list[CommandProblem]:
    """The section's lines that only a seated player may send (its orders too when
    ``orders``), in line order, each refused with ``why``."""
    lines: list[SectionLine] = []
    for command in section.asks:
        if isinstance(command, Orders):
            lines += command.lines if orders else ()
        elif needs_seat(type(command)) and isinstance(getattr(command, "line", None), SectionLine):
            lines.append(command.line)  # type: ignore[attr-defined]
    lines += [p.line for p in section.problems if needs_seat(p.command)]
    return [CommandProblem(Orders, line, why) for line in sorted(lines)]


def _seated(
    handling: SectionHandling, game: Game, section: MailSection, token_seat: Seat | None
) -> SeatedHandling | None:
    """Prove the seat, and refuse a removed seat and mail the game's policy refuses: the
    section with its proven seat, or None."""
    seat = handling.seat = authenticate(handling, game, section, token_seat)
    if seat is None:
        return None
    seated = handling.seated(game, seat)
    if not seat.active:  # taken out of the game by the game master, or resigned
        seated.notes.append(f"removed from game {game.name}")
        # A resigned seat is offered until a newcomer takes it (``account._resign_seat``).
        offer = offers.open_offer(seated.session, seat)
        resigned = offer is not None and offer.reason == "resigned"
        context = base_context(game, seat, None) | {"resigned": resigned}
        seated.reply_to_seat("removed", context)
        return None
    policy = mail_policy_problem(game, seated.mail)
    if policy:
        seated.reply_to_seat("refusal_policy", {"game": game.name, "why": policy})
        return None
    return seated


def _run_handlers(handling: SectionHandling, section: MailSection) -> bool | None:
    """Each handler once, with its commands (``MailSection.asks``), in the table's order
    (``command_handlers.HANDLERS``): all of them once the seat is proven (``handling`` is a
    :class:`SeatedHandling`), those of the person's own settings too once the person is
    (a :class:`PersonHandling`), else only those that need no seat. The section counts as
    accepted as its orders do, when it gives any; None when no handler ran."""

    def wanted(command: type[Command]) -> bool:
        if not needs_seat(command) or isinstance(handling, SeatedHandling):
            return True
        return isinstance(handling, PersonHandling) and spec_of(command).personal

    results: dict[type[Command], bool] = {}
    for handler in command_handlers.HANDLERS:
        types = handler.commands
        commands = [c for c in section.asks if isinstance(c, types) and wanted(type(c))]
        problems = [p for p in section.problems if p.command in types and wanted(p.command)]
        if commands or problems:
            results[types[0]] = handler(handling, commands, problems)
    if not results:
        return None
    if Orders in results:
        return results[Orders]
    return all(results.values())
