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
mail. Checked: exactly one mail per player and game (Message-IDs unique, none missing). Also
measured: the CPU seconds the services, their worker processes and this process (the sink) used
in that time, steadier than the ratio where other work shares the machine.

Answers during and after the burst (``--answers``, default 80): a small game whose round stays
open ("talk") gets one valid order mail every ``--answer-gap`` seconds from T + ``--answer-gap``
on (40 s by default: the burst, then the archive rebuilt after it), delivered into the service's
Maildir; timed from each delivery until the sink accepted its confirmation (median, p90, max,
how many over 2 s; and the slowest of those written after the last result mail). The players of
a deadline's games write their next orders while the results go out: they should not wait for
them. The burst's time ends with its last result mail, not with the last answer.

Floor, same run: a bare aiosmtplib send of the same rendered result mails (read back from the
outbox) over one connection to a fresh sink. Ratio floor / service: 1.0 means the whole burst,
closing, adjudicating, rendering and storing included, takes no longer than sending alone.

The last line printed is a JSON object with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.utils import format_datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import aiosmtplib  # noqa: E402
from mailservers import SmtpSink, start_smtp_sink  # noqa: E402
from sqlalchemy import create_engine, text, update  # noqa: E402
from sqlmodel import Session, col, select  # noqa: E402

from adjudicator.base.security import hash_secret, token_digest  # noqa: E402
from adjudicator.mail.maildir import deliver, ensure_maildir  # noqa: E402
from adjudicator.service.games import PlayerSpec, create_game  # noqa: E402
from adjudicator.service.rounds import start_game  # noqa: E402
from adjudicator.storage.db import make_engine, migrate, session_scope  # noqa: E402
from adjudicator.storage.models import OrderSet, OutboxMail, Round, Seat  # noqa: E402

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
JUDGE = "judge@burst.test"


TALK = "talk"
"""The game whose players write during the burst; its round closes a day after T."""
SECRET = "not-used-here"


def children(pid: int) -> list[int]:
    """The processes a process started, and theirs, from ``/proc``."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in (int(c) for c in task.read_text().split()):
            found += [child, *children(child)]
    return found


def cpu_s(pid: int) -> float | None:
    """User and system CPU seconds of a process (``/proc/PID/stat``, fields 14 and 15)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # after the command's name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_of(pids: list[int]) -> dict[str, float]:
    """CPU seconds used so far by these service processes, and by their child processes."""
    used = {"services": 0.0, "workers": 0.0}
    for pid in pids:
        used["services"] += cpu_s(pid) or 0.0
        used["workers"] += sum(cpu_s(child) or 0.0 for child in children(pid))
    return used


def cpu_at(moment: float, pids: list[int]) -> dict[str, float]:
    """:func:`cpu_of` the services at ``moment`` (a wall-clock time), with this process's own
    CPU seconds as "bench"."""
    time.sleep(max(0.0, moment - time.time()))
    return cpu_of(pids) | {"bench": time.process_time()}


def nearest_rank(ordered: list[float], q: float) -> float:
    """The ``q`` quantile of ``ordered`` (sorted), by nearest rank: the smallest value with at
    least ``q`` of the values at or below it. The benches' p90 and p99."""
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def seed(url: str, games: int, players: int, deadline: datetime) -> int:
    """Create the games (and ``TALK``); return the number of result mails expected."""
    engine = make_engine(url)
    migrate(engine)
    opened = deadline - timedelta(days=1)
    hashed = hash_secret(SECRET)  # one hash for all: the setup is not what is timed
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
        talk, _ = create_game(
            session,
            name=TALK,
            kind="giveaway",
            players=[PlayerSpec(f"t{i}", f"t{i}@players.test") for i in range(players)],
            options={},
            schedule="72h",
            settings={"reminders": [], "early_close": False},
            now=opened,
        )
        talk_round = start_game(session, talk, now=opened)
        talk_round.deadline = deadline + timedelta(days=1)
        for seat in session.exec(select(Seat).where(Seat.game_id == talk.id)).all():
            seat.secret_hash = hashed
            session.add(seat)
    engine.dispose()
    return games * players


def talk_mail(n: int, players: int) -> tuple[str, bytes]:
    """The ``n``th order mail of the ``TALK`` game; its Message-ID and bytes."""
    handle, gift = f"t{n % players}", f"t{(n + 1) % players}"
    message_id = f"<talk-{n}-{uuid.uuid4().hex[:8]}@players.test>"
    raw = (
        f"From: {handle} <{handle}@players.test>\r\nTo: {JUDGE}\r\n"
        f"Subject: [{TALK}] orders\r\nMessage-ID: {message_id}\r\n"
        f"Date: {format_datetime(datetime.now(UTC))}\r\n\r\n"
        f"PASSWORD {SECRET}\r\nGIVE 3 TO {gift}\r\n"
    ).encode()
    return message_id, raw


def replying_to(content: bytes) -> str | None:
    """The In-Reply-To of a mail (its header only), if any."""
    head = content.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    found = re.search(rb"^In-Reply-To:\s*(<[^>]+>)", head, re.MULTILINE | re.IGNORECASE)
    return found.group(1).decode() if found is not None else None


