"""Commands that tell: ``HELP``, ``LIST``, ``STATUS`` (or ``ORDERS``) and the answer to a
mistyped command, and the one mail that carries every command's answer.

None of these needs a proven seat. HELP and LIST are for anybody; STATUS tells each seat's
private data (its stored orders) only to that seat's registered address, so a mail with a
forged sender makes the real player get their own status, and tells the forger nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlmodel import Session

from adjudicator.base.security import seat_reply_address
from adjudicator.games import game_title, kind_of
from adjudicator.mail.command_specs import help_lines, spec_of
from adjudicator.mail.commands import (
    Approve,
    Command,
    CommandProblem,
    Help,
    Join,
    SetPassword,
    Standby,
    Take,
    Unknown,
)
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.absence import absence_status
from adjudicator.service.game_context import base_context
from adjudicator.service.handling import AnswerPart, MailAnswer, SectionHandling
from adjudicator.service.notices import gm_reply_to
from adjudicator.service.rounds import open_round_of
from adjudicator.service.settings import settings_of
from adjudicator.service.sign_up_state import not_started
from adjudicator.service.stand_ins import STAND_IN, stand_in_seats
from adjudicator.service.teaching import NO_POSITION, rules_reference, seat_position
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus, Seat, Submission
from adjudicator.storage.tournaments import games_of, tournament_named

EXAMPLE_TRIES = 8


def command_list() -> list[dict[str, str]]:
    """Every player's command, as HELP lists it (``CommandSpec.help``)."""
    return [{"command": command, "meaning": meaning} for command, meaning in help_lines()]


# --- the one answer ----------------------------------------------------------------------------


def queue_answer(
    session: Session,
    *,
    ctx: ServiceContext,
    handling: SectionHandling,
    answer: MailAnswer,
    submission: Submission,
    now: datetime,
) -> None:
    """One mail to each recipient with every part of the answer meant for them, in the order
    of the mail's sections. A part that is a whole mail (a confirmation) alone keeps its own
    mail, key and kind; with other parts it becomes a section under its own subject.

    The outbox keys name the submission, and the mail is processed in one transaction: a
    crash before its commit queues nothing, and processing it again queues the same keys.
    An answer that proves no seat counts towards its address's one budget of answers
    (``throttle.py``), however many commands it answers: HELP or LIST in mails with a forged
    sender must not make the service a mail cannon. What the commands did is done all the
    same; only the answer is left out, and the mail's note says so."""
    for number, (to, unmerged) in enumerate(answer.parts.items()):
        parts = _merged(unmerged)
        if len(parts) == 1 and parts[0].whole:
            notice = _whole(handling, to, parts[0])
        else:
            notice = _combined(session, ctx, handling, to, parts, key=(submission.id, number))
        if not queue_notice(session, notice, ctx=ctx, now=now):
            # the answer limits (throttle.py): the reason stays with the mail
            held = [p.kind for p in parts if p.whole] or ["answer"]
            handling.notes += [f"{kind} to {to} held back (rate limit or loop)" for kind in held]


def _whole(handling: SectionHandling, to: str, part: AnswerPart) -> Notice:
    """The one answer to ``to`` is a mail of its own (``templates/mail/<kind>.txt.j2``)."""
    return Notice(
        part.kind,
        to,
        part.context,
        key=f"reply:{handling.submission.id}:{part.section}:{part.kind}",
        game_id=part.game_id,
        round_id=part.round_id,
        seat_id=part.seat_id,
        answers=handling.mail,
        proven=part.proven,
    )


def _combined(
    session: Session,
    ctx: ServiceContext,
    handling: SectionHandling,
    to: str,
    parts: list[AnswerPart],
    *,
    key: tuple[int | None, int],
) -> Notice:
    """The one answer to ``to`` holding every part (``templates/mail/answer.txt.j2``)."""
    whole = [p for p in parts if p.whole]
    seats = {p.seat_id for p in parts if p.seat_id is not None}
    game_ids = {p.game_id for p in parts if p.game_id is not None}
    seat = session.get(Seat, next(iter(seats))) if len(seats) == 1 else None
    handles = {s.handle for s in (session.get(Seat, i) for i in seats) if s is not None}
    shown = [_shown(ctx, p) for p in parts]
    context = {
        "parts": shown,
        "games": sorted({p.game for p in parts if p.game}),
        "subjects": [p["heading"] for p in shown if p["whole"]],
        # The name the player goes by, when all the seats answered share it.
        "handle": next(iter(handles)) if len(handles) == 1 else None,
        "service_address": ctx.identity.address,
    }
    # The game master's answer carries the game master's reply address (``gm_mail.py``);
    # an answer about several seats, every one's (a reply names its game: ``intake.py``).
    reply_to = {p.reply_to for p in parts if p.reply_to}
    if len(seats) > 1:
        reply_to = {_reply_addresses(session, ctx, [p.seat_id for p in parts])}
    # With a game's answer in it, it counts as an answer to the mail (``throttle.py``).
    submission, number = key
    return Notice(
        "answer",
        to,
        context,
        key=f"reply:{submission}:mail:{number}" if whole else f"answer:{submission}:{number}",
        game_id=next(iter(game_ids)) if len(game_ids) == 1 else None,
        seat_id=seat.id if seat is not None else None,
        answers=handling.mail,
        proven=any(p.proven for p in parts),
        reply_to=next(iter(reply_to)) if seat is None and len(reply_to) == 1 else None,
    )


