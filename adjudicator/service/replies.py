"""Queuing the service's mails: answers to submissions and round results.

The words are in ``templates/mail``; this module chooses the template, the recipient, the
outbox key and the envelope sender, threads the mail and adds what goes with it (the round's
pictures, the deadline's calendar event). Each text template sets ``subject`` at its top
level; see :mod:`adjudicator.mail.compose` for the HTML part.

A round's pictures are drawn and converted to PNG once per round, and its calendar event is
written once; every player's mail then only renders two templates.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlmodel import Session

from adjudicator.core.kind import Hint
from adjudicator.games import game_title, kind_of
from adjudicator.mail.calendar import deadline_event, event_uid
from adjudicator.mail.compose import Attachment, Inline, compose, thread_root
from adjudicator.mail.images import InlineImage, inline_images
from adjudicator.mail.parse import AuthResult, InboundMail, aligned
from adjudicator.notify import loop_guard
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.outbox import PendingMail, queue_pending
from adjudicator.notify.throttle import answer_refused
from adjudicator.pictures import Picture
from adjudicator.readmodel.links import round_file
from adjudicator.readmodel.stored import rules_of
from adjudicator.security import bounce_address, gm_reply_address, seat_reply_address
from adjudicator.service.games import seats_of
from adjudicator.service.hints import finished_game_hint
from adjudicator.service.pictures import pngs_for
from adjudicator.service.rounds import Adjudicated
from adjudicator.service.settings import settings_of
from adjudicator.service.stand_ins import (
    answered_by_stand_ins,
    ended_by_own_move,
    given_back_in_round,
    own_move,
    stand_ins_of_round,
)
from adjudicator.storage import queries
from adjudicator.storage.models import Game, OrderSet, Round, RoundResult, Seat, Submission

log = logging.getLogger(__name__)


UTC_NAMES = ("UTC", "Etc/UTC")


def local_time(moment: datetime | None, zone: str, *, named: bool = True) -> str:
    """A time as the player reads it, in their own time zone, named once: "Thursday 05 March
    2026, 13:00 CET (Europe/Berlin)" (the name SET TIMEZONE takes, and the abbreviation, which
    tells the two 01:30 of a night that falls back apart), "..., 12:00 UTC". ``named=False``
    leaves out the zone's name, for a list whose heading names it (``zone_name``)."""
    if moment is None:
        return "no deadline set"
    shown = moment.astimezone(ZoneInfo(zone)).strftime("%A %d %B %Y, %H:%M %Z")
    return f"{shown} ({zone})" if named and zone not in UTC_NAMES else shown


def zone_name(zone: str) -> str:
    """A time zone as the mails name it: "UTC", "Europe/Berlin time"."""
    return "UTC" if zone in UTC_NAMES else f"{zone} time"


def base_context(game: Game, seat: Seat | None, round_: Round | None) -> dict[str, Any]:
    zone = (seat.time_zone if seat else None) or game.time_zone
    deadline = round_.deadline if round_ else None
    return {
        "game": game.name,
        "kind": game.kind,
        "game_title": game_title(game.kind),
        "handle": seat.handle if seat else None,
        "round": round_.number if round_ else None,
        "round_word": kind_of(game.kind).round_word,
        "deadline": local_time(deadline, zone),
        "time_zone": zone,
        "finished": game.status == "finished",
        # Played in turns: a move is applied at once, so no mail may speak of changing orders.
        "sequential": kind_of(game.kind).rules.sequential,
        # The seats the computer plays (docs/stand-ins.md): every mail of the game says so.
        "computer_seats": list(settings_of(game).stand_ins),
    }


def mail_policy_problem(game: Game, mail: InboundMail) -> str | None:
    """Why this mail fails the game's mail policy (e.g. ``require_auth = ["dkim"]``), if it does."""
    required = settings_of(game).require_auth
    # The topmost Authentication-Results field is the one our own receiving server added.
    top = mail.auth_results[0] if mail.auth_results else None
    failed = [m for m in required if top is None or not _passed(top, m, mail.sender or "")]
    if not failed:
        return None
    return "your mail server's " + " and ".join(m.upper() for m in failed) + " check did not pass"


