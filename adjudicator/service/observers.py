"""Observers: addresses that get a game's public result of every round (``OBSERVE``).

Anybody may observe a game that is not over, once he has confirmed with the code mailed back
to his address (so nobody signs up somebody else); ``UNOBSERVE`` stops it. An observer's mail
holds only what the archive publishes: each player's orders in force (public once the round
is adjudicated), the pictures of the position, the outcome; never a player's private report
and never anybody's address.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session

from adjudicator.base.security import observe_code
from adjudicator.games import game_title, kind_of
from adjudicator.mail.commands import Command, CommandProblem, Observe
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.outbox import PendingMail
from adjudicator.notify.queue import prepare_notice
from adjudicator.pictures import Picture
from adjudicator.readmodel.links import round_file
from adjudicator.service import conversation
from adjudicator.service.game_context import base_context
from adjudicator.service.handling import SectionHandling
from adjudicator.service.notices import gm_reply_to
from adjudicator.service.round_results import replaced_result, round_extras
from adjudicator.service.rounds import Adjudicated
from adjudicator.storage import queries
from adjudicator.storage.models import GameStatus, Observer


def observe(
    handling: SectionHandling, commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    session, address = handling.session, handling.sender.strip().lower()
    bad: list[CommandProblem] = []
    for command in commands:
        assert isinstance(command, Observe)
        name = command.game or handling.named
        game = queries.game_named(session, name) if name else None
        if game is None or game.id is None:
            why = (
                f"there is no game called {name!r} here" if name else "name the game: OBSERVE gw42"
            )
            bad.append(CommandProblem(Observe, command.line, why))
            continue
        kept = queries.observer_at(session, game.id, address)
        context = {"game": game.name, "game_title": game_title(game.kind)}
        if command.stop:
            if kept is not None:
                session.delete(kept)
            stopped = context | {"step": "stopped"}
            handling.answer_sender("observe", stopped, known=kept is not None)
            continue
        if game.status == GameStatus.FINISHED:
            handling.answer_sender("observe", context | {"step": "over"})
            continue
        code = observe_code(handling.ctx.receipt_key, game.name, address)
        if kept is not None:
            handling.answer_sender("observe", context | {"step": "already"})
        elif command.code is None:
            handling.answer_sender("observe", context | {"step": "confirm", "code": code})
        elif command.code != code:
            bad.append(
                CommandProblem(
                    Observe,
                    command.line,
                    f"that is not the code mailed to this address; write OBSERVE {game.name} "
                    "alone to get one",
                )
            )
        else:
            session.add(Observer(game_id=game.id, address=address, created_at=handling.now))
            handling.answer_sender("observe", context | {"step": "started"})
    if bad:
        conversation.answer_problems(handling, [], bad)
    handling.notes.append("observe answered")
    return not bad


def observer_result_mails(
    session: Session,
    *,
    ctx: ServiceContext,
    adjudicated: Adjudicated,
    now: datetime,
    pictures: Sequence[Picture] | None = None,
) -> list[PendingMail]:
    """The round's public result for each observer of its game, and for its game master after
    COPY ON (``gm_mail.py``), rendered (reads only): queued with the players' results, whose
    ``pictures`` it shows (``round_extras``)."""
    game, round_, result = adjudicated.game, adjudicated.round, adjudicated.result
    observers = queries.observers_of(session, game.id)
    gm_copy = game.gm_copy and bool(game.gm_address)
    if not (observers or gm_copy) or round_.id is None:
        return []
    next_round = adjudicated.next_round
    extras = round_extras(
        session,
        ctx,
        game,
        result.public_state,
        result.report.get("public", {}),
        next_round=None,  # no calendar event: observers have no deadline to keep
        now=now,
        pictures=pictures,
    )
    context = {
        **base_context(game, None, next_round),
        "round": round_.number,
        "next_round": next_round.number if next_round else None,
        "orders": {player: list(lines) for player, lines in result.orders.items()},
        "players": [seat.handle for seat in queries.seats_of(session, game.id)],
        "sequential": kind_of(game.kind).rules.sequential,
        "finished": result.finished,
        "winners": result.winners,
        "draw": result.draw,
        "pictures": extras.picture_context(),
        "round_link": ctx.archive_link(game.name, round_file(round_.number)),
        "replaces": replaced_result(game, round_.number),
        "gm_copy": False,
    }
    mails = [
        prepare_notice(
            session,
            Notice(
                "observed",
                observer.address,
                context,
                key=f"observed:{round_.id}:{observer.id}",
                game_id=game.id,
                round_id=round_.id,
                images=extras.images,
                may_wait=True,
            ),
            ctx=ctx,
            now=now,
        )
        for observer in observers
    ]
    if gm_copy and game.gm_address:
        mail = prepare_notice(
            session,
            Notice(
                "observed",
                game.gm_address,
                context | {"gm_copy": True},
                key=f"gm:copy:{round_.id}",
                game_id=game.id,
                round_id=round_.id,
                reply_to=gm_reply_to(ctx, game),
                label="gm:copy",
                images=extras.images,
            ),
            ctx=ctx,
            now=now,
        )
        mails.append(mail)
    return mails
