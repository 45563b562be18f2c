"""The first run: a demonstration of the whole service that ends by itself.

One game of every kind, with simulated players who write their orders as real mails into the
local Maildir: plain ones, replies that quote the service's mail, mails with a signature, an
HTML-only mail, and one with a typo that is refused and then corrected. The real intake reads
them, the rounds close (every order is in, or a sequential move arrives), results are queued and
written to the outbox Maildir, and the archive is built. The clock is the service's own, moved
an hour a round, so a whole game takes seconds. Then it says what happened and where to look.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from pathlib import Path

from sqlmodel import Session, col, func, select

from adjudicator.archive import build_archive
from adjudicator.games import KINDS, kind_of
from adjudicator.mail.maildir import MaildirReader, deliver, ensure_maildir
from adjudicator.mail.smtp import LocalMaildirSender
from adjudicator.notify.outbox import send_due
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.app import App
from adjudicator.service.creation import NewGame, set_up_game
from adjudicator.service.games import Credentials, PlayerSpec, find_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, GameStatus, OutboxMail, Submission

NAMES = ("ann", "ben", "cat", "dan")
SEED = 7
"""The players' choices are drawn from this seed: every first run plays the same games."""
ROUND_HOURS = 1


class DemoClock:
    """The service's clock, moved on by the demonstration: an hour a round."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self) -> None:
        self.now += timedelta(hours=ROUND_HOURS)


@dataclass
class Played:
    name: str
    title: str
    players: tuple[str, ...]
    rounds: int = 0
    ending: str = "still running"


@dataclass
class Summary:
    games: list[Played] = field(default_factory=list)
    received: Counter[str] = field(default_factory=Counter)
    sent: int = 0
    outbox: Path | None = None
    archive: Path | None = None
    example_result: Path | None = None


def _players(kind_min: int, kind_max: int | None) -> tuple[str, ...]:
    count = 4 if kind_max is None else min(max(kind_min, 4), kind_max)
    return NAMES[:count]


def _free_name(session: Session, stem: str) -> str:
    number = 1
    while session.exec(select(Game.id).where(Game.name == f"{stem}{number}")).first():
        number += 1
    return f"{stem}{number}"


def _stem(kind: str) -> str:
    """``rsp`` for rock-scissors-paper, ``gi`` for giveaway: a short game name to number."""
    words = kind.split("-")
    return "".join(w[0] for w in words) if len(words) > 1 else kind[:2]


def _create_games(app: App) -> dict[str, dict[str, Credentials]]:
    games: dict[str, dict[str, Credentials]] = {}
    with session_scope(app.engine) as session:
        for kind in KINDS:
            name = _free_name(session, _stem(kind.name))
            players = _players(kind.rules.min_players, kind.rules.max_players)
            new = NewGame(
                name=name,
                kind=kind.name,
                schedule="24h",
                time_zone="UTC",
                gm_address="gm@example.org",
                settings={"reminders": []},
                players=[PlayerSpec(p, f"{p}@example.org") for p in players],
            )
            # No stand-ins: round 1 opens as by start_game alone. The demo's game master
            # reads no mail, and is told nothing.
            _, credentials = set_up_game(session, new, ctx=app.ctx, now=app.clock(), tell_gm=False)
            games[name] = {c.handle: c for c in credentials}
    return games


def _mail(app: App, game: str, cred: Credentials, lines: list[str], style: int) -> bytes:
    """A player's order mail, in one of the shapes real mail takes."""
    service = app.config.service.address
    local, _, domain = service.partition("@")
    message = EmailMessage()
    message["From"] = f"{cred.handle.title()} <{cred.address}>"
    message["Date"] = app.clock().strftime("%a, %d %b %Y %H:%M:%S +0000")
    message["Message-ID"] = f"<{game}-{cred.handle}-{app.clock():%H%M}-{style}@example.org>"
    orders = "\n".join(lines)
    if style % 4 == 0:  # a reply to the service's mail, to the personal address
        message["To"] = f"{local}+{cred.reply_token}@{domain}"
        message["Subject"] = f"Re: [{game}] your orders"
        quoted = "\n".join(f"> {line}" for line in ("Hello,", "", *lines, "", "-- ", service))
        message.set_content(f"{orders}\n\nOn Monday the judge wrote:\n{quoted}\n")
    elif style % 4 == 1:  # with a password and a signature
        message["To"] = service
        message["Subject"] = f"[{game}] orders"
        message.set_content(
            f"Hi!\n\nPASSWORD {cred.secret}\n{orders}\n\n-- \n{cred.handle.title()}\n"
        )
    elif style % 4 == 2:  # HTML only, as some web mail sends
        message["To"] = f"{local}+{cred.reply_token}@{domain}"
        message["Subject"] = f"[{game}] my move"
        body = "".join(f"<p>{line}</p>" for line in lines)
        message.set_content(f"<html><body>{body}<p>Cheers</p></body></html>", subtype="html")
    else:  # terse
        message["To"] = f"{local}+{cred.reply_token}@{domain}"
        message["Subject"] = f"[{game}]"
        message.set_content(f"{orders}\n")
    return message.as_bytes()