def _passed(result: AuthResult, method: str, sender: str) -> bool:
    """A pass that vouches for the From address: DMARC's own, or a DKIM signature or SPF check
    of the From's domain (aligned, RFC 7489). A pass for some other domain proves nothing:
    anyone can sign their own mail and put another's address in From."""
    if getattr(result, method, None) != "pass":
        return False
    from_domain = sender.rpartition("@")[2]
    if method == "dkim":
        return any(aligned(domain, from_domain) for domain in result.dkim_domains)
    if method == "spf":
        return aligned(result.spf_domain, from_domain)
    return True  # dmarc: alignment is part of its pass


@dataclass(frozen=True)
class Threading:
    """Where a mail sits in its conversation, and how automatic it is (RFC 3834)."""

    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    auto: str = "auto-generated"
    reply_to: str | None = None


def seat_return_path(ctx: ServiceContext, seat_id: int) -> str:
    """The envelope sender of mail to a seat: a bounce names the seat (VERP with a MAC)."""
    return bounce_address(ctx.receipt_key, ctx.identity.address, seat_id)


def render_mail(
    ctx: ServiceContext,
    *,
    template: str,
    context: Mapping[str, Any],
    to: str,
    key: str,
    now: datetime,
    threading: Threading,
    attachments: Sequence[Attachment] = (),
    images: Sequence[InlineImage] = (),
) -> bytes:
    """The whole message: ``templates/mail/<template>.txt.j2`` and its HTML part, the inline
    ``images`` the HTML part shows and the ``attachments``."""
    rendered = ctx.renderer.mail(template, context)
    return compose(
        identity=ctx.identity,
        to=to,
        subject=rendered.subject,
        text=rendered.text,
        html=rendered.html,
        key=key,
        now=now,
        auto=threading.auto,
        in_reply_to=threading.in_reply_to,
        references=threading.references,
        reply_to=threading.reply_to,
        attachments=attachments,
        inline=[Inline(i.filename, i.png, i.content_id) for i in images],
    )


def queue_templated(
    session: Session,
    *,
    ctx: ServiceContext,
    template: str,
    context: dict[str, Any],
    kind: str,
    to: str,
    key: str,
    now: datetime,
    threading: Threading,
    game_id: int | None = None,
    round_id: int | None = None,
    seat_id: int | None = None,
    attachments: Sequence[Attachment] = (),
    images: Sequence[InlineImage] = (),
    answer: bool = False,
) -> None:
    """Render ``template`` (see :func:`templated_mail`) and queue it; an ``answer`` to a mail
    its recipient just sent is sent before the other mails due."""
    mail = templated_mail(
        session,
        ctx=ctx,
        template=template,
        context=context,
        kind=kind,
        to=to,
        key=key,
        now=now,
        threading=threading,
        game_id=game_id,
        round_id=round_id,
        seat_id=seat_id,
        attachments=attachments,
        images=images,
    )
    queue_pending(session, replace(mail, answer=answer), now=now)


def templated_mail(
    session: Session,
    *,
    ctx: ServiceContext,
    template: str,
    context: dict[str, Any],
    kind: str,
    to: str,
    key: str,
    now: datetime,
    threading: Threading,
    game_id: int | None = None,
    round_id: int | None = None,
    seat_id: int | None = None,
    attachments: Sequence[Attachment] = (),
    images: Sequence[InlineImage] = (),
) -> PendingMail:
    """Render ``template`` (see :func:`render_mail`) into a mail to queue; reads only. Mail to
    a seat passes ``seat_id``: its envelope sender is then the seat's own bounce address, and a
    reply to it goes to the seat's reply address, so that answering any mail just works. Mail
    about a game (``game_id``) to an address that is one of its seats' or its game master's
    is answerable as theirs too, whoever queued it (:func:`_answerable`)."""
    if game_id is not None and seat_id is None and threading.reply_to is None:
        seat_id, threading = _answerable(session, ctx, game_id=game_id, to=to, threading=threading)
    game = session.get(Game, game_id) if game_id is not None else None
    if game is not None and "game_master" not in context and not _is_game_master(game, to):
        # Every footer names who to write to for anything else (``_game_master.txt.j2``).
        context = {**context, "game_master": game.gm_address or ""}
    if seat_id is not None and threading.reply_to is None:
        seat = session.get(Seat, seat_id)
        if seat is not None:
            address = seat_reply_address(
                ctx.receipt_key, ctx.identity.address, seat_id, seat.reply_token
            )
            threading = replace(threading, reply_to=address)
    message = render_mail(
        ctx,
        template=template,
        context=context,
        to=to,
        key=key,
        now=now,
        threading=threading,
        attachments=attachments,
        images=images,
    )
    return PendingMail(
        key=key,
        kind=kind,
        recipient=to,
        message=message,
        game_id=game_id,
        round_id=round_id,
        envelope_sender=None if seat_id is None else seat_return_path(ctx, seat_id),
    )