def _shown(ctx: ServiceContext, part: AnswerPart) -> dict[str, Any]:
    """A part as the one answer's template shows it: a command's answer with its own
    template; a whole mail rendered, as a section headed by its subject, without its greeting
    and its footer (the one answer has its own)."""
    if not part.whole:
        return {**part.context, "template": part.kind, "whole": False}
    rendered = ctx.renderer.mail(part.kind, part.context, html=False)
    body = rendered.text.partition("\n-- \n")[0].strip("\n")
    greeting, blank, rest = body.partition("\n\n")
    if blank and greeting.startswith("Hello"):
        body = rest
    text = body[:1].upper() + body[1:]
    return {"whole": True, "template": part.kind, "heading": rendered.subject, "text": text}


def _reply_addresses(session: Session, ctx: ServiceContext, seat_ids: Sequence[int | None]) -> str:
    """The reply addresses of the seats answered, in the order of their parts, as one
    Reply-To: a reply to an answer about several games reaches each game's seat."""
    addresses: list[str] = []
    for seat_id in dict.fromkeys(i for i in seat_ids if i is not None):
        seat = session.get(Seat, seat_id)
        if seat is not None:
            addresses.append(
                seat_reply_address(ctx.receipt_key, ctx.identity.address, seat_id, seat.reply_token)
            )
    return ", ".join(addresses)


def _merged(parts: list[AnswerPart]) -> list[AnswerPart]:
    """The parts of one recipient's answer with every problem in one part, last; the list of
    commands in it only when the answer does not hold HELP's already."""
    problems = [p for p in parts if p.kind == "problems"]
    others = [p for p in parts if p.kind != "problems"]
    if not problems:
        return others
    listed = [line for p in problems for line in p.context["problems"]]
    wanted = any(p.context["commands"] for p in problems)
    has_help = any(p.kind == "help" for p in others)
    gm_wanted = any(p.context.get("gm_commands") for p in problems)
    first = problems[0]
    context = {
        "problems": sorted(listed, key=lambda line: line["line"]),
        "commands": command_list() if wanted and not has_help else [],
        "gm_commands": gm_wanted and not any(p.kind == "gm_help" for p in others),
        "time_zone": first.context.get("time_zone"),
    }
    merged = AnswerPart(
        "problems",
        context,
        first.game,
        first.game_id,
        first.seat_id,
        reply_to=first.reply_to,
        proven=any(p.proven for p in problems),
    )
    return [*others, merged]


# --- HELP --------------------------------------------------------------------------------------


