"""How PostgreSQL stores the mails: pglz (its default), LZ4 (migration 0010) and no compression.

Run: .venv/bin/python bench/pg_compression.py [--rounds 500] [--repeat 2] [--pg-admin URL]

The mails are real result mails with their pictures: a 6-player Giveaway round's, rendered by
the service's templates (``bench/render.py``'s scene), each made unique by its first line.
In a fresh database (made through ``--pg-admin``, dropped after), for each way of storing a
``bytea`` column (in turn, ``--repeat`` times, alternating): ``--rounds`` transactions of one
round's mails each (as the reporting transaction queues them), then every mail read back in
batches of 50 (as the outbox claims them), and the table's size on disk.

Floor: ``none`` (``STORAGE EXTERNAL``: stored as they are, no compression tried). The figures
are medians; the last line printed is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))

from deadline_burst import database
from render import giveaway_scene, round_mails

from adjudicator.mail.compose import Identity, Renderer
from adjudicator.notify.context import ServiceContext

STORAGE = {
    "pglz": "SET COMPRESSION pglz",
    "lz4": "SET COMPRESSION lz4",
    "none": "SET STORAGE EXTERNAL",
}


def store(url: str, method: str, rounds: list[list[bytes]]) -> dict[str, float]:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS mails")
        connection.execute("CREATE TABLE mails (id serial PRIMARY KEY, message bytea NOT NULL)")
        connection.execute(f"ALTER TABLE mails ALTER COLUMN message {STORAGE[method]}")
        started = time.perf_counter()
        with connection.cursor() as cursor:
            for mails in rounds:
                with connection.transaction():
                    cursor.executemany(
                        "INSERT INTO mails (message) VALUES (%s)", [(m,) for m in mails]
                    )
        stored = time.perf_counter() - started
        count = sum(map(len, rounds))
        started = time.perf_counter()
        with connection.cursor() as cursor:
            for first in range(1, count + 1, 50):
                cursor.execute(
                    "SELECT message FROM mails WHERE id >= %s AND id < %s", (first, first + 50)
                )
                cursor.fetchall()
        read = time.perf_counter() - started
        row = connection.execute("SELECT pg_total_relation_size('mails')").fetchone()
        size = row[0] if row else 0
    return {"store_s": stored, "read_s": read, "mb": size / 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--pg-admin", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    args = parser.parse_args()
    ctx = ServiceContext(
        identity=Identity("judge@pbem.test"), renderer=Renderer(), receipt_key=b"k"
    )
    mails = round_mails(ctx, giveaway_scene(6, seed=1), pictures=True)
    rounds = [[b"X-Round: %d\n" % n + mail for mail in mails] for n in range(args.rounds)]
    mean_kb = statistics.mean(map(len, mails)) / 1024
    print(f"{args.rounds} rounds of {len(mails)} result mails, {mean_kb:.1f} KB a mail")
    runs: dict[str, list[dict[str, float]]] = {method: [] for method in STORAGE}
    with tempfile.TemporaryDirectory() as base, database("pg", Path(base), args.pg_admin) as db:
        url = db.replace("postgresql+psycopg://", "postgresql://", 1)  # psycopg's own form
        for _ in range(args.repeat):
            for method in STORAGE:
                runs[method].append(store(url, method, rounds))
    figures: dict[str, object] = {"rounds": args.rounds, "mails": args.rounds * len(mails)}
    figures["mail_kb"] = round(mean_kb, 1)
    for method, results in runs.items():
        medians = {k: round(statistics.median(r[k] for r in results), 3) for k in results[0]}
        figures[method] = medians
        print(
            f"{method:>5}: stored in {medians['store_s']:.2f} s, read back in"
            f" {medians['read_s']:.2f} s, {medians['mb']:.0f} MB on disk"
        )
    floor = runs["none"]
    for method in ("pglz", "lz4"):
        extra = statistics.median(r["store_s"] for r in runs[method]) - statistics.median(
            r["store_s"] for r in floor
        )
        figures[f"{method}_store_over_floor_ms_per_mail"] = round(
            extra / (args.rounds * len(mails)) * 1000, 3
        )
    print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
