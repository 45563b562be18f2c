"""A round's result as each player's mail tells it, and what every player's mail of the round
shares: its pictures, converted to PNG once per round, and the next deadline's calendar event.
``reporting.py`` queues them in the transaction that marks the round reported; ``observers.py``,
``reports.py`` and ``handover.py`` show the same pictures and words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session

from adjudicator.core.kind import Hint
from adjudicator.games import kind_of
from adjudicator.mail.compose import Attachment, thread_root
from adjudicator.mail.images import InlineImage, inline_images
from adjudicator.notify.calendar import deadline_attachment
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.mail import mail_template
from adjudicator.notify.notice import Notice, Threading
from adjudicator.notify.outbox import PendingMail
from adjudicator.notify.queue import prepare_notice
from adjudicator.notify.times import local_time
from adjudicator.pictures import Picture
from adjudicator.readmodel.links import round_file
from adjudicator.readmodel.stored import rules_of
from adjudicator.service.game_context import base_context
from adjudicator.service.games import seats_of
from adjudicator.service.hints import finished_game_hint
from adjudicator.service.pictures import pngs_for
from adjudicator.service.rounds import Adjudicated
from adjudicator.service.stand_ins import (
    answered_by_stand_ins,
    ended_by_own_move,
    given_back_in_round,
    own_move,
    stand_ins_of_round,
)
from adjudicator.service.urgency import pressing_seats
from adjudicator.storage import queries
from adjudicator.storage.models import Game, OrderSet, Round, RoundResult, Seat, Submission


def replaced_result(game: Game, number: int) -> str | None:
    """When the result of round ``number`` mailed before was sent, if a rollback discarded it
    (``gm.rollback``): the new result says it replaces that one. In the game's time zone."""
    sent = (game.replaced_results or {}).get(str(number))
    if not sent:
        return None
    return local_time(datetime.fromisoformat(sent), game.time_zone)


@dataclass(frozen=True)
class RoundExtras:
    """What every player's result mail of one round shares, made once per round."""

    pictures: list[Picture]
    images: list[InlineImage]
    attachments: list[Attachment] = field(default_factory=list)

    def picture_context(self) -> list[dict[str, Any]]:
        """Each picture for the templates: ``text`` for the plain part and, when its PNG
        exists, ``cid``, ``width`` and ``height`` for the HTML part."""
        by_name = {image.name: image for image in self.images}
        shown = []
        for picture in self.pictures:
            image = by_name.get(picture.name)
            shown.append(
                {
                    "name": picture.name,
                    "title": picture.title,
                    "words": picture.words,
                    "text": picture.text,
                    "cid": image.content_id if image else None,
                    "width": image.width if image else None,
                    "height": image.height if image else None,
                }
            )
        return shown


def round_extras(
    session: Session,
    ctx: ServiceContext,
    game: Game,
    public_state: Mapping[str, Any],
    public_report: Mapping[str, Any],
    *,
    next_round: Round | None,
    now: datetime,
    pictures: Sequence[Picture] | None = None,
) -> RoundExtras:
    """The pictures of the position after a round (``RoundResult.public_state`` and
    ``report["public"]``) with the PNGs made of them (``service/pictures.py``: never made
    here, in a transaction), and the next round's calendar event. ``pictures``: those
    pictures, when the caller has drawn them already (the reporter, to make their PNGs)."""
    if pictures is None:
        pictures = kind_of(game.kind).pictures(public_state, public_report)
    pngs = pngs_for(session, ctx, pictures)
    converted = inline_images(pictures, domain=ctx.identity.domain, pngs=pngs)
    calendar = deadline_attachment(ctx, game, next_round, now=now)
    return RoundExtras(list(pictures), converted, [calendar] if calendar else [])


def result_context(
    game: Game,
    seat: Seat,
    *,
    round_: Round,
    next_round: Round | None,
    result: RoundResult,
    termination: str | None,
    players: Sequence[str],
    pictures: list[dict[str, Any]],
    calendar: bool = False,
    round_link: str | None = None,
    stand_ins: Sequence[str] = (),
    given_back: Sequence[Mapping[str, object]] = (),
    hint: Hint | None = None,
) -> dict[str, Any]:
    """What one player's result mail may show: everything public, plus their own private
    report, result codes and any of their orders that could not be applied. ``round_link``
    is the round's page in the published archive."""
    report = result.report
    return {
        **base_context(game, seat, next_round),
        "round": round_.number,
        "next_round": next_round.number if next_round else None,
        "players": list(players),
        "state": result.public_state,
        "report": report.get("public", {}),
        "private": report.get("private", {}).get(seat.handle, {}),
        "codes": report.get("codes", {}).get(seat.handle, []),
        "orders": result.orders,
        "rejected": [r for r in result.rejected if r.get("player") == seat.handle],
        "finished": result.finished,
        "winners": result.winners,
        "draw": result.draw,
        "termination": termination,
        "pictures": pictures,
        "calendar": calendar,  # whether the mail carries the next deadline as an .ics file
        "round_link": round_link,
        "stand_ins": list(stand_ins),  # seats the computer played this round
        # seats a person took back from the computer during the round, and whose orders stood
        "given_back": list(given_back),
        # A round adjudicated again after a rollback: when the result it replaces was mailed.
        "replaces": replaced_result(game, round_.number),
        "hint": hint,  # where a finished game was decided (service/hints.py)
        # A report asked for again (service/report_requests.py) says so, and where the game is now.
        "requested": False,
        "first_sent": None,
        "now_round": None,
        "now_finished": result.finished,
    }


