"""Reports by mail: how fast the service answers REPORT and HISTORY requests.

Run: .venv/bin/python bench/reports.py [--players 20] [--rounds 8] [--requests 40]

A Giveaway game of ``--players`` players is played for ``--rounds`` rounds through the real
intake on SQLite (random legal orders by mail, each round then closed by hand; with the default
seed the game would end in round 9). Then ``--requests`` request mails of each kind go through
the same intake: ``REPORT n`` for a random round of the game, and ``HISTORY``. Timed: from the
mail's bytes to its answer queued in the outbox, with the round's pictures in PNG and the
record attached. Answers per second, and the mean and worst time of one answer, per kind:
``cold`` converts the pictures each time (in process, libvips); ``warm`` finds them among the last
made (every round's pictures are made once, untimed, before the warm runs: as when a player
asks for a round this service process has reported). The last line is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

from sqlmodel import Session, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.games import get_rules
from adjudicator.readmodel.stored import game_state
from adjudicator.service.app import App, make_app
from adjudicator.service.closing import close_and_adjudicate
from adjudicator.service.creation import NewGame, set_up_game
from adjudicator.service.games import PlayerSpec
from adjudicator.service.report_requests import ANSWERS_PER_HOUR
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, OutboxMail

SERVICE = "judge@pbem.test"


def mail(player: str, secret: str, lines: list[str], serial: int, game: str = "bench") -> bytes:
    message = EmailMessage()
    message["From"] = f"{player}@example.org"
    message["To"] = SERVICE
    message["Subject"] = f"[{game}] orders"
    message["Message-ID"] = f"<{player}-{serial}@example.org>"
    message.set_content("\n".join([f"PASSWORD {secret}", *lines]) + "\n")
    return message.as_bytes()


def play(app: App, players: int, rounds: int, seed: int, name: str = "bench") -> dict[str, str]:
    """The game ``name`` played for ``rounds`` rounds; each player's password."""
    names = [f"p{i:02d}" for i in range(players)]
    with session_scope(app.engine) as session:
        new = NewGame(
            name=name,
            kind="giveaway",
            time_zone="Europe/Berlin",
            schedule="72h",
            settings={"early_close": False},
            players=[PlayerSpec(n, f"{n}@example.org") for n in names],
        )
        _, credentials = set_up_game(
            session, new, ctx=app.ctx, now=app.clock(), welcome=False, tell_gm=False
        )
    secrets = {c.handle: c.secret for c in credentials}
    rules, rng, serial = get_rules("giveaway"), random.Random(seed), 0
    this_game = select(Game).where(Game.name == name)
    for _ in range(rounds):
        with Session(app.engine) as session:
            state = game_state(session.exec(this_game).one())
        for handle in names:
            serial += 1
            lines = rules.sample_orders(state, handle, rng)
            app.ingest(mail(handle, secrets[handle], lines, serial, name), channel="bench")
        with session_scope(app.engine) as session:
            round_ = open_round_of(session, session.exec(this_game).one())
            assert round_ is not None, "the game ended early: ask for fewer rounds"
            assert round_.id is not None
            close_and_adjudicate(session, round_.id, ctx=app.ctx, now=app.clock(), force=True)
        app.report()  # pictures made, then the result mails queued
    return secrets


def answer_times(
    app: App, secrets: dict[str, str], lines: list[list[str]], *, serial: int, cold: bool
) -> list[float]:
    """Seconds from each request's bytes to its answer queued; the players take turns, so that
    none reaches the hourly limit of answers. ``serial`` numbers the mails' Message-IDs;
    ``cold`` forgets the PNGs made before each request."""
    players = sorted(secrets)
    times = []
    for index, asked in enumerate(lines):
        player = players[index % len(players)]
        raw = mail(player, secrets[player], asked, serial + index)
        if cold:
            app.ctx.pngs.clear()
        start = time.perf_counter()
        app.ingest(raw, channel="bench")
        times.append(time.perf_counter() - start)
    return times


def forget_outbox(app: App) -> None:
    """The answers so far (kept, they would hold the players to their hourly limit)."""
    with session_scope(app.engine) as session:
        for row in session.exec(select(OutboxMail)):
            session.delete(row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.requests > args.players * ANSWERS_PER_HOUR:
        parser.error("more requests than the players may ask for in an hour")
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        app = make_app(Config(service=ServiceConfig(data_dir=str(data), address=SERVICE)))
        started = time.perf_counter()
        secrets = play(app, args.players, args.rounds, args.seed)
        setup_s = time.perf_counter() - started
        rng = random.Random(args.seed)
        reports = [[f"REPORT {rng.randint(1, args.rounds)}"] for _ in range(args.requests)]
        figures: dict[str, object] = {
            "players": args.players,
            "rounds": args.rounds,
            "requests": args.requests,
            "setup_s": round(setup_s, 2),
        }
        histories = [["HISTORY"]] * args.requests
        asked = [
            (f"{kind}_{temperature}", kind, lines, temperature == "cold")
            for temperature in ("cold", "warm")
            for kind, lines in (("report", reports), ("history", histories))
        ]
        for number, (name, kind, lines, cold) in enumerate(asked, start=1):
            if name == "report_warm":  # every round's pictures made once, untimed
                every = [[f"REPORT {n}"] for n in range(1, args.rounds + 1)]
                answer_times(app, secrets, every, serial=9_000_000, cold=False)
            forget_outbox(app)
            times = answer_times(app, secrets, lines, serial=1_000_000 * number, cold=cold)
            with Session(app.engine) as session:
                answers = session.exec(select(OutboxMail).where(OutboxMail.kind == kind)).all()
            assert len(answers) == args.requests, f"{len(answers)} {kind} answers"
            size = statistics.mean(len(a.message) for a in answers)
            found = {
                "per_second": round(len(times) / sum(times), 1),
                "mean_ms": round(1000 * statistics.mean(times), 1),
                "max_ms": round(1000 * max(times), 1),
                "mail_kb": round(size / 1024, 1),
            }
            figures[name] = found
            print(
                f"{name:13} {found['per_second']:7} answers/s  mean {found['mean_ms']} ms  "
                f"max {found['max_ms']} ms  {found['mail_kb']} KB a mail"
            )
        app.engine.dispose()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
