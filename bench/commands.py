"""What the conversation commands cost at the intake, per mail, on SQLite (no mail servers).

Run: .venv/bin/python bench/commands.py [--mails 200] [--players 7]

One Giveaway game of ``--players`` players; for each case ``--mails`` mails are processed one
at a time through ``App.ingest`` (stored, read, answered, the answer rendered and queued), and
the time per mail is printed:

- floor: a mail with valid orders and the machine-made password (the path every player's
  orders take; measured in the same run);
- help, status, list: one command each, from the player's address;
- press: ``PRESS`` to every other player (one relayed mail each, plus the sender's answer);
- scrypt: the floor's orders again, proven by a password chosen with ``SET PASSWORD`` (stored
  with scrypt: the slow hash is the point).

The last line printed is a JSON object with every figure (milliseconds per mail, and each
case's ratio to the floor).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from email.message import EmailMessage
from itertools import count
from pathlib import Path

from sqlmodel import select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.base.security import hash_password
from adjudicator.notify import throttle
from adjudicator.service.app import App, make_app
from adjudicator.service.creation import NewGame, set_up_game
from adjudicator.service.games import PlayerSpec
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Seat

_numbers = count()


def mail(sender: str, body: str) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "judge@pbem.test"
    message["Subject"] = "[b1] commands"
    message["Message-ID"] = f"<bench-{next(_numbers)}@example.org>"
    message.set_content(body)
    return message.as_bytes()


def setup(players: int) -> tuple[App, dict[str, str]]:
    data = Path(tempfile.mkdtemp()) / "data"
    app = make_app(Config(service=ServiceConfig(data_dir=str(data), address="judge@pbem.test")))
    handles = [f"p{n}" for n in range(players)]
    with session_scope(app.engine) as session:
        new = NewGame(
            name="b1",
            kind="giveaway",
            schedule="72h",
            settings={"early_close": False},
            players=[PlayerSpec(h, f"{h}@example.org") for h in handles],
        )
        _, creds = set_up_game(
            session, new, ctx=app.ctx, now=app.clock(), welcome=False, tell_gm=False
        )
        chosen = hash_password("Tr0mbone-42")
        seat = session.exec(select(Seat).where(Seat.handle == "p1")).one()
        seat.secret_hash = chosen  # p1 chose a password with SET PASSWORD
        session.add(seat)
    return app, {c.handle: c.secret for c in creds}


def per_mail(app: App, make: Callable[[], bytes], mails: int) -> float:
    """Median milliseconds per mail over ``mails`` mails processed one at a time."""
    times = []
    for _ in range(mails):
        raw = make()
        start = time.perf_counter()
        app.ingest(raw, channel="bench")
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=200)
    parser.add_argument("--players", type=int, default=7)
    args = parser.parse_args(argv)
    # Every mail here is to be answered: the hourly cap on answers to one address is lifted.
    throttle.ANSWERS_PER_HOUR = 10**9
    app, secret = setup(args.players)
    p0, p1 = "p0@example.org", "p1@example.org"
    orders = "GIVE 2 TO p2\nGIVE 1 TO p3\n"
    cases: dict[str, Callable[[], bytes]] = {
        "floor": lambda: mail(p0, f"PASSWORD {secret['p0']}\n{orders}"),
        "help": lambda: mail(p0, "HELP b1\n"),
        "status": lambda: mail(p0, "STATUS\n"),
        "list": lambda: mail(p0, "LIST\n"),
        "press": lambda: mail(p0, f"PASSWORD {secret['p0']}\nPRESS\nhello all\n"),
        "scrypt": lambda: mail(p1, f"PASSWORD Tr0mbone-42\n{orders}"),
    }
    figures: dict[str, float] = {"mails": args.mails, "players": args.players}
    for name, make in cases.items():
        if name == "press":  # the rate limit would refuse all but the first few
            figures["press_ms"] = per_mail(app, make, min(args.mails, 9))
            continue
        figures[f"{name}_ms"] = per_mail(app, make, args.mails)
    for name in cases:
        if name != "floor":
            figures[f"{name}_vs_floor"] = figures[f"{name}_ms"] / figures["floor_ms"]
    for key, value in figures.items():
        print(f"{key:>18}: {value:.2f}" if isinstance(value, float) else f"{key:>18}: {value}")
    print(json.dumps({k: round(v, 3) for k, v in figures.items()}))
    app.engine.dispose()


if __name__ == "__main__":
    main(sys.argv[1:])