def _answerable(
    session: Session, ctx: ServiceContext, *, game_id: int, to: str, threading: Threading
) -> tuple[int | None, Threading]:
    """The seat of game ``game_id`` registered at ``to``, or, for its game master's address,
    the threading with the game master's reply address: a reply to any mail about a game
    reaches the seat or the game master it went to (issue 40: the answer to ``HELP game``,
    the game master's copy of an absence notice, the answer to APPROVE had none)."""
    seat = queries.seat_at_address(session, game_id, to)
    if seat is not None:
        return seat.id, threading
    game = session.get(Game, game_id)
    if game is None or not _is_game_master(game, to):
        return None, threading
    assert game.id is not None
    address = gm_reply_address(ctx.receipt_key, ctx.identity.address, game.id, game.gm_token)
    return None, replace(threading, reply_to=address)


def _is_game_master(game: Game, address: str) -> bool:
    return (game.gm_address or "").lower() == address.strip().lower() != ""


def game_thread(game: Game, ctx: ServiceContext, **options: Any) -> Threading:
    """A game's own mails thread together under one root per game."""
    root = thread_root(game.name, ctx.identity)
    return Threading(in_reply_to=root, references=(root,), **options)


def queue_reply(
    session: Session,
    *,
    ctx: ServiceContext,
    kind: str,
    to: str,
    key: str,
    mail: InboundMail,
    context: dict[str, Any],
    now: datetime,
    game_id: int | None = None,
    round_id: int | None = None,
    seat_id: int | None = None,
    template: str | None = None,
    attachments: Sequence[Attachment] = (),
    images: Sequence[InlineImage] = (),
    proven: bool = False,
    reply_to: str | None = None,
) -> bool:
    """Answer an inbound mail (threaded under it and under its game, marked ``auto-replied``)
    with ``templates/mail/<template or kind>``; True when queued. An answer the address may
    not get now (``throttle.py``: too many) is not queued, and logged; an answer to a
    ``proven`` seat (its password or reply address checked) is never held back by those
    limits: only a mail that proves nothing can be forged in bulk. An answer to a mail that
    looks sent by a program answering our answers may be held back as a loop, proven or not
    (``loop_guard.py``); the address is told once.

    An answer to a player of the game (``context["handle"]``) goes out with the seat's bounce
    address; ``seat_id`` saves looking the seat up."""
    if not to:
        return False
    held = loop_guard.held_back(session, mail, identity=ctx.identity, now=now)
    if held is not None:
        log.info("%s (%s to %s)", held.note, kind, to)
        _tell_held_back(session, ctx=ctx, to=to, mail=mail, held=held, now=now)
        return False
    refused = (
        None
        if proven
        else answer_refused(session, to=to, mail=mail, domain=ctx.identity.domain, now=now)
    )
    if refused is not None:
        log.info("%s (%s to %s)", refused, kind, to)
        return False
    references = [*mail.references, mail.message_id] if mail.message_id else [*mail.references]
    game = session.get(Game, game_id) if game_id is not None else None
    if game is not None:
        root = thread_root(game.name, ctx.identity)
        references = [root, *(r for r in references if r != root)]
        if seat_id is None and context.get("handle"):
            seat_id = queries.seat_id_of(session, game_id, context["handle"])
    threading = Threading(
        in_reply_to=mail.message_id,
        references=tuple(references),
        auto="auto-replied",
        reply_to=reply_to,
    )
    if mail.decoding:  # a charset that did not fit: the answer says how the mail was read
        context = {"decoding": mail.decoding, **context}
    queue_templated(
        session,
        ctx=ctx,
        template=template or kind,
        context=context,
        kind=kind,
        to=to,
        key=key,
        now=now,
        threading=threading,
        game_id=game_id,
        round_id=round_id,
        seat_id=seat_id,
        attachments=attachments,
        images=images,
        answer=True,
    )
    return True