class Answers:
    """When the sink accepted each mail answering one of ours (by its In-Reply-To), patched
    into its handler; when each of ours was delivered; and when the last other mail (a result
    mail) was accepted; and, with ``pids``, the CPU used by then (:func:`cpu_of`) once the
    ``expected``-th result mail is accepted."""

    def __init__(self, sink: SmtpSink, *, expected: int = 0) -> None:
        self.sent: dict[str, float] = {}
        self.answered: dict[str, float] = {}
        self.last_result = 0.0
        """When the sink accepted the last mail that answers none of ours (a result mail)."""
        self.expected, self.results = expected, 0
        self.pids: list[int] = []
        self.cpu_at_last: dict[str, float] = {}
        handle = sink.handler.handle_DATA

        async def timed(server: Any, session: Any, envelope: Any) -> str:
            reply = await handle(server, session, envelope)
            replied = replying_to(bytes(envelope.original_content or b""))
            if replied in self.sent:
                self.answered.setdefault(replied, time.time())
            else:
                self.last_result = time.time()
                self.results += 1
                if self.results == self.expected and self.pids:
                    self.cpu_at_last = cpu_of(self.pids) | {"bench": time.process_time()}
            return reply

        sink.handler.handle_DATA = timed  # type: ignore[method-assign]

    def write(self, maildir: Path, at: float, count: int, gap: float, players: int) -> None:
        """``count`` mails into ``maildir``, ``gap`` seconds apart from the epoch time ``at``."""
        for n in range(count):
            time.sleep(max(0.0, at + n * gap - time.time()))
            message_id, raw = talk_mail(n, players)
            self.sent[message_id] = time.time()
            deliver(maildir, raw)

    def figures(self, kind: str) -> dict[str, object]:
        waits = sorted(self.answered[m] - t for m, t in self.sent.items() if m in self.answered)
        if not waits:
            return {f"{kind}_answers": 0}
        after = [
            self.answered[m] - t
            for m, t in self.sent.items()
            if m in self.answered and t > self.last_result
        ]
        return {
            f"{kind}_answers": len(waits),
            f"{kind}_answers_missing": len(self.sent) - len(waits),
            f"{kind}_answer_median_s": round(statistics.median(waits), 3),
            f"{kind}_answer_p90_s": round(nearest_rank(waits, 0.9), 3),
            f"{kind}_answer_max_s": round(waits[-1], 3),
            f"{kind}_answers_over_2s": sum(w > 2.0 for w in waits),
            # Written after the last result mail, while the archive is rebuilt.
            f"{kind}_answers_after_burst": len(after),
            f"{kind}_answer_after_burst_max_s": round(max(after), 3) if after else None,
        }


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
def services(count: int, env: dict[str, str], logs: Path) -> Iterator[list[int]]:
    processes = []
    for n in range(count):
        log = (logs / f"service-{n}.log").open("wb")
        processes.append(
            subprocess.Popen(
                [str(ADJUDICATE), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT
            )
        )
    try:
        yield [process.pid for process in processes]
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
        answers = Answers(sink, expected=expected)
        try:
            env = service_env(folder / "data", url, sink, args.workers)
            with services(instances, env, folder) as pids:
                answers.pids, at_deadline = pids, {}
                noting = threading.Thread(
                    target=lambda: at_deadline.update(cpu_at(deadline.timestamp(), pids))
                )
                noting.start()
                writer = threading.Thread(
                    target=answers.write,
                    args=(
                        ensure_maildir(folder / "data" / "maildir"),
                        deadline.timestamp() + args.answer_gap,
                        args.answers,
                        args.answer_gap,
                        args.players,
                    ),
                )
                writer.start()
                sink.wait_for(expected + args.answers, timeout=args.timeout)
                # The burst ends with its last result mail, whether or not the answers to
                # mails written during and after it still come in.
                done = answers.last_result
                noting.join()
                writer.join()
                time.sleep(args.settle)  # duplicates, if any, would arrive now
            received = list(sink.handler.received)
        finally:
            sink.stop()
        elapsed = done - deadline.timestamp()
        results = [r for r in received if replying_to(r.content) not in answers.sent]
        ids = [
            str(message_from_bytes(r.content, policy=policy.default)["Message-ID"]) for r in results
        ]
        mails = result_mails(url)
    floor = floor_send(mails)
    figures: dict[str, object] = {
        f"{kind}_instances": instances,
        f"{kind}_mails": expected,
        f"{kind}_received": len(results),
        f"{kind}_duplicates": len(ids) - len(set(ids)),
        f"{kind}_burst_s": round(elapsed, 3),
        f"{kind}_mails_per_s": round(expected / elapsed, 1),
        f"{kind}_floor_s": round(floor, 3),
        f"{kind}_ratio": round(floor / elapsed, 3),
        f"{kind}_seed_s": round(seeded, 1),
        # CPU seconds from the deadline to the last result mail: steadier than the wall-clock
        # ratio on a machine shared with other work. "bench" is this process: the sink, and
        # the answers' writer.
        f"{kind}_cpu_s": {k: round(v - at_deadline[k], 2) for k, v in answers.cpu_at_last.items()},
    } | answers.figures(kind)
    for key, value in figures.items():
        print(f"{key:>24}: {value}")
    if len(results) != expected or len(set(ids)) != expected:
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
    parser.add_argument("--answers", type=int, default=80, help="order mails from T on")
    parser.add_argument("--answer-gap", type=float, default=0.5, help="seconds between them")
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
