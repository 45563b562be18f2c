"""Mail from a mail server's pipe (``adjudicate receive``), end to end, against its floor.

Run: .venv/bin/python bench/pipe.py [--mails 200] [--games 20] [--parallel 4]

1. Setup: a fresh SQLite database with ``--games`` Giveaway games and ``--mails`` valid order
   mails (those of bench/intake.py: assorted forms, quotes, signatures, HTML parts), and an
   aiosmtpd sink (tests/mailservers.py).
2. The pipe alone, no service running: each mail through ``adjudicate receive`` one after
   another, as a mail server's alias runs it (a process for each): wall time per mail, median,
   p90 and max. Floor, same run: a bare interpreter that reads standard input and writes it into
   a Maildir (``tmp/``, fsync, rename, fsync of ``new/``): what any pipe written in Python costs
   at least. The Maildir is emptied afterwards.
3. With the service: ``adjudicate serve`` running in its own process (as deployed, without
   IMAP), the mails piped ``--parallel`` at a time, as a mail server runs its deliveries. Timed
   from the first pipe's start to the last confirmation accepted by the sink (mails a second),
   and for each mail from its pipe's start to its confirmation (median, p90, max).
   ``--history N`` first puts N handled mails into the Maildir's ``cur/``, as a service that
   has read its Maildir for a long while has there (bench/maildir_pass.py).

The last line printed is a JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deadline_burst import ADJUDICATE, nearest_rank, service_env
from intake import JUDGE, Arrivals, create_games, make_mails
from maildir_pass import fill
from mailservers import SmtpSink, start_smtp_sink

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.mail.maildir import ensure_maildir
from adjudicator.service.app import make_app

FLOOR = """
import os, sys, time
raw = sys.stdin.buffer.read()
folder = sys.argv[1]
name = f"{time.time_ns() // 1000}.P{os.getpid()}.floor"
with open(os.path.join(folder, "tmp", name), "xb") as file:
    file.write(raw)
    file.flush()
    os.fsync(file.fileno())
os.rename(os.path.join(folder, "tmp", name), os.path.join(folder, "new", name))
new = os.open(os.path.join(folder, "new"), os.O_RDONLY)
os.fsync(new)
os.close(new)
"""


def quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_s": round(statistics.median(ordered), 4),
        "p90_s": round(nearest_rank(ordered, 0.9), 4),
        "max_s": round(ordered[-1], 4),
    }


def run_timed(command: list[str], raw: bytes, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, input=raw, env=env, capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} ended with {done.returncode}: {done.stderr.decode()}")
    return time.perf_counter() - started


def empty(maildir: Path) -> int:
    count = 0
    for sub in ("new", "cur", "tmp"):
        for path in (maildir / sub).iterdir():
            path.unlink()
            count += 1
    return count


def pipe_alone(raws: list[bytes], env: dict[str, str], maildir: Path) -> dict[str, Any]:
    """Each mail through the pipe, one after another, then the floor's, alternating."""
    pipe, floor = [], []
    ensure_maildir(maildir)
    for raw in raws:
        pipe.append(run_timed([str(ADJUDICATE), "receive"], raw, env))
        floor.append(run_timed([sys.executable, "-c", FLOOR, str(maildir)], raw, env))
    if empty(maildir) != 2 * len(raws):
        raise SystemExit("the Maildir did not hold every mail piped")
    figures = {"pipe": quantiles(pipe), "floor": quantiles(floor)}
    figures["pipe_over_floor_median"] = round(
        figures["pipe"]["median_s"] / figures["floor"]["median_s"], 2
    )
    print(
        f"the pipe alone: {len(raws)} mails, a process each: median"
        f" {figures['pipe']['median_s']:.3f} s, p90 {figures['pipe']['p90_s']:.3f} s, max"
        f" {figures['pipe']['max_s']:.3f} s; floor (a bare interpreter writing the Maildir)"
        f" median {figures['floor']['median_s']:.3f} s"
    )
    return figures


def with_service(
    mails: list[tuple[Any, str, bytes]],
    env: dict[str, str],
    arrivals: Arrivals,
    *,
    parallel: int,
    base: Path,
) -> dict[str, Any]:
    log = base / "service.log"
    service = subprocess.Popen(
        [str(ADJUDICATE), "serve"], env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 120
        while b"deadlines planned; serving" not in log.read_bytes():
            if service.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the service did not start: see {log}")
            time.sleep(0.05)
        started: dict[str, float] = {}

        def pipe(mail: tuple[Any, str, bytes]) -> None:
            _, message_id, raw = mail
            started[message_id] = time.monotonic()
            run_timed([str(ADJUDICATE), "receive"], raw, env)

        first = time.monotonic()
        with ThreadPoolExecutor(parallel) as pool:
            list(pool.map(pipe, mails))
        piped = time.monotonic() - first
        ids = set(started)
        deadline = time.monotonic() + 300
        while arrivals.count(ids) < len(ids):
            if time.monotonic() > deadline:
                raise SystemExit(f"{arrivals.count(ids)} of {len(ids)} confirmations arrived")
            time.sleep(0.02)
        whole = arrivals.last(ids) - first
        latencies = [arrivals.times[i] - started[i] for i in ids]
    finally:
        service.terminate()
        service.wait(60)
    figures = {
        "parallel": parallel,
        "piped_s": round(piped, 3),
        "whole_s": round(whole, 3),
        "mails_per_s": round(len(mails) / whole, 1),
        "pipe_to_confirmation": quantiles(latencies),
    }
    print(
        f"with the service: {len(mails)} mails piped {parallel} at a time in {piped:.2f} s; the"
        f" last confirmed after {whole:.2f} s ({figures['mails_per_s']} mails/s); pipe to"
        f" confirmation median {figures['pipe_to_confirmation']['median_s']:.3f} s, p90"
        f" {figures['pipe_to_confirmation']['p90_s']:.3f} s, max"
        f" {figures['pipe_to_confirmation']['max_s']:.3f} s"
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=200)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--parallel", type=int, default=4, help="pipes running at once")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--history", type=int, default=0, help="handled mails in cur/ before the service starts"
    )
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="adjudicator-pipe-"))
    sink: SmtpSink = start_smtp_sink()
    arrivals = Arrivals(sink)
    try:
        data = base / "data"
        app = make_app(Config(service=ServiceConfig(data_dir=str(data), address=JUDGE)))
        seats = max(3, -(-args.mails // args.games))
        players = [p for game in create_games(app, games=args.games, seats=seats) for p in game]
        app.engine.dispose()
        rng = random.Random(args.seed)
        rng.shuffle(players)
        start = datetime.now(UTC)
        mails = make_mails(players[: args.mails], rng, tag="pipe", start=start, token=False)
        env = service_env(data, f"sqlite:///{data / 'adjudicator.db'}", sink, workers=0)
        env["ADJUDICATOR_ADDRESS"] = JUDGE
        figures: dict[str, Any] = {"mails": args.mails, "games": args.games}
        figures["alone"] = pipe_alone([raw for *_, raw in mails], env, data / "maildir")
        fill(data / "maildir", args.history)
        figures["history"] = args.history
        figures["service"] = with_service(mails, env, arrivals, parallel=args.parallel, base=base)
    finally:
        sink.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
