"""The game master's commands by mail: PAUSE, RESUME, EXTEND, REPLACE, REMOVE, STAND-IN,
ANNOUNCE and COPY, in a game's section.

Proof: the mail went to the game master's own reply address of that game
(``security.gm_reply_address``, the Reply-To of every mail the game master gets), which only
the service can make and which a new GM token voids. The From header proves nothing: a mail
from the game master's address that did not go to that address is refused, and so is a
player's. A refusal is one part of the mail's one answer, to the sender, naming its cause.

Each command calls the same service function as the command line (``gm.py``), in a savepoint
of its own: a command that fails (a player who is not in the game, a deadline in the past)
changes nothing and is answered with why, and the others of the mail still run. The players
are told of each change as the command line tells them. Everything done is answered to the
game master's registered address (never to the sender), with the reply address again, in the
mail's one answer.

``adjudicate game gm GAME [ADDRESS]`` (:func:`renew_game_master`) gives the game a new GM
token, voiding every reply address given before (a leaked one, or a game master who hands
the game over), and mails the game master the new one; a game master replaced by another
address is told at his own.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlmodel import Session

from adjudicator.base.security import new_gm_token, token_digest
from adjudicator.mail.commands import (
    Announce,
    Command,
    CommandProblem,
    CopyResults,
    Extend,
    GameWebhook,
    Pause,
    RecordOf,
    RemovePlayer,
    ReplacePlayer,
    Resume,
    StandIn,
    Withdraw,
)
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.times import local_time
from adjudicator.readmodel.club import record_of
from adjudicator.service import ServiceError, club, gm, gm_news
from adjudicator.service.games import checked_address
from adjudicator.service.handling import AnswerPart, SectionHandling
from adjudicator.service.notices import gm_reply_to, queue_gm_notice
from adjudicator.service.press import MAX_CHARACTERS, clean_text
from adjudicator.service.rounds import closes_at, open_round_of
from adjudicator.service.settings import read_settings
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus


def run_gm_commands(
    handling: SectionHandling, commands: Sequence[Command], problems: Sequence[CommandProblem]
) -> bool:
    """Run the game master's commands of one section, or refuse them all; True when every
    one was done."""
    game = handling.game
    written = [c.line for c in commands if hasattr(c, "line")] + [p.line for p in problems]
    words = sorted({line.text.split()[0].upper() for line in written if line.text.split()})
    cause = _refusal(handling, game)
    if any(isinstance(c, Withdraw) for c in commands) or any(
        p.command is Withdraw for p in problems
    ):
        cause = "tournament"  # a tournament's, from mail not to its game master's address
    if cause is not None or game is None or not game.gm_address:
        handling.answer_sender(
            "gm_refused",
            {"cause": cause, "game": game.name if game else handling.named, "commands": words},
        )
        handling.notes.append(f"game master's command refused: {cause}")
        return False
    done: list[dict[str, Any]] = []
    for index, command in enumerate(commands):
        done.append(_run(handling, game, command, earlier=done, later=commands[index + 1 :]))
    done += [
        {"line": p.line.number, "text": p.line.text.strip(), "error": p.message} for p in problems
    ]
    done.sort(key=lambda item: int(item["line"]))
    _pauses_undone(done)
    handling.answer.add(
        game.gm_address,
        AnswerPart(
            "gm",
            {"game": game.name, "done": done},
            game.name,
            game.id,
            reply_to=gm_reply_to(handling.ctx, game),
            proven=True,
        ),
    )
    failed = sum(1 for item in done if item.get("error"))
    handling.notes.append(f"game master: {len(done) - failed} command(s) done, {failed} refused")
    return failed == 0


def _pauses_undone(done: list[dict[str, Any]]) -> None:
    """A PAUSE that a RESUME of the same mail undid at once told nobody: its answer says so,
    and names the line that undid it."""
    undoing = [item["line"] for item in done if item.get("command") == "resume" and item["at_once"]]
    for item in done:
        if item.get("command") == "pause":
            item["undone_by"] = next((line for line in undoing if line > item["line"]), None)


def renew_game_master(
    session: Session, game: Game, *, address: str | None, ctx: ServiceContext, now: datetime
) -> str:
    """A new GM token for ``game`` (and a new game master's address, when given): every reply
    address given before stops running the game. The game master gets the new one in a mail
    of its own; the address it went to."""
    former = game.gm_address
    if address:
        game.gm_address = checked_address(address, whose="the game master")
    if not game.gm_address:
        raise ServiceError(f"game {game.name} has no game master: give the address")
    game.gm_token = token_digest(new_gm_token())
    session.add(game)
    session.flush()
    if former and former.lower() != game.gm_address.lower():
        # The game master replaced is told, so that a game taken from him is noticed.
        queue_gm_notice(
            session,
            ctx=ctx,
            game=game,
            notice="gm_handed_over",
            key=f"{game.id}:{game.gm_token}",
            now=now,
            former=former,
            successor=game.gm_address,
        )
    queue_gm_notice(
        session,
        ctx=ctx,
        game=game,
        notice="game_master",
        key=f"{game.id}:{game.gm_token}",
        now=now,
        round_=open_round_of(session, game),
        moved=bool(address),
    )
    return game.gm_address


def _refusal(handling: SectionHandling, game: Game | None) -> str | None:
    """Why this section may not run the game, or None: the game master proven."""
    if game is None:
        return "no_game"
    if not game.gm_address:
        return "no_gm"
    if handling.gm_game is not None and handling.gm_game.id == game.id:
        return None
    token = handling.token_seat
    if token is not None and token.game_id == game.id:
        return "player"
    if queries.seat_at_address(handling.session, game.id, handling.sender) is not None:
        return "player"
    return "not_gm_address"


def _run(
    handling: SectionHandling,
    game: Game,
    command: Command,
    *,
    earlier: list[dict[str, Any]],
    later: Sequence[Command] = (),
) -> dict[str, Any]:
    """One command in a savepoint: what it did, or why it did nothing."""
    line = getattr(command, "line")  # noqa: B009 - every game master's command has its line
    item: dict[str, Any] = {"line": line.number, "text": line.text.strip(), "error": None}
    try:
        with handling.session.begin_nested():
            item |= _apply(handling, game, command, earlier=earlier, later=later)
    except ServiceError as error:
        item["error"] = str(error)
    return item


def _apply(
    handling: SectionHandling,
    game: Game,
    command: Command,
    *,
    earlier: list[dict[str, Any]],
    later: Sequence[Command] = (),
) -> dict[str, Any]:
    session, ctx, now = handling.session, handling.ctx, handling.now
    if isinstance(command, Pause):
        if any(item.get("kept_paused_by") == command.line.number for item in earlier):
            return {"command": "pause", "undone_by": None, "kept": True}
        gm.pause(session, game, ctx=ctx, now=now)
        return {"command": "pause", "undone_by": None}
    if isinstance(command, Resume):
        pause = next((c for c in later if isinstance(c, Pause)), None)
        if pause is not None and game.status == GameStatus.PAUSED:
            # Paused again by a later line of this mail: the game stays paused as it was (its
            # deadline, its pause's start), and the players, told it is paused, hear nothing.
            return {"command": "resume", "at_once": False, "kept_paused_by": pause.line.number}
        # Paused by an earlier line of this mail: the pause is undone, and nobody told of it.
        at_once = any(item.get("command") == "pause" for item in earlier)
        round_ = gm.resume(session, game, ctx=ctx, now=now, paused_unsaid=at_once)
        deadline = _deadline(game, round_ and closes_at(round_))
        return {"command": "resume", "at_once": at_once, **deadline}
    if isinstance(command, Extend):
        return _extend(handling, game, command)
    if isinstance(command, ReplacePlayer):
        gm.replace_player(session, game, command.handle, command.address, ctx=ctx, now=now)
        return {"command": "replace", "handle": command.handle, "address": command.address}
    if isinstance(command, RemovePlayer):
        gm.remove_player(session, game, command.handle)
        told = gm_news.tell_change(
            session, game, change="removed", handle=command.handle, ctx=ctx, now=now
        )
        return {"command": "remove", "handle": command.handle, "told": told}
    if isinstance(command, StandIn):
        moved = gm.put_stand_in(session, game, command.handle, on=command.on, ctx=ctx, now=now)
        change = "stand_in" if command.on else "stand_in_off"
        gm_news.tell_change(session, game, change=change, handle=command.handle, ctx=ctx, now=now)
        return {"command": change, "handle": command.handle, "moved": bool(moved)}
    if isinstance(command, Announce):
        text = clean_text(command.text)  # as press: line breaks of every kind, no controls
        if not text.strip():
            raise ServiceError("write the announcement on the lines after ANNOUNCE")
        if len(text) > MAX_CHARACTERS:
            raise ServiceError(f"the message has {len(text)} characters; at most {MAX_CHARACTERS}")
        told = gm_news.announce(
            session,
            game,
            text,
            key=f"{handling.key}:{command.line.number}",
            ctx=ctx,
            now=now,
        )
        return {"command": "announce", "told": told, "lines": text.splitlines()}
    if isinstance(command, GameWebhook):
        return _webhook(game, command)
    if isinstance(command, RecordOf):
        record = club.record_context(record_of(session, command.address, now=now))
        return {"command": "record", "address": command.address, "record": record}
    assert isinstance(command, CopyResults)
    game.gm_copy = command.on
    session.add(game)
    return {"command": "copy", "on": command.on}


def _webhook(game: Game, command: GameWebhook) -> dict[str, Any]:
    """WEBHOOK ...: the game's webhook settings, as ``--setting webhook=...`` sets them,
    checked the same way (``settings.read_settings``)."""
    names = {
        "url": "webhook",
        "secret": "webhook_secret",
        "format": "webhook_format",
        "mentions": "webhook_mentions",
    }
    settings = dict(game.settings)
    if command.what == "off":
        for name in names.values():
            settings.pop(name, None)
    elif command.what == "mentions" and (command.value or "").lower() == "off":
        settings.pop("webhook_mentions", None)
    else:
        settings[names[command.what]] = command.value
    read_settings(game.kind, game.schedule, game.time_zone, settings)  # ServiceError: refused
    game.settings = settings
    return {"command": "webhook", "what": command.what, "value": command.value}


def _extend(handling: SectionHandling, game: Game, command: Extend) -> dict[str, Any]:
    """EXTEND: as ``adjudicate game extend``; a time before the current deadline only with
    EARLIER, said in the mail's own words."""
    session, now = handling.session, handling.now
    until = command.until.replace(tzinfo=ZoneInfo(game.time_zone)) if command.until else None
    round_ = open_round_of(session, game)
    old = closes_at(round_) if round_ is not None else None
    if until is not None and old is not None and until < old and not command.earlier:
        raise ServiceError(
            f"the new deadline {local_time(until, game.time_zone)} is before the current one, "
            f"{local_time(old, game.time_zone)}; to bring the deadline forward, write EARLIER "
            "after the time"
        )
    round_ = gm.extend(
        session,
        game,
        ctx=handling.ctx,
        now=now,
        by=command.by,
        until=until,
        earlier=command.earlier,
    )
    return {"command": "extend", "round": round_.number, **_deadline(game, closes_at(round_))}


def _deadline(game: Game, moment: Any) -> dict[str, Any]:
    return {"deadline": local_time(moment, game.time_zone) if moment else None}
