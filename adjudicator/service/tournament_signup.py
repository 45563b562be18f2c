"""Sign-up to a tournament by mail: ``JOIN NAME`` while the game master keeps it open
(``adjudicate tournament create --signup``), as for a game (``signup.py``): the code mailed back
to the address first (so nobody signs up somebody else), then, under ``--approve``, the game
master's decision (``adjudicate tournament approve|decline``, or ``APPROVE|DECLINE NAME CODE``
by mail with the code of the request mailed to him). The tournament starts when the
game master starts it (``adjudicate tournament start``)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from adjudicator.base.security import approval_code, join_code
from adjudicator.core.text import handle_for, is_handle
from adjudicator.games import game_title
from adjudicator.mail.commands import Approve, Join
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.service import ServiceError, club  # signup and approval call here
from adjudicator.service.handling import SectionHandling
from adjudicator.service.settings import read_settings
from adjudicator.service.tournament_news import gm_reply_to
from adjudicator.storage.tournaments import Tournament, TournamentPlayer, entrants_of


def join_tournament(handling: SectionHandling, command: Join, tournament: Tournament) -> str | None:
    """Answer one JOIN of a tournament; what is wrong with it, if anything (a reliability
    below its ``min_reliability``, a rating outside its ``rating`` band: as for a game)."""
    session, address = handling.session, handling.sender.strip().lower()
    name = tournament.name
    if not tournament.signup or tournament.current_round:
        return f"tournament {name} is not open for sign-up"
    entrants = entrants_of(session, tournament)
    mine = next((e for e in entrants if e.address.lower() == address), None)
    if mine is not None and mine.status == "declined":
        return f"the game master of tournament {name} has declined your request to join"
    if mine is not None and mine.status == "in":
        return f"you are a player of tournament {name} already"
    refused = club.refusal_under(
        session,
        read_settings(tournament.kind, tournament.schedule, "UTC", tournament.settings),
        f"tournament {name}",
        kind=tournament.kind,
        address=address,
        now=handling.now,
        joining=True,
    )
    if refused is not None:
        return refused
    context = {"tournament": name, "game_title": game_title(tournament.kind)}
    if mine is not None:
        handling.answer_sender(
            "join_tournament", context | {"step": "waiting", "handle": mine.handle}
        )
        return None
    code = join_code(handling.ctx.receipt_key, f"tournament:{name}", address)
    if command.code is None:
        handling.answer_sender("join_tournament", context | {"step": "confirm", "code": code})
        return None
    if command.code != code:
        return f"that is not the code mailed to this address; write JOIN {name} alone to get one"
    taken = [e.handle for e in entrants]
    handle = command.handle or handle_for(address, taken)
    if not is_handle(handle) or handle in taken:
        return f"the name {handle!r} is taken or not usable: write JOIN {name} {code} NAME"
    assert tournament.id is not None
    status = "waiting" if tournament.join_approve else "in"
    entrant = TournamentPlayer(
        tournament_id=tournament.id,
        seed=len(entrants),
        handle=handle,
        address=address,
        status=status,
    )
    session.add(entrant)
    session.flush()
    if status == "waiting" and tournament.gm_address:
        queue_notice(
            session,
            Notice(
                "tournament_join",
                tournament.gm_address,
                context
                | {
                    "handle": handle,
                    "address": address,
                    "players": sum(e.status == "in" for e in entrants),
                    "code": _code(handling.ctx.receipt_key, tournament, entrant),
                },
                key=f"tournament:{tournament.id}:join:{handle}",
                reply_to=gm_reply_to(handling.ctx, tournament),
            ),
            ctx=handling.ctx,
            now=handling.now,
        )
    handling.answer_sender("join_tournament", context | {"step": status, "handle": handle})
    handling.notes.append(
        f"{handle} joined tournament {name}" + (" (waits)" if status != "in" else "")
    )
    return None


def decide_join(
    session: Session,
    tournament: Tournament,
    handle: str,
    *,
    approve: bool,
    ctx: ServiceContext,
    now: datetime,
) -> TournamentPlayer:
    """The game master lets a waiting JOIN in, or turns it away; the joiner is told."""
    waiting = next(
        (e for e in entrants_of(session, tournament) if e.handle == handle.lower()), None
    )
    if waiting is None or waiting.status != "waiting":
        raise ServiceError(f"no JOIN of {handle!r} waits in tournament {tournament.name}")
    waiting.status = "in" if approve else "declined"
    session.add(waiting)
    session.flush()
    queue_notice(
        session,
        Notice(
            "tournament_decided",
            waiting.address,
            {
                "tournament": tournament.name,
                "game_title": game_title(tournament.kind),
                "handle": waiting.handle,
                "approved": approve,
            },
            key=f"tournament:{tournament.id}:decided:{waiting.handle}",
        ),
        ctx=ctx,
        now=now,
    )
    return waiting


def answer_approval(
    handling: SectionHandling, command: Approve, tournament: Tournament
) -> str | None:
    """``APPROVE cup CODE`` or ``DECLINE cup CODE`` by mail: the code, mailed only to the game
    master with the request (``approval_code``), proves the answer came through his mailbox."""
    key = handling.ctx.receipt_key
    waiting = next(
        (
            e
            for e in entrants_of(handling.session, tournament)
            if e.status == "waiting" and _code(key, tournament, e) == command.code
        ),
        None,
    )
    if waiting is None:
        return (
            f"that is not the code of a request to join tournament {tournament.name} that waits "
            "for an answer; the request mail has the line to send"
        )
    decide_join(
        handling.session,
        tournament,
        waiting.handle,
        approve=command.approve,
        ctx=handling.ctx,
        now=handling.now,
    )
    step = "approved" if command.approve else "declined"
    handling.answer_sender(
        "join_tournament",
        {
            "tournament": tournament.name,
            "game_title": game_title(tournament.kind),
            "step": step,
            "handle": waiting.handle,
        },
    )
    handling.notes.append(f"{waiting.handle} {step} for tournament {tournament.name}")
    return None


def _code(key: bytes, tournament: Tournament, entrant: TournamentPlayer) -> str:
    assert entrant.id is not None
    return approval_code(key, f"tournament:{tournament.name}", entrant.id, entrant.address)
