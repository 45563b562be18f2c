"""The game master's answer to a JOIN that waits for it (setting ``join=approve``).

The request is mailed to the game master with a code of its own (a MAC under the service key
over the game, the request and the address), so ``APPROVE gw42 CODE`` or ``DECLINE gw42 CODE``
proves by the code alone that it came through the game master's mailbox, whatever its From
says; ``adjudicate player approve|decline GAME ADDRESS`` does the same from the command line.
An approved joiner gets his seat and welcome as an open JOIN does (and the game starts when
full); either way the joiner is told.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from adjudicator.base.security import approval_code
from adjudicator.core.text import handle_for
from adjudicator.games import game_title
from adjudicator.mail.commands import Approve
from adjudicator.notify.context import ServiceContext
from adjudicator.service import ServiceError, conversation, tournament_signup
from adjudicator.service.gm import add_player
from adjudicator.service.handling import AnswerPart, SectionHandling
from adjudicator.service.signup import seats_wanted, start_when_full, tell_join_decided
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus, JoinRequest
from adjudicator.storage.tournaments import tournament_named


def waiting_requests(session: Session, game: Game) -> list[JoinRequest]:
    return list(
        session.exec(
            select(JoinRequest).where(
                JoinRequest.game_id == game.id, JoinRequest.status == "waiting"
            )
        )
    )


def request_of(session: Session, game: Game, address: str) -> JoinRequest:
    """The waiting request of ``address`` (for the command line)."""
    address = address.strip().lower()
    for request in waiting_requests(session, game):
        if request.address == address:
            return request
    waiting = ", ".join(r.address for r in waiting_requests(session, game)) or "none"
    raise ServiceError(
        f"no request to join {game.name} waits from {address} (waiting: {waiting})", exit_code=3
    )


def decide(
    session: Session,
    game: Game,
    request: JoinRequest,
    *,
    approve: bool,
    ctx: ServiceContext,
    now: datetime,
) -> bool:
    """Let the joiner in (a seat and a welcome; the game starts when full) or turn him away;
    he is told. Whether the game started."""
    if request.status != "waiting":
        raise ServiceError(f"the request of {request.address} was {request.status} already")
    started = False
    if approve:
        if game.status != GameStatus.SETUP:
            raise ServiceError(f"game {game.name} has started: it takes no more players")
        seats = queries.seats_of(session, game.id)
        wanted = seats_wanted(game)
        if wanted is not None and len(seats) >= wanted:
            raise ServiceError(f"game {game.name} is full")
        taken = [s.handle for s in seats]
        handle = (
            request.handle if request.handle not in taken else handle_for(request.address, taken)
        )
        add_player(session, game, handle, request.address, ctx=ctx, now=now)
        request.handle = handle
    request.status = "approved" if approve else "declined"
    request.decided_at = now
    session.add(request)
    session.flush()  # decided before a start closes the requests still waiting
    if approve:
        started = start_when_full(session, ctx=ctx, game=game, now=now)
    decision = {"approved": approve, "started": started}
    tell_join_decided(session, request, game, decision, ctx=ctx, now=now)
    return started


def _answer_one(handling: SectionHandling, command: Approve) -> str | None:
    session = handling.session
    name, game = conversation.game_asked(handling, command.game)
    if game is None and name and (tournament := tournament_named(session, name)) is not None:
        return tournament_signup.answer_approval(handling, command, tournament)
    if game is None:
        return f"there is no game called {name!r} here" if name else "name it: APPROVE gw42 CODE"
    key = handling.ctx.receipt_key
    request = next(
        (
            r
            for r in waiting_requests(session, game)
            if r.id is not None and approval_code(key, game.name, r.id, r.address) == command.code
        ),
        None,
    )
    if request is None:
        return (
            f"that is not the code of a request to join {game.name} that waits for an answer; "
            "the request mail has the line to send"
        )
    try:
        started = decide(
            session, game, request, approve=command.approve, ctx=handling.ctx, now=handling.now
        )
    except ServiceError as error:
        return str(error)
    handling.answer.add(
        handling.sender,
        AnswerPart(
            "approve",
            {
                "game": game.name,
                "game_title": game_title(game.kind),
                "approved": command.approve,
                "player": request.handle,
                "address": request.address,
                "started": started,
            },
            game.name,
            game.id,
        ),
    )
    handling.notes.append(
        f"{request.address} {'approved' if command.approve else 'declined'} for {game.name}"
    )
    return None


approve = conversation.one_by_one(Approve, _answer_one)