def round_result_mails(
    session: Session,
    *,
    ctx: ServiceContext,
    adjudicated: Adjudicated,
    now: datetime,
    pictures: Sequence[Picture] | None = None,
) -> list[PendingMail]:
    """The result of a round for every player, rendered (reads only): ``reporting.py`` queues
    them in the transaction that marks the round reported, and passes the round's
    ``pictures`` it drew (:func:`round_extras`)."""
    game, round_, result = adjudicated.game, adjudicated.round, adjudicated.result
    assert round_.id is not None
    seats = seats_of(session, game)
    extras = round_extras(
        session,
        ctx,
        game,
        result.public_state,
        result.report.get("public", {}),
        next_round=adjudicated.next_round,
        now=now,
        pictures=pictures,
    )
    shown = extras.picture_context()
    termination = adjudicated.outcome.termination if adjudicated.outcome else None
    players = [seat.handle for seat in seats]
    movers = set(rules_of(game).to_move(adjudicated.state))
    round_link = ctx.archive_link(game.name, round_file(round_.number))
    stand_ins = stand_ins_of_round(session, round_, seats=seats)
    given_back = given_back_in_round(session, round_, result.orders, seats=seats)
    hint = finished_game_hint(session, game) if result.finished else None
    pressing = pressing_seats(session, game, now=now)  # the others' can wait for a digest
    # A move the computer answered at once is told to its mover in one mail, the answer's
    # result (``stand_ins.answered_by_stand_ins``): not this round's result, then the next's.
    answered_next = answered_by_stand_ins(session, adjudicated.next_round)
    before = (
        queries.round_numbered(session, game.id, round_.number - 1)
        if answered_by_stand_ins(session, round_)
        else None
    )
    mails = []
    for seat in seats:
        assert seat.id is not None
        if not seat.active:
            continue  # removed by the game master: no more mail
        if answered_next and own_move(session, round_, seat) is not None:
            continue  # told with the computer's answer, in the next round's result
        # The deadline concerns only the players the next round waits for.
        calendar = extras.attachments if seat.handle in movers else []
        context = result_context(
            game,
            seat,
            round_=round_,
            next_round=adjudicated.next_round,
            result=result,
            termination=termination,
            players=players,
            pictures=shown,
            calendar=bool(calendar),
            round_link=round_link,
            stand_ins=stand_ins,
            given_back=given_back,
            hint=hint,
        )
        moved = own_move(session, before, seat) if before is not None else None
        threading = None
        if before is not None and moved is not None:
            context["your_move"] = _answered_move(
                session, ctx, adjudicated=adjudicated, before=before, seat=seat, moved=moved
            )
            threading = _answering(session, ctx, game, moved)
        elif ended_by_own_move(session, game, round_, seat):
            # The move that ended the game is told in its result: the answer to its mail.
            ending = own_move(session, round_, seat)
            assert ending is not None
            context["your_move"] = _ending_move(round_, ending)
            threading = _answering(session, ctx, game, ending)
        notice = Notice(
            "result",
            seat.address,
            context,
            key=f"result:{round_.id}:{seat.id}",
            game_id=game.id,
            round_id=round_.id,
            seat_id=seat.id,
            threading=threading,
            attachments=calendar,
            images=extras.images,
            # The answer to his own move's mail never waits; nor his turn, nor a near deadline.
            may_wait=threading is None and seat.id not in pressing,
        )
        mail = prepare_notice(session, notice, ctx=ctx, now=now)
        mails.append(mail)
    return mails


def _answered_move(
    session: Session,
    ctx: ServiceContext,
    *,
    adjudicated: Adjudicated,
    before: Round,
    seat: Seat,
    moved: OrderSet,
) -> dict[str, Any]:
    """The mover's own move, answered by the computer in ``adjudicated``'s round, as the one
    mail for both rounds shows it: the move and its receipt (the confirmation's), and what
    the move did, in the words of its round's result (without its board: the new position
    follows)."""
    game = adjudicated.game
    result = queries.result_of(session, before.id)
    text = ""
    if result is not None:
        context = result_context(
            game,
            seat,
            round_=before,
            next_round=adjudicated.round,
            result=result,
            termination=None,
            players=[s.handle for s in seats_of(session, game)],
            pictures=[],
        ) | {"only_report": True}
        rendered = ctx.renderer.mail(mail_template(ctx, game.kind, "result"), context, html=False)
        body = rendered.text.partition("\n-- \n")[0]
        greeting, blank, rest = body.partition("\n\n")
        text = (rest if blank and greeting.startswith("Hello") else body).strip("\n")
    return {
        "round": before.number,
        "lines": list(moved.lines),
        "receipt": moved.receipt,
        "text": text,
        "ended": False,
    }


def _ending_move(round_: Round, moved: OrderSet) -> dict[str, Any]:
    """The mover's own move that ended the game, as its one mail shows it above the result:
    the move and its receipt (the confirmation's); what it did is the result itself."""
    return {
        "round": round_.number,
        "lines": list(moved.lines),
        "receipt": moved.receipt,
        "text": "",
        "ended": True,
    }


def _answering(
    session: Session, ctx: ServiceContext, game: Game, moved: OrderSet
) -> Threading | None:
    """The one mail for a move the computer answered is the answer to the mover's mail:
    threaded under it (and the game), as its confirmation was."""
    submission = session.get(Submission, moved.submission_id) if moved.submission_id else None
    if submission is None or not submission.message_id:
        return None
    root = thread_root(game.name, ctx.identity)
    return Threading(
        in_reply_to=submission.message_id,
        references=(root, submission.message_id),
        auto="auto-replied",
    )
