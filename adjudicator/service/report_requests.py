"""Reports by mail: a player of a game asks for a round's report again, or for the game's
history (see :mod:`adjudicator.mail.requests` for the lines they write).

A round's report is the result mail of that round again, as this player got it: everything
public, plus their own result codes and orders that could not be applied, never anyone else's.
The history is what the archive shows of the game (handles, public states, the record of every
reported round), with the record attached. Only reported rounds are told: a round's result is
public once its mails are queued.

Each answer is queued in the caller's transaction, keyed by the request mail, so that the same
mail processed twice is answered once; a player gets at most :data:`ANSWERS_PER_HOUR` of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from adjudicator.games import kind_of
from adjudicator.mail.commands import CommandProblem, History, Report
from adjudicator.mail.compose import Attachment
from adjudicator.mail.parse import InboundMail, SectionLine
from adjudicator.mail.requests import LATEST
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.notify.times import local_time, zone_name
from adjudicator.readmodel.links import round_file
from adjudicator.readmodel.read import game_view
from adjudicator.readmodel.record import game_record
from adjudicator.readmodel.standings import (
    measure_rows,
    measure_table,
    measures_of,
    player_standing,
)
from adjudicator.readmodel.stored import termination_of
from adjudicator.service.game_context import base_context
from adjudicator.service.games import seats_of
from adjudicator.service.press import press_for
from adjudicator.service.round_results import result_context, round_extras
from adjudicator.service.rounds import open_round_of
from adjudicator.service.stand_ins import given_back_in_round, stand_ins_of_round
from adjudicator.storage import queries
from adjudicator.storage.models import (
    Game,
    GameStatus,
    Round,
    RoundResult,
    Seat,
)

ANSWERS_PER_HOUR = 20
"""Reports and histories sent to one player of one game in an hour, at the most: a mail client
gone wrong, or a player's script, must not make the service draw and send without end."""
ANSWER_KINDS = ("report", "history")


@dataclass(frozen=True)
class Asker:
    """Who asked, in which mail, and where the answers go in the outbox."""

    game: Game
    seat: Seat
    mail: InboundMail
    key: str  # unique to the request: "<submission id>:<section index>"


def answer_requests(
    session: Session,
    *,
    ctx: ServiceContext,
    asker: Asker,
    reports: Sequence[Report],
    history: History | None,
    problems: Sequence[CommandProblem],
    now: datetime,
) -> list[str]:
    """Queue the answers to the REPORT and HISTORY commands of one section, and one mail
    naming every request that was wrong or cannot be answered; notes for the submission."""
    reported = _reported_rounds(session, asker.game)
    now_context = _now_context(session, ctx, asker)
    unanswered = [(p.line, p.message) for p in problems]
    notes = []
    budget = ANSWERS_PER_HOUR - _recent_answers(session, asker, now=now)
    too_many = (
        f"the service sends at most {ANSWERS_PER_HOUR} reports an hour to a player; "
        "ask again in an hour"
    )
    for ask in reports:
        number = max(reported, default=None) if ask.number == LATEST else ask.number
        round_id = reported.get(number) if number is not None else None
        if round_id is None:
            unanswered.append((ask.line, _not_reported(ask, reported)))
        elif budget <= 0:
            unanswered.append((ask.line, too_many))
        else:
            round_, result = _round_and_result(session, round_id)
            _queue_report(
                session,
                ctx=ctx,
                asker=asker,
                round_=round_,
                result=result,
                now_context=now_context,
                now=now,
            )
            notes.append(f"report of round {round_.number} sent")
            budget -= 1
    if history is not None and budget <= 0:
        unanswered.append((history.line, too_many))
    elif history is not None:
        _queue_history(session, ctx=ctx, asker=asker, now_context=now_context, now=now)
        notes.append("history sent")
    if unanswered:
        context = now_context | {"last": max(reported, default=None)}
        _queue_problems(
            session, ctx=ctx, asker=asker, problems=unanswered, context=context, now=now
        )
        notes.append(f"{len(unanswered)} request(s) not understood or not answerable")
    return notes


def _recent_answers(session: Session, asker: Asker, *, now: datetime) -> int:
    """Reports and histories queued for this player of this game in the last hour."""
    return queries.answers_queued_since(
        session,
        game_id=asker.game.id,
        kinds=ANSWER_KINDS,
        recipient=asker.seat.address,
        since=now - timedelta(hours=1),
    )


def _reported_rounds(session: Session, game: Game) -> dict[int, int]:
    """The reported rounds of ``game``: their ids by number (the results are loaded when
    asked for: a long board game has hundreds)."""
    return queries.reported_round_ids(session, game.id)


def _round_and_result(session: Session, round_id: int) -> tuple[Round, RoundResult]:
    return queries.round_with_result(session, round_id)


def _not_reported(ask: Report, reported: dict[int, int]) -> str:
    if not reported:
        return "no round of this game has been adjudicated yet"
    last = max(reported)
    if ask.number > last:
        return f"round {ask.number} has not been adjudicated yet; the last one is round {last}"
    return f"there is no report of round {ask.number}; reports exist for rounds 1 to {last}"