def answer_help(
    handling: SectionHandling, commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    """General help, or one game's: its orders with an example valid in the sender's own
    position when the sender holds a seat, and where its rules are."""
    for command in commands:
        assert isinstance(command, Help)
        name = command.game or handling.named
        game = queries.game_named(handling.session, name) if name else None
        if game is None:
            handling.answer_sender("help", {"commands": command_list(), "unknown_game": name})
            continue
        handling.answer_sender("help_game", _game_help(handling, game))
    _game_master_help(handling)
    handling.notes.append("help sent")
    return True


def _game_master_help(handling: SectionHandling) -> None:
    """HELP sent to the game master's own address: the game master's commands too, to the
    game master's registered address (``gm_mail.py``)."""
    game = handling.gm_game
    if game is None or not game.gm_address:
        return
    reply_to = gm_reply_to(handling.ctx, game)
    context = {"game": game.name, "time_zone": game.time_zone}
    part = AnswerPart("gm_help", context, game.name, game.id, reply_to=reply_to, proven=True)
    handling.answer.add(game.gm_address, part)


def _game_help(handling: SectionHandling, game: Game) -> dict[str, Any]:
    seat = _sender_seat(handling, game)
    example: list[str] = []
    waiting = False
    position = NO_POSITION
    if seat is not None and game.status in (GameStatus.RUNNING, GameStatus.PAUSED):
        rules, state = rules_of(game), game_state(game)
        waiting = seat.handle in rules.to_move(state)
        if waiting:
            example = example_orders(game, seat.handle)
        position = seat_position(handling.ctx, game, seat.handle)
    kind = game.kind
    syntax = f"mail/answer/syntax/{kind}.txt.j2"
    return {
        "game": game.name,
        "game_title": game_title(kind),
        "status": str(game.status),
        "player": seat.handle if seat is not None else None,
        "your_turn": waiting,
        "example": example,
        "syntax": syntax if handling.ctx.renderer.exists(syntax) else None,
        "sequential": kind_of(kind).rules.sequential,
        "round_word": kind_of(kind).round_word,
        **position,
        **rules_reference(handling.ctx, kind),
    }


def example_orders(game: Game, handle: str) -> list[str]:
    """Orders the game accepts from ``handle`` now, in canonical form: the shortest of a few
    random legal sets (seeded by the game, seat and round: the same question gets the same
    example)."""
    rules, state = rules_of(game), game_state(game)
    best: list[str] | None = None
    for attempt in range(EXAMPLE_TRIES):
        rng = random.Random(f"{game.name}:{handle}:{game.current_round}:{attempt}")
        checked = rules.check(state, handle, rules.sample_orders(state, handle, rng))
        if checked.ok and checked.orders:
            lines = [rules.format_order(order) for order in checked.orders]
            if best is None or len(lines) < len(best):
                best = lines
    return best or []


def _sender_seat(handling: SectionHandling, game: Game) -> Seat | None:
    """The seat of ``game`` the sender speaks for: the reply token's, or the one registered
    under the sender's address (proof of nothing: used only for what is not secret)."""
    token = handling.token_seat
    if token is not None and token.game_id == game.id:
        return token
    return queries.seat_at_address(handling.session, game.id, handling.sender)


# --- LIST --------------------------------------------------------------------------------------


def answer_list(
    handling: SectionHandling, _commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    session = handling.session
    open_games = [
        {
            "game": game.name,
            "game_title": game_title(game.kind),
            "players": len(queries.seats_of(session, game.id)),
            "not_started": not_started(session, game),
        }
        for game in queries.games_open_for_signup(session)
    ]
    mine = []
    for seat in _sender_seats(handling):
        game = session.get(Game, seat.game_id)
        if game is not None:
            mine.append(
                {
                    "game": game.name,
                    "game_title": game_title(game.kind),
                    "handle": seat.handle,
                    "status": str(game.status),
                    "round": game.current_round,
                    "active": seat.active,
                }
            )
    standby = queries.standby_kinds(session, handling.sender)
    handling.answer_sender("list", {"open_games": open_games, "my_games": mine, "standby": standby})
    handling.notes.append("list sent")
    return True


def _sender_seats(handling: SectionHandling) -> list[Seat]:
    """The seats registered under the sender's address, and the reply token's seat."""
    seats = queries.seats_at_address(handling.session, handling.sender)
    token = handling.token_seat
    if token is not None and token.id not in {s.id for s in seats}:
        seats.append(token)
    return seats


# --- STATUS ------------------------------------------------------------------------------------


def answer_status(
    handling: SectionHandling, _commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    """Each game of the sender's, to that seat's registered address only. In a game section,
    that game only; in a tournament's (a reply to its round's mail), its games of the round."""
    seats = [s for s in _sender_seats(handling) if s.active]
    tournament = tournament_named(handling.session, handling.named or "")
    if handling.named and handling.game is None and tournament is not None:
        # A reply to a tournament's mail about several games: his games of its round.
        rows = games_of(handling.session, tournament)
        ids = {r.game_id for r in rows if r.round == tournament.current_round}
        seats = [s for s in seats if s.game_id in ids]
    elif handling.named:
        seats = [s for s in seats if handling.game is not None and s.game_id == handling.game.id]
    if not seats:
        handling.answer_sender("status_none", {"named": handling.named})
        handling.notes.append("status: no seat")
        return False
    for seat in seats:
        game = handling.session.get(Game, seat.game_id)
        if game is not None:
            handling.answer_seat(seat, "status", _game_status(handling.session, game, seat))
    handling.notes.append("status sent")
    return True


def _game_status(session: Session, game: Game, seat: Seat) -> dict[str, Any]:
    round_ = open_round_of(session, game)
    context = base_context(game, seat, round_)
    stored: list[str] | None = None
    by_stand_in = False  # whose orders stand for the seat: the computer's, or the player's
    waiting: list[str] = []
    ordered: list[str] = []
    if round_ is not None and round_.id is not None and game.state is not None:
        movers = rules_of(game).to_move(game_state(game))
        active = {s.handle: s for s in queries.seats_of(session, game.id) if s.active}
        for handle in movers:
            mover = active.get(handle)
            if mover is None or mover.id is None:
                continue
            orders = queries.newest_order_set(session, round_.id, mover.id)
            if mover.id == seat.id:
                stored = orders.lines if orders is not None else None
                by_stand_in = orders is not None and orders.receipt == STAND_IN
            (waiting if orders is None else ordered).append(handle)
        context["moves_now"] = seat.handle in movers
    return context | {
        "status": str(game.status),
        "open_round": round_.number if round_ else None,
        "stored": stored,
        "stored_by_stand_in": by_stand_in,
        "stand_in": seat.handle in stand_in_seats(game),
        # Who has orders in and who not yet (handles only), unless the game master turned it
        # off (setting ``show_waiting``).
        "progress": {"ordered": ordered, "to_order": waiting}
        if settings_of(game).show_waiting
        else None,
        "sequential": rules_of(game).sequential,
        "moves_now": context.get("moves_now", False),
        "wait": seat.wait,
        "held": any(s.wait for s in queries.seats_of(session, game.id) if s.active),
        "absence": absence_status(session, game, seat),
    }


# --- problems ----------------------------------------------------------------------------------


LineCommand = TypeVar("LineCommand", Approve, Join, Standby, Take)
"""The one-line commands answered one by one with :func:`answer_each`."""


def answer_each(
    handling: SectionHandling,
    kind: type[LineCommand],
    commands: Sequence[Command],
    answer_one: Callable[[SectionHandling, LineCommand], str | None],
) -> bool:
    """Answer each command of ``kind`` with ``answer_one``, which says what is wrong with it,
    if anything; the wrong ones are answered together, line by line. True when none was."""
    bad: list[CommandProblem] = []
    for command in commands:
        assert isinstance(command, kind)
        problem = answer_one(handling, command)
        if problem is not None:
            bad.append(CommandProblem(kind, command.line, problem))
    if bad:
        answer_problems(handling, [], bad)
    return not bad


def one_by_one(
    kind: type[LineCommand], answer_one: Callable[[SectionHandling, LineCommand], str | None]
) -> Callable[[SectionHandling, Sequence[Command], Sequence[CommandProblem]], bool]:
    """The handler of a one-line command ``kind`` (JOIN, APPROVE, TAKE): each answered with
    ``answer_one`` (:func:`answer_each`). Named after the command."""

    def handle(
        handling: SectionHandling, commands: Sequence[Command], _problems: Sequence[CommandProblem]
    ) -> bool:
        return answer_each(handling, kind, commands, answer_one)

    handle.__name__ = handle.__qualname__ = kind.__name__.lower()
    return handle


def game_asked(handling: SectionHandling, name: str | None) -> tuple[str | None, Game | None]:
    """The game a one-line command asks about: the one it names, else the one the section's
    GAME line names; that name, and the game by that name if there is one."""
    name = name or handling.named
    return name, queries.game_named(handling.session, name) if name else None


def confirmed(
    handling: SectionHandling,
    command: Join | Standby,
    code: str,
    context: dict[str, Any],
    *,
    named: str,
) -> tuple[bool, str | None]:
    """The confirmation step of a command that acts for an address only once the address has
    shown that it reads its mail (JOIN, STANDBY): without a code, the ``code`` is mailed back
    to the sender (the step ``confirm`` of the command's answer, named after its word); a
    wrong code is refused, naming the command to write again, with what it ``named``, to get
    one. Whether the code was right, and what is wrong with the command if anything."""
    word = spec_of(type(command)).words[0]
    if command.code is None:
        handling.answer_sender(word, context | {"step": "confirm", "code": code})
        return False, None
    if command.code != code:
        again = f"{word.upper()} {named}"
        return False, f"that is not the code mailed to this address; write {again} alone to get one"
    return True, None


def answer_problems(
    handling: SectionHandling, _commands: Sequence[Command], problems: Sequence[CommandProblem]
) -> bool:
    """Command lines that were wrong: each named (a password never echoed), with the list of
    commands. To the proven seat when there is one, else to the sender."""
    shown = [
        {
            "line": p.line.number,
            "text": "SET PASSWORD ..." if p.command is SetPassword else p.line.text.strip(),
            "message": p.message,
        }
        for p in problems
    ]
    mistyped = any(p.command is Unknown for p in problems)
    context = {"problems": shown, "commands": command_list() if mistyped else []}
    gm_game = handling.gm_game
    if gm_game is not None and gm_game.gm_address and handling.seat is None:
        # The game master's mail (to the game master's own address, ``gm_mail.py``): the game
        # master's commands, not the players', so that the corrected line can be sent back.
        context |= {"commands": [], "gm_commands": mistyped, "time_zone": gm_game.time_zone}
        handling.answer_sender("problems", context)
    elif handling.seat is not None:
        handling.answer_seat(handling.seat, "problems", context)
    else:
        handling.answer_sender("problems", context)
    handling.notes.append(f"{len(problems)} command line(s) not understood")
    return False