def _tell_held_back(
    session: Session,
    *,
    ctx: ServiceContext,
    to: str,
    mail: InboundMail,
    held: loop_guard.Held,
    now: datetime,
) -> None:
    """Tell ``to`` once (until he is answered again) that answers are held back, why, and
    when they resume; in the time zone of his first seat, if he has one."""
    if not loop_guard.notice_due(session, to=to, sender=mail.sender or "", now=now):
        return
    seats = queries.seats_at_address(session, to)
    zone = seats[0].time_zone if seats and seats[0].time_zone else "UTC"
    context = {
        "address": to,
        "why": held.why,
        "count": held.count,
        "window": int(loop_guard.LOOP_WINDOW.total_seconds() // 60),
        "resume": local_time(held.resume_at, zone),
    }
    references = [*mail.references, mail.message_id] if mail.message_id else [*mail.references]
    threading = Threading(
        in_reply_to=mail.message_id, references=tuple(references), auto="auto-replied"
    )
    queue_templated(
        session,
        ctx=ctx,
        template="held_back",
        context=context,
        kind="held_back",
        to=to,
        key=f"held:{to}:{now.isoformat()}",
        now=now,
        threading=threading,
    )


# --- deadlines in calendars --------------------------------------------------------------


def deadline_attachment(
    ctx: ServiceContext, game: Game, round_: Round | None, *, now: datetime, cancelled: bool = False
) -> Attachment | None:
    """The ``.ics`` event of a round's deadline (None without a deadline). Send it again,
    written later, when the deadline moves: calendars replace the event (same UID, higher
    SEQUENCE); ``cancelled`` withdraws it (a paused game)."""
    if round_ is None or round_.deadline is None:
        return None
    title = game_title(game.kind)
    event = deadline_event(
        uid=event_uid(game.name, round_.number, ctx.identity.domain),
        summary=f"[{game.name}] Orders due: round {round_.number}",
        description=(
            f"The deadline for your orders for round {round_.number} of {title} game "
            f"{game.name}. Orders go by mail to {ctx.identity.address}."
        ),
        deadline=round_.deadline,
        issued=now,
        cancelled=cancelled,
    )
    return Attachment(
        f"{game.name}-round-{round_.number}.ics", event, "text", "calendar", "method=PUBLISH"
    )


# --- round results -----------------------------------------------------------------------


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


def result_template(ctx: ServiceContext, kind: str) -> str:
    """The game's own result template, or the shared one for a game without one."""
    own = f"{kind}/result"
    return own if ctx.renderer.exists(f"mail/{own}.txt.j2") else "result"


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
        # A report asked for again (service/reports.py) says so, and where the game is now.
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
    template = result_template(ctx, game.kind)
    termination = adjudicated.outcome.termination if adjudicated.outcome else None
    players = [seat.handle for seat in seats]
    movers = set(rules_of(game).to_move(adjudicated.state))
    round_link = ctx.archive_link(game.name, round_file(round_.number))
    stand_ins = stand_ins_of_round(session, round_, seats=seats)
    given_back = given_back_in_round(session, round_, result.orders, seats=seats)
    hint = finished_game_hint(session, game) if result.finished else None
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
        threading = game_thread(game, ctx)
        if before is not None and moved is not None:
            context["your_move"] = _answered_move(
                session, ctx, adjudicated=adjudicated, before=before, seat=seat, moved=moved
            )
            threading = _answering(session, ctx, game, moved) or threading
        elif ended_by_own_move(session, game, round_, seat):
            # The move that ended the game is told in its result: the answer to its mail.
            ending = own_move(session, round_, seat)
            assert ending is not None
            context["your_move"] = _ending_move(round_, ending)
            threading = _answering(session, ctx, game, ending) or threading
        mail = templated_mail(
            session,
            ctx=ctx,
            template=template,
            context=context,
            kind="result",
            to=seat.address,
            key=f"result:{round_.id}:{seat.id}",
            now=now,
            threading=threading,
            game_id=game.id,
            round_id=round_.id,
            seat_id=seat.id,
            attachments=calendar,
            images=extras.images,
        )
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
        rendered = ctx.renderer.mail(result_template(ctx, game.kind), context, html=False)
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