def _now_context(session: Session, ctx: ServiceContext, asker: Asker) -> dict[str, Any]:
    """Where the game stands as the answer is written."""
    open_round = open_round_of(session, asker.game)
    return {
        **base_context(asker.game, asker.seat, open_round),
        "now_round": open_round.number if open_round else None,
        "now_finished": asker.game.status == GameStatus.FINISHED,
        "game_link": ctx.archive_link(asker.game.name),
    }


def _queue_report(
    session: Session,
    *,
    ctx: ServiceContext,
    asker: Asker,
    round_: Round,
    result: RoundResult,
    now_context: dict[str, Any],
    now: datetime,
) -> None:
    game, seat = asker.game, asker.seat
    assert round_.id is not None
    public = result.report.get("public", {})
    extras = round_extras(session, ctx, game, result.public_state, public, next_round=None, now=now)
    seats = seats_of(session, game)
    context = result_context(
        game,
        seat,
        round_=round_,
        next_round=None,
        result=result,
        termination=termination_of(game, result),
        players=[s.handle for s in seats],
        pictures=extras.picture_context(),
        round_link=ctx.archive_link(game.name, round_file(round_.number)),
        stand_ins=stand_ins_of_round(session, round_, seats=seats),
        given_back=given_back_in_round(session, round_, result.orders, seats=seats),
    )
    context |= {
        "requested": True,
        "first_sent": local_time(round_.reported_at, now_context["time_zone"]),
        "now_round": now_context["now_round"],
        "now_finished": now_context["now_finished"],
        "deadline": now_context["deadline"],
    }
    queue_notice(
        session,
        Notice(
            "result",
            seat.address,
            context,
            key=f"report:{asker.key}:{round_.number}",
            game_id=game.id,
            round_id=round_.id,
            seat_id=seat.id,
            answers=asker.mail,
            proven=True,  # the asker's seat is proven; the reports have a limit of their own
            label="report",
            images=extras.images,
        ),
        ctx=ctx,
        now=now,
    )


def _queue_history(
    session: Session,
    *,
    ctx: ServiceContext,
    asker: Asker,
    now_context: dict[str, Any],
    now: datetime,
) -> None:
    game, seat = asker.game, asker.seat
    view = game_view(session, game)
    context = dict(now_context)
    zone = context["time_zone"]
    last = view.last
    extras = None
    if last is not None:  # the pictures of the position now
        extras = round_extras(
            session, ctx, game, last.public_state, last.report, next_round=None, now=now
        )
    tables = []
    word = kind_of(game.kind).round_word
    for measure in measures_of(view):
        text, sampled = measure_table(measure, word=word)
        tables.append(
            {
                "name": measure.key,
                "label": measure.label,
                "text": text,
                "rows": measure_rows(measure, word=word),
                "sampled": sampled,
            }
        )
    context |= {
        "players": [
            {"handle": p.handle, "standing": player_standing(view, p.handle)} for p in view.players
        ],
        "rounds_zone": zone_name(zone),
        "rounds": [
            {
                "number": r.number,
                "closed": local_time(r.adjudicated_at, zone, named=False),
                "orders": {p: list(lines) for p, lines in r.orders.items()},
                "finished": r.finished,
                "winners": list(r.winners),
                "draw": r.draw,
            }
            for r in view.rounds
        ],
        "last": last.number if last else None,
        "sequential": view.sequential,
        "tables": tables,
        "pictures": extras.picture_context() if extras else [],
        "record_file": f"{game.name}.record",
        "press": press_for(session, game, seat.handle),
    }
    record = Attachment(f"{game.name}.record", game_record(view).encode(), "text", "plain")
    queue_notice(
        session,
        Notice(
            "history",
            seat.address,
            context,
            key=f"history:{asker.key}",
            game_id=game.id,
            seat_id=seat.id,
            answers=asker.mail,
            proven=True,  # the asker's seat is proven; the reports have a limit of their own
            attachments=[record],
            images=extras.images if extras else [],
        ),
        ctx=ctx,
        now=now,
    )


def _queue_problems(
    session: Session,
    *,
    ctx: ServiceContext,
    asker: Asker,
    problems: list[tuple[SectionLine, str]],
    context: dict[str, Any],
    now: datetime,
) -> None:
    context = context | {
        "problems": [
            {"line": line.number, "text": line.text.strip(), "message": message}
            for line, message in sorted(problems, key=lambda p: p[0].number)
        ],
    }
    queue_notice(
        session,
        Notice(
            "request_problem",
            asker.seat.address,
            context,
            key=f"request_problem:{asker.key}",
            game_id=asker.game.id,
            seat_id=asker.seat.id,
            answers=asker.mail,
            proven=True,  # the asker's seat is proven; the reports have a limit of their own
        ),
        ctx=ctx,
        now=now,
    )
