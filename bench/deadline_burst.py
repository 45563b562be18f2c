"""Many deadlines in the same second: from the deadline until every result mail is accepted.

Run: .venv/bin/python bench/deadline_burst.py [--games 500] [--players 6] [--lead 8] [--workers 0]
     [--setups sqlite,pg1,pg2] [--pg-admin URL]

For each setup, a fresh database holds ``--games`` Giveaway games of ``--players`` players, every
player's orders in (a ring of gifts: real adjudication work), and every round 1 deadline at the
same moment T, ``--lead`` seconds after the service processes are started (enough for them to
start: a deadline that passed before a service starts fires at once anyway).

- ``sqlite``: one ``adjudicate serve`` process on a SQLite file;
- ``pg1``: one process on PostgreSQL; ``pg2``: two processes on the same PostgreSQL database
  (each round must be closed once and each result mailed once: checked below).

The services are real processes (``adjudicate serve``: APScheduler deadlines, the outbox sender)
sending to an aiosmtpd sink in this process. Timed: T until the sink has accepted every result
mail. Checked: exactly one mail per player and game (Message-IDs unique, none missing).

Floor, same run: a bare aiosmtplib send of the same rendered result mails (read back from the
outbox) over one connection to a fresh sink. Ratio floor / service: 1.0 means the whole burst,
closing, adjudicating, rendering and storing included, takes no longer than sending alone.

The last line printed is a JSON object with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import aiosmtplib  # noqa: E402
from mailservers import SmtpSink, start_smtp_sink  # noqa: E402
from sqlalchemy import create_engine, text, update  # noqa: E402
from sqlmodel import Session, col, select  # noqa: E402

from adjudicator.security import hash_secret, token_digest  # noqa: E402
from adjudicator.service.games import PlayerSpec, create_game  # noqa: E402
from adjudicator.service.rounds import start_game  # noqa: E402
from adjudicator.storage.db import make_engine, migrate, session_scope  # noqa: E402
from adjudicator.storage.models import OrderSet, OutboxMail, Round, Seat  # noqa: E402

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
JUDGE = "judge@burst.test"


def seed(url: str, games: int, players: int, deadline: datetime) -> int:
    """Create the games; return the number of result mails expected."""
    engine = make_engine(url)
    migrate(engine)
    opened = deadline - timedelta(days=1)
    hashed = hash_secret("not-used-here")  # one hash for all: the setup is not what is timed
    with session_scope(engine) as session:
        for g in range(games):
            handles = [f"p{g}x{i}" for i in range(players)]
            game, _ = create_game(
                session,
                name=f"g{g}",
                kind="giveaway",
                players=[PlayerSpec(h, f"{h}@players.test") for h in handles],
                options={},
                schedule="72h",
                settings={"reminders": [], "early_close": False},
                now=opened,
            )
            round_ = start_game(session, game, now=opened)
            session.flush()
            seats = session.exec(select(Seat).where(Seat.game_id == game.id)).all()
            for i, seat in enumerate(seats):
                seat.secret_hash, seat.reply_token = hashed, token_digest(f"{g}-{i}")
                session.add(seat)
                assert round_.id is not None
                assert seat.id is not None
                session.add(
                    OrderSet(
                        round_id=round_.id,
                        seat_id=seat.id,
                        lines=[f"GIVE 3 TO {handles[(i + 1) % players]}"],
                        receipt="bench",
                        created_at=opened,
                    )
                )
        session.execute(update(Round).values(deadline=deadline))
    engine.dispose()
    return games * players


def service_env(data: Path, url: str, sink: SmtpSink, workers: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADJUDICATOR_")}
    return env | {
        "ADJUDICATOR_WORKERS": str(workers),
        "ADJUDICATOR_DATA_DIR": str(data),
        "ADJUDICATOR_DATABASE_URL": url,
        "ADJUDICATOR_ADDRESS": JUDGE,
        "ADJUDICATOR_SMTP_HOST": sink.host,
        "ADJUDICATOR_SMTP_PORT": str(sink.port),
    }


@contextmanager
def services(count: int, env: dict[str, str], logs: Path) -> Iterator[None]:
    processes = []
    for n in range(count):
        log = (logs / f"service-{n}.log").open("wb")
        processes.append(
            subprocess.Popen(
                [str(ADJUDICATE), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT
            )
        )
    try:
        yield
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(30)


@contextmanager
def database(kind: str, base: Path, admin_url: str) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{base / 'burst.db'}"
        return
    name = f"adjudicator_burst_{uuid.uuid4().hex[:10]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield admin_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        admin.dispose()


def result_mails(url: str) -> list[tuple[str, str, bytes]]:
    engine = make_engine(url)
    with Session(engine) as session:
        rows = session.exec(
            select(OutboxMail).where(OutboxMail.kind == "result").order_by(col(OutboxMail.id))
        ).all()
        mails = [(r.envelope_sender or JUDGE, r.recipient, r.message) for r in rows]
    engine.dispose()
    return mails


def floor_send(mails: list[tuple[str, str, bytes]]) -> float:
    sink = start_smtp_sink()
    try:

        async def send_all() -> float:
            async with aiosmtplib.SMTP(hostname=sink.host, port=sink.port) as smtp:
                started = time.perf_counter()
                for sender, recipient, content in mails:
                    await smtp.sendmail(sender, [recipient], content)
                return time.perf_counter() - started

        return asyncio.run(send_all())
    finally:
        sink.stop()


def run_setup(kind: str, args: argparse.Namespace, base: Path) -> dict[str, object]:
    instances = 2 if kind == "pg2" else 1
    folder = base / kind
    folder.mkdir()
    with database("sqlite" if kind == "sqlite" else "pg", folder, args.pg_admin) as url:
        deadline = datetime.now(UTC) + timedelta(seconds=args.lead)
        started = time.perf_counter()
        expected = seed(url, args.games, args.players, deadline)
        seeded = time.perf_counter() - started
        if datetime.now(UTC) > deadline - timedelta(seconds=3):
            raise SystemExit(f"setup took {seeded:.1f}s: raise --lead above that")
        sink = start_smtp_sink()
        try:
            env = service_env(folder / "data", url, sink, args.workers)
            with services(instances, env, folder):
                sink.wait_for(expected, timeout=args.timeout)
                done = time.time()
                time.sleep(args.settle)  # duplicates, if any, would arrive now
            received = list(sink.handler.received)
        finally:
            sink.stop()
        elapsed = done - deadline.timestamp()
        ids = [
            str(message_from_bytes(r.content, policy=policy.default)["Message-ID"])
            for r in received
        ]
        mails = result_mails(url)
    floor = floor_send(mails)
    figures: dict[str, object] = {
        f"{kind}_instances": instances,
        f"{kind}_mails": expected,
        f"{kind}_received": len(received),
        f"{kind}_duplicates": len(ids) - len(set(ids)),
        f"{kind}_burst_s": round(elapsed, 3),
        f"{kind}_mails_per_s": round(expected / elapsed, 1),
        f"{kind}_floor_s": round(floor, 3),
        f"{kind}_ratio": round(floor / elapsed, 3),
        f"{kind}_seed_s": round(seeded, 1),
    }
    for key, value in figures.items():
        print(f"{key:>24}: {value}")
    if len(received) != expected or len(set(ids)) != expected:
        raise SystemExit(f"{kind}: expected {expected} distinct mails, got {len(set(ids))}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--lead", type=float, default=20.0, help="seconds from start to T")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--settle", type=float, default=2.0)
    parser.add_argument("--setups", default="sqlite,pg1,pg2")
    parser.add_argument(
        "--workers", type=int, default=0, help="service.workers of each instance (0: a core each)"
    )
    parser.add_argument(
        "--pg-admin", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    args = parser.parse_args()
    figures: dict[str, object] = {
        "games": args.games,
        "players": args.players,
        "workers": args.workers,
    }
    with tempfile.TemporaryDirectory(prefix="burst-") as tmp:
        for kind in args.setups.split(","):
            print(f"== {kind}")
            figures |= run_setup(kind, args, Path(tmp))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
