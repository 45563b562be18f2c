"""Sign-up by mail: ``JOIN`` a game its game master opened for it (setting ``signup``).

Anybody may join, once he has confirmed with the code mailed back to his address (so nobody
signs up somebody else). The seat is added as the game master's ``player add`` does, with its
welcome mail (password and personal reply address). A game whose ``signup`` setting is a number
starts by itself when it has that many players, and every player is told; otherwise the game
master starts it (``adjudicate game start``). The game master is told of every new player.
Under the setting ``join=approve`` a confirmed JOIN waits for the game master instead
(``approval.py``).
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from adjudicator.base.security import approval_code, join_code
from adjudicator.core.text import handle_for, is_handle
from adjudicator.games import game_title
from adjudicator.mail.commands import Join
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.readmodel.stored import rules_of
from adjudicator.service import ServiceError, club, conversation, tournament_signup
from adjudicator.service.announcements import tell_started
from adjudicator.service.closing import begin_game
from adjudicator.service.game_context import base_context
from adjudicator.service.gm import add_player
from adjudicator.service.handling import SectionHandling
from adjudicator.service.notices import queue_gm_notice
from adjudicator.service.settings import settings_of
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus, JoinRequest
from adjudicator.storage.tournaments import tournament_named


def _join_one(handling: SectionHandling, command: Join) -> str | None:
    """Answer one JOIN; what is wrong with it, if anything."""
    session, address = handling.session, handling.sender.strip().lower()
    name, game = conversation.game_asked(handling, command.game)
    if game is None and name and (tournament := tournament_named(session, name)) is not None:
        return tournament_signup.join_tournament(handling, command, tournament)
    if game is None:
        return f"there is no game called {name!r} here" if name else "name it: JOIN gw42"
    if game.status != GameStatus.SETUP or not game.settings.get("signup"):
        return f"game {game.name} is not open for sign-up; write LIST for the games that are"
    seats = queries.seats_of(session, game.id)
    if any(seat.address == address for seat in seats):
        return f"you have a seat in game {game.name} already"
    wanted = seats_wanted(game)
    if wanted is not None and len(seats) >= wanted:
        return f"game {game.name} is full"
    refused = club.refusal_to_seat(session, game, address, now=handling.now, joining=True)
    if refused is not None:
        return refused
    context = {"game": game.name, "game_title": game_title(game.kind)}
    code = join_code(handling.ctx.receipt_key, game.name, address)
    sure, wrong = conversation.confirmed(handling, command, code, context, named=game.name)
    if not sure:
        return wrong
    handle = command.handle or handle_for(address, [s.handle for s in seats])
    if not is_handle(handle) or handle in (s.handle for s in seats):
        return f"the name {handle!r} is taken or not usable: write JOIN {game.name} {code} NAME"
    if settings_of(game).join_approve:
        return _ask_approval(handling, game, handle, context)
    try:
        add_player(session, game, handle, address, ctx=handling.ctx, now=handling.now)
    except ServiceError as error:
        return str(error)
    started = start_when_full(session, ctx=handling.ctx, game=game, now=handling.now)
    handling.answer_sender(
        "join", context | {"step": "joined", "handle": handle, "started": started}
    )
    handling.notes.append(f"{handle} joined {game.name}")
    return None


join = conversation.one_by_one(Join, _join_one)


def _ask_approval(
    handling: SectionHandling, game: Game, handle: str, context: dict[str, str]
) -> str | None:
    """Under ``join=approve``: the JOIN waits for the game master, who is mailed the request
    with a code of its own (``approval.py`` reads his answer); the joiner is told it waits."""
    session, address = handling.session, handling.sender.strip().lower()
    assert game.id is not None
    request = session.exec(
        select(JoinRequest).where(JoinRequest.game_id == game.id, JoinRequest.address == address)
    ).first()
    if request is not None and request.status == "declined":
        return f"the game master of {game.name} has declined your request to join"
    if request is None:
        request = JoinRequest(
            game_id=game.id, address=address, handle=handle, created_at=handling.now
        )
        session.add(request)
        session.flush()
        assert request.id is not None
        queue_gm_notice(
            session,
            ctx=handling.ctx,
            game=game,
            notice="join_request",
            key=f"{game.id}:join:{request.id}",
            now=handling.now,
            player=handle,
            address=address,
            seats=len(queries.seats_of(session, game.id)),
            code=approval_code(handling.ctx.receipt_key, game.name, request.id, address),
        )
        handling.notes.append(f"{address} asks to join {game.name}: the game master decides")
    handling.answer_sender("join", context | {"step": "waiting", "handle": request.handle})
    return None


def seats_wanted(game: Game) -> int | None:
    """The seats the game fills before it starts: the ``signup`` number, or the game's most."""
    signup = game.settings.get("signup")
    if isinstance(signup, int) and not isinstance(signup, bool):
        return signup
    return rules_of(game).max_players


def start_when_full(session: Session, *, ctx: ServiceContext, game: Game, now: datetime) -> bool:
    """Start a game whose ``signup`` number of players is reached, and tell every player."""
    wanted = game.settings.get("signup")
    seats = queries.seats_of(session, game.id)
    if isinstance(wanted, bool) or not isinstance(wanted, int) or len(seats) < wanted:
        return False
    first = begin_game(session, game, ctx=ctx, now=now)
    session.flush()
    tell_started(session, ctx=ctx, game=game, first_round=first, now=now)
    close_waiting_joins(session, ctx=ctx, game=game, now=now)
    return True


def close_waiting_joins(
    session: Session, *, ctx: ServiceContext, game: Game, now: datetime
) -> None:
    """A game that starts takes no more players: every JOIN still waiting for the game master
    is closed, and its sender told."""
    waiting = session.exec(
        select(JoinRequest).where(JoinRequest.game_id == game.id, JoinRequest.status == "waiting")
    )
    for request in waiting:
        request.status, request.decided_at = "closed", now
        session.add(request)
        decision = {"approved": False, "closed": True, "started": True}
        tell_join_decided(session, request, game, decision, ctx=ctx, now=now)


def tell_join_decided(
    session: Session,
    request: JoinRequest,
    game: Game,
    decision: dict[str, bool],
    *,
    ctx: ServiceContext,
    now: datetime,
) -> None:
    """Tell the sender of a JOIN that waited for the game master what became of it: the
    ``decision`` (approved, and whether the game started; or closed, the game having started
    without him)."""
    queue_notice(
        session,
        Notice(
            "join_decided",
            request.address,
            {**base_context(game, None, None), **decision, "player": request.handle},
            key=f"join_decided:{request.id}",
            game_id=game.id,
        ),
        ctx=ctx,
        now=now,
    )
