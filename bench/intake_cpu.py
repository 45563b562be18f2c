"""The intake inside the service: CPU a mail to store, read, authenticate, apply and answer mail.

Run: .venv/bin/python bench/intake_cpu.py [--mails 1000] [--games 100] [--repeat 5] [--reader]

bench/intake.py measures the intake end to end, with Dovecot, the SMTP sink and the service in
processes of their own; its ratio moves with the load of the machine by a quarter and more.
This measures the part of it that is the service's own Python work, in one process, as CPU
time (``time.process_time``), steadier from run to run:

1. Setup: a fresh SQLite database with ``--games`` Giveaway games and ``--mails`` valid order
   mails (those of bench/intake.py: assorted forms, quotes, signatures, HTML parts).
2. Intake: ``App.ingest_batch`` of 50 mails at a time, as the IMAP reader hands them over: the
   raw mails stored in one transaction, then processed in batches (claim, read, authenticate
   with the password, store the orders, queue the confirmation). The first 50 mails warm the
   process up (templates compiled, statements cached) and are not counted. ``--reader``: a
   reader process reads the mails while they are stored
   (``adjudicator/serve/reader_process.py``), as in ``serve`` on a machine of several cores;
   the CPU counted is then this process's alone.
3. Floor, same run, the same mails: in one transaction of 50 mails each, one bare INSERT a
   mail of its bytes, the standard library's parser reading it (``email.message_from_bytes``)
   and one bare UPDATE marking it processed: what any intake in Python pays at least.

Each of ``--repeat`` rounds starts from a fresh database; the figures are the median and the
lowest (the least disturbed by other work on the machine). The last line printed is a JSON
object with every figure.
"""

from __future__ import annotations

import argparse
import email
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from email import policy
from pathlib import Path

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent))
from intake import JUDGE, create_games, make_mails

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.serve.reader_process import MailReaders
from adjudicator.service.app import make_app

WARM_UP = 50
BATCH = 50  # mails a FETCH hands over (bench/intake.py's FETCH_BATCH)


def one_round(mails: int, games: int, seed: int, *, reader: bool) -> tuple[float, float, int]:
    """CPU seconds a mail: the intake, its floor; and how many mails were counted."""
    data = Path(tempfile.mkdtemp(prefix="adjudicator-intake-cpu-"))
    readers = None
    try:
        app = make_app(Config(service=ServiceConfig(data_dir=str(data), address=JUDGE)))
        app.report_later = lambda: None  # the rounds completed are closed elsewhere in serve
        if reader:  # as serve does on a machine of several cores
            readers = MailReaders(own_addresses=app.ctx.own_addresses, max_bytes=app.ctx.max_bytes)
            deadline = time.monotonic() + 60
            while not readers.ready():
                assert time.monotonic() < deadline, "the reader did not start within 60 s"
                time.sleep(0.05)
            app.read_ahead = readers.read_ahead
        seats = max(3, -(-mails // games))
        players = [p for game in create_games(app, games=games, seats=seats) for p in game]
        rng = random.Random(seed)
        rng.shuffle(players)
        made = make_mails(players[:mails], rng, tag="p", start=datetime.now(UTC), token=False)
        raws = [raw for *_, raw in made]
        app.ingest_batch(raws[:WARM_UP], channel="imap")
        counted = 0
        started = time.process_time()
        for start in range(WARM_UP, len(raws), BATCH):
            done = app.ingest_batch(raws[start : start + BATCH], channel="imap")
            counted += sum(status is not None for _, status in done)
        intake = time.process_time() - started
        assert counted == len(raws) - WARM_UP, f"{counted} of {len(raws) - WARM_UP} processed"
        insert = text(
            "INSERT INTO submission (received_at, channel, digest, raw, status)"
            " VALUES (:now, 'floor', :digest, :raw, 'received') RETURNING id"
        )
        update = text("UPDATE submission SET status = 'accepted', note = 'floor' WHERE id = :id")
        now = datetime.now(UTC)
        started = time.process_time()
        for start in range(WARM_UP, len(raws), BATCH):
            with app.engine.begin() as connection:
                for n, raw in enumerate(raws[start : start + BATCH], start):
                    row = {"now": now, "digest": f"floor-{n}", "raw": raw}
                    submission = connection.execute(insert, row).scalar_one()
                    email.message_from_bytes(raw, policy=policy.compat32)
                    connection.execute(update, {"id": submission})
        floor = time.process_time() - started
        app.engine.dispose()
        return intake / counted, floor / counted, counted
    finally:
        if readers is not None:
            readers.shutdown()
        shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--reader",
        action="store_true",
        help="a reader process reads the mail (adjudicator/serve/reader_process.py), as in serve"
        " on a machine of several cores: the figure is then the service process's own CPU",
    )
    args = parser.parse_args()
    if args.mails <= WARM_UP:
        parser.error(f"--mails must be more than the {WARM_UP} of the warm-up")
    intake, floor = [], []
    counted = 0
    for n in range(args.repeat):
        mail, bare, counted = one_round(args.mails, args.games, args.seed + n, reader=args.reader)
        intake.append(1000 * mail)
        floor.append(1000 * bare)
    figures = {
        "reader": args.reader,
        "mails_counted": counted,
        "repeat": args.repeat,
        "intake_ms_median": round(statistics.median(intake), 3),
        "intake_ms_min": round(min(intake), 3),
        "floor_ms_median": round(statistics.median(floor), 3),
        "floor_ms_min": round(min(floor), 3),
    }
    figures["intake_over_floor"] = round(
        figures["intake_ms_median"] / figures["floor_ms_median"], 1
    )
    print(
        f"intake: {figures['intake_ms_median']} ms of CPU a mail (median of"
        f" {args.repeat}, lowest {figures['intake_ms_min']}); floor (store, parse, mark)"
        f" {figures['floor_ms_median']} ms: {figures['intake_over_floor']} times the floor"
    )
    print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
