"""Press: messages between players, relayed by the service.

``PRESS`` goes to every player still in the game, ``PRESS TO cat dog`` to those players only.
``PRESS TO ALL`` and ``PRESS TO BROADCAST`` (the habit of njudge and DPjudge players) are press
to every player, unless a player of the game is called so: then they are press to that player.
Each message is relayed under the sender's handle (never their address; no handle at all under
the game's ``anonymous_press`` setting), kept with the round it was sent in, and shown again in
HISTORY to those who could read it. A game whose rules forbid private talk (SiSSYFiGHT,
docs/rules/sissyfight.md "Talk") refuses private press; in the others the game master may turn
it off (setting ``private_press``). A player sends at most :data:`PER_ROUND` messages a round.

The text never reaches a header: subjects are made of the game's name and handles only. Line
breaks of every kind (CR, LF, U+2028...) end a line of the body, and control characters are
taken out; the HTML part escapes it like any text.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlmodel import Session

from adjudicator.games import game_title, kind_of
from adjudicator.mail.commands import Command, CommandProblem, Press
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.service import conversation
from adjudicator.service.game_context import base_context
from adjudicator.service.games import active_seats
from adjudicator.service.handling import SeatedHandling, SectionHandling
from adjudicator.service.rounds import open_round_of
from adjudicator.service.settings import settings_of
from adjudicator.service.urgency import pressing_seats
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus, Seat
from adjudicator.storage.models import Press as PressRow

EVERYONE = ("all", "broadcast")
"""``PRESS TO`` one of these alone means every player, where no player has that handle."""
PER_ROUND = 10
"""Press messages one player may send in one round."""
MAX_CHARACTERS = 5000
QUOTED_LINES = 12
"""Lines of a press quoted back to its sender in the answer."""
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F)}


def clean_text(text: str) -> str:
    """The message as it is kept and relayed: one line per line break of any kind, without
    control characters (tabs become spaces) or direction overrides, blank ends trimmed."""
    lines = []
    for line in text.splitlines():
        kept = "".join(
            " " if c == "\t" else c
            for c in line
            if c == "\t" or (unicodedata.category(c) != "Cc" and c not in _BIDI)
        )
        lines.append(kept.rstrip())
    return "\n".join(lines).strip("\n")


def send_press(
    handling: SeatedHandling, commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    game, seat = handling.game, handling.seat
    bad: list[CommandProblem] = []
    sent: list[dict[str, Any]] = []
    for command in commands:
        assert isinstance(command, Press)
        press = _meant(handling, game, command)
        text = clean_text(press.text)
        problem = _refusal(handling, game, seat, press, text)
        if problem is not None:
            bad.append(CommandProblem(Press, press.line, problem + _quoted(text)))
            continue
        sent.append(_relay(handling, game, seat, press.to, text))
    if sent:
        handling.answer_seat(seat, "press_sent", {"game": game.name, "sent": sent})
        handling.notes.append(f"{len(sent)} press message(s) relayed")
    if bad:
        conversation.answer_problems(handling, [], bad)
    return not bad


def _meant(handling: SectionHandling, game: Game, press: Press) -> Press:
    """``press`` as its sender means it: ``PRESS TO ALL`` (or ``BROADCAST``) is press to every
    player, unless a player in the game has that handle."""
    if len(press.to) != 1 or press.to[0] not in EVERYONE:
        return press
    if press.to[0] in {s.handle for s in active_seats(handling.session, game)}:
        return press
    return replace(press, to=())


def _round_number(handling: SectionHandling, game: Game) -> int:
    round_ = open_round_of(handling.session, game)
    return round_.number if round_ is not None else game.current_round


def _refusal(
    handling: SectionHandling, game: Game, seat: Seat, press: Press, text: str
) -> str | None:
    """Why this press cannot go, or None."""
    if game.status == GameStatus.FINISHED:
        return "the game is over: press is relayed only while it runs"
    if not text.strip():
        return "the message is empty: write it on the lines after PRESS, and ENDPRESS after it"
    if len(text) > MAX_CHARACTERS:
        return f"the message has {len(text)} characters; at most {MAX_CHARACTERS} go in one press"
    if press.to:
        problem = _private_refusal(handling, game, seat, press.to)
        if problem is not None:
            return problem
    assert seat.id is not None
    sent = queries.press_sent(
        handling.session, seat_id=seat.id, round_number=_round_number(handling, game)
    )
    if sent + _sent_in_this_mail(handling) >= PER_ROUND:
        return f"a player sends at most {PER_ROUND} press messages a round; wait for the next one"
    return None


def _quoted(text: str) -> str:
    """The unsent message quoted after its refusal, so that the sender can correct the line
    and send it again without writing it anew (the sender's own text, to the sender only)."""
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        return ""
    shown = [f"> {line}" for line in lines[:QUOTED_LINES]]
    if len(lines) > QUOTED_LINES:
        shown.append(f"> ... ({len(lines) - QUOTED_LINES} more lines)")
    return ". The message that was not sent:\n" + "\n".join(shown)


def _sent_in_this_mail(handling: SectionHandling) -> int:
    return sum(
        len(part.context.get("sent", ()))
        for parts in handling.answer.parts.values()
        for part in parts
        if part.kind == "press_sent"
    )


def _private_refusal(
    handling: SectionHandling, game: Game, seat: Seat, targets: Sequence[str]
) -> str | None:
    if kind_of(game.kind).public_press_only:
        return (
            f"the rules of {game_title(game.kind)} make all talk public, so press to some "
            "players only is refused: write PRESS alone to send to every player"
        )
    if not settings_of(game).private_press:
        return (
            "the game master allows only press to every player in this game: "
            "write PRESS alone to send to every player"
        )
    handles = [s.handle for s in active_seats(handling.session, game)]
    unknown = [t for t in targets if t not in handles]
    if unknown:
        close = difflib.get_close_matches(unknown[0], handles, n=1, cutoff=0.6)
        guess = f"; did you mean {close[0]}?" if close else ""
        return (
            f"game {game.name} has no player {unknown[0]!r}{guess} (players: "
            f"{', '.join(handles)}); nothing was sent"
        )
    if seat.handle in targets:
        return "press goes to other players: leave your own handle out"
    return None


def _relay(
    handling: SectionHandling, game: Game, seat: Seat, targets: Sequence[str], text: str
) -> dict[str, Any]:
    """Keep the press and queue it to each of its readers."""
    session, ctx = handling.session, handling.ctx
    assert game.id is not None
    assert seat.id is not None
    anonymous = settings_of(game).anonymous_press
    row = PressRow(
        game_id=game.id,
        round_number=_round_number(handling, game),
        seat_id=seat.id,
        sender=seat.handle,
        recipients=list(targets),
        anonymous=anonymous,
        text=text,
        submission_id=handling.submission.id,
        created_at=handling.now,
    )
    session.add(row)
    session.flush()
    round_ = open_round_of(session, game)
    readers = [s for s in active_seats(session, game) if s.id != seat.id]
    if targets:
        readers = [s for s in readers if s.handle in targets]
    pressing = pressing_seats(session, game, now=handling.now)
    for reader in readers:
        context = base_context(game, reader, round_) | {
            "sender": None if anonymous else seat.handle,
            "to": list(targets),
            "text": text,
            "press_round": row.round_number,
            "press_id": row.id,  # a public press is posted to the webhook once, not per reader
            "private_allowed": not targets
            and not kind_of(game.kind).public_press_only
            and settings_of(game).private_press,
        }
        queue_notice(
            session,
            Notice(
                "press",
                reader.address,
                context,
                key=f"press:{row.id}:{reader.id}",
                game_id=game.id,
                seat_id=reader.id,
                may_wait=reader.id not in pressing,
            ),
            ctx=ctx,
            now=handling.now,
        )
    lines = text.splitlines()
    return {
        "to": list(targets),
        "readers": [r.handle for r in readers],
        "anonymous": anonymous,
        # The sender sees what went: a command written under a press without ENDPRESS shows
        # up here as part of the message.
        "lines": lines[:QUOTED_LINES],
        "more": max(0, len(lines) - QUOTED_LINES),
    }


def press_for(session: Session, game: Game, handle: str) -> list[dict[str, Any]]:
    """The game's press that ``handle`` may read (public, sent by them, or sent to them), as
    HISTORY shows it."""
    shown = []
    for row in queries.press_of(session, game.id):
        if row.recipients and handle != row.sender and handle not in row.recipients:
            continue
        own = row.sender == handle
        shown.append(
            {
                "round": row.round_number,
                "sender": "you" if own else (None if row.anonymous else row.sender),
                "to": list(row.recipients),
                "text": row.text,
            }
        )
    return shown