def _turn(app: App, games: dict[str, dict[str, Credentials]], rng: random.Random, turn: int) -> int:
    """Every game still running gets its players' mails; the number of mails written."""
    folder = ensure_maildir(app.config.maildir_path)
    written = 0
    with Session(app.engine) as session:
        for name, credentials in games.items():
            game = find_game(session, name)
            if game.status != GameStatus.RUNNING:
                continue
            rules, state = rules_of(game), game_state(game)
            for index, handle in enumerate(rules.to_move(state)):
                lines = rules.sample_orders(state, handle, rng)
                cred = credentials[handle]
                if turn == 0 and index == 0 and lines:  # a typo: refused, then corrected
                    typo = [lines[0] + lines[0][-1], *lines[1:]]
                    deliver(folder, _mail(app, name, cred, typo, 3))
                    written += 1
                deliver(folder, _mail(app, name, cred, lines, turn + index))
                written += 1
    return written


def _ingest(app: App, raws: list[bytes], _delivered: list[datetime]) -> None:
    """The players' mail as of now on the demonstration's clock, not as of its delivery by the
    wall clock: the demonstration's days pass in a moment."""
    app.ingest_batch(raws, channel="maildir")


def _all_over(app: App, games: dict[str, dict[str, Credentials]]) -> bool:
    with Session(app.engine) as session:
        return all(find_game(session, name).status == GameStatus.FINISHED for name in games)


def play_demo(
    app: App, *, say: Callable[[str], None], max_turns: int = 300, seed: int = SEED
) -> Summary:
    """Play one game of every kind to its end through the real service (see the module)."""
    rng = random.Random(seed)
    games = _create_games(app)
    say(f"demo: {len(games)} games created: {', '.join(games)}; their players start mailing")
    reader = MaildirReader(app.config.maildir_path, handle_batch=functools.partial(_ingest, app))
    outbox = ensure_maildir(app.config.data_path / "outbox-maildir")
    sender = LocalMaildirSender(outbox)
    bounces = app.config.service.address
    clock = app.clock if isinstance(app.clock, DemoClock) else None
    for turn in range(max_turns):
        if _all_over(app, games):
            break
        _turn(app, games, rng, turn)
        reader.run_once()
        asyncio.run(send_due(app.engine, sender, bounce_address=bounces, now=app.clock))
        if turn % 10 == 9:
            say(f"demo: turn {turn + 1}, {_progress(app, games)}")
        if clock is not None:
            clock.advance()
    asyncio.run(send_due(app.engine, sender, bounce_address=bounces, now=app.clock))
    say("demo: building the archive")
    build_archive(app.engine, app.config.archive_path, authority=app.ctx.identity.domain)
    return _summary(app, games, outbox)


def _progress(app: App, games: dict[str, dict[str, Credentials]]) -> str:
    with Session(app.engine) as session:
        states = [find_game(session, name) for name in games]
    over = [g.name for g in states if g.status == GameStatus.FINISHED]
    return f"{len(over)} of {len(states)} games over" + (f" ({', '.join(over)})" if over else "")


def _summary(app: App, games: dict[str, dict[str, Credentials]], outbox: Path) -> Summary:
    summary = Summary(outbox=outbox, archive=app.config.archive_path / "index.html")
    with Session(app.engine) as session:
        for name, credentials in games.items():
            game = find_game(session, name)
            kind = kind_of(game.kind)
            played = Played(name, kind.title, tuple(credentials), rounds=game.current_round)
            outcome = kind.rules.outcome(game_state(game))
            if outcome is not None:
                played.ending = (
                    "a draw"
                    if outcome.draw
                    else (
                        "won by " + " and ".join(outcome.winners)
                        if outcome.winners
                        else "nobody won"
                    )
                )
            summary.games.append(played)
        rows = session.exec(
            select(Submission.status, func.count()).group_by(col(Submission.status))
        )
        summary.received = Counter({str(status): count for status, count in rows})
        summary.sent = session.exec(select(func.count()).select_from(OutboxMail)).one()
        last = session.exec(
            select(OutboxMail.message)
            .where(OutboxMail.kind == "result")
            .order_by(col(OutboxMail.id).desc())
        ).first()
    if last is not None:
        summary.example_result = _file_of(outbox, last)
    return summary


def _file_of(outbox: Path, message: bytes) -> Path | None:
    """The outbox file that holds ``message`` (found by its Message-ID)."""
    wanted = BytesHeaderParser().parsebytes(message)["Message-ID"]
    for path in sorted((outbox / "new").iterdir()):
        with path.open("rb") as file:
            if BytesHeaderParser().parse(file)["Message-ID"] == wanted:
                return path
    return None


def describe(summary: Summary) -> list[str]:
    """The summary in words, for a newcomer."""
    lines = ["", "The demonstration is over. Played:"]
    for game in summary.games:
        lines.append(
            f"  {game.name:6} {game.title:24} {', '.join(game.players):20} "
            f"{game.rounds:3} rounds, {game.ending}"
        )
    received = sum(summary.received.values())
    outcomes = ", ".join(f"{count} {status}" for status, count in sorted(summary.received.items()))
    lines += [
        "",
        f"Mails received: {received} ({outcomes}); mails sent: {summary.sent}.",
        "",
        "Where to look:",
        f"  the mails sent, one file each:  {summary.outbox}/new/",
    ]
    if summary.example_result is not None:
        lines.append(f"  a result mail to open:          {summary.example_result}")
    lines += [
        f"  the archive of every game:      {summary.archive}",
        "  run the service for real:       .venv/bin/adjudicate serve  (README.md: Configuration)",
        "  create your own game:           .venv/bin/adjudicate game create --help",
    ]
    return lines
