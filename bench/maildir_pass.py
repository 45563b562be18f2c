"""One pass of the Maildir reader over a Maildir whose cur/ holds a long history, against its floor.

Run: .venv/bin/python bench/maildir_pass.py [--handled 100000] [--passes 200]

A service reading a Maildir (mail delivered by a mail server or ``adjudicate receive``) moves
every mail it handled into ``cur/``, which keeps them: a year of a busy service is about
100,000 files. The service reads the folder on each delivery and at each tick of its main loop.

1. Setup: a Maildir whose ``cur/`` holds ``--handled`` handled files (``:2,S``).
2. Idle pass (nothing new; the service's tick): ``MaildirReader.run_once``, median of
   ``--passes``.
3. Pass listing ``cur/``: the same, with the reader's knowledge of ``cur/`` dropped before each
   pass, so it lists the folder, as every pass did before it kept that knowledge.
4. Pass with one new mail (a delivery wakes the service): a mail delivered into ``new/``, then
   timed: the pass that hands it over (to a handler that does nothing) and marks it handled.
   Floor, same run: the bare work such a pass cannot avoid, timed the same way: list ``new/``,
   read the file, rename it into ``cur/``.

The last line printed is a JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from adjudicator.mail.maildir import MaildirReader, deliver, ensure_maildir

MAIL = b"Subject: orders\r\n\r\nGIVE 3 TO bob\r\n"


def fill(maildir: Path, handled: int) -> None:
    cur, start = maildir / "cur", int(time.time()) - handled
    for n in range(handled):  # named as a delivery agent names them, a second apart
        (cur / f"{start + n}.M000000P1Q{n}.bench.example:2,S").write_bytes(MAIL)


def median_ms(samples: list[float]) -> float:
    return round(1000 * statistics.median(samples), 3)


def timed(passes: int, before: Callable[[], object], step: Callable[[], object]) -> list[float]:
    samples = []
    for _ in range(passes):
        before()
        started = time.perf_counter()
        step()
        samples.append(time.perf_counter() - started)
    return samples


def floor_pass(maildir: Path) -> None:
    """What a pass handing over one new mail must do at least."""
    for name in os.listdir(maildir / "new"):
        path = maildir / "new" / name
        path.read_bytes()
        os.rename(path, maildir / "cur" / f"{name}:2,S")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--handled", type=int, default=100_000)
    parser.add_argument("--passes", type=int, default=200)
    args = parser.parse_args()
    maildir = ensure_maildir(Path(tempfile.mkdtemp(prefix="maildir-pass-")))
    try:
        started = time.perf_counter()
        fill(maildir, args.handled)
        took = time.perf_counter() - started
        print(f"setup: {args.handled} handled files in cur/ in {took:.1f} s")

        def handle(raws: list[bytes], arrived: list[datetime]) -> None:
            pass

        reader = MaildirReader(maildir, handle_batch=handle)
        reader.run_once()  # the first look at cur/

        def forget() -> None:
            reader._cur_known = None  # the pass as it was before it knew

        def one_new() -> None:
            deliver(maildir, MAIL)

        figures = {
            "handled_in_cur": args.handled,
            "idle_pass_ms": median_ms(timed(args.passes, lambda: None, reader.run_once)),
            "listing_pass_ms": median_ms(timed(args.passes, forget, reader.run_once)),
            "new_mail_pass_ms": median_ms(timed(args.passes, one_new, reader.run_once)),
            "floor_new_mail_ms": median_ms(
                timed(args.passes, one_new, lambda: floor_pass(maildir))
            ),
        }
    finally:
        shutil.rmtree(maildir)
    figures["new_mail_over_floor"] = round(
        figures["new_mail_pass_ms"] / figures["floor_new_mail_ms"], 2
    )
    print(
        f"idle pass {figures['idle_pass_ms']} ms; a pass that lists cur/"
        f" {figures['listing_pass_ms']} ms; a pass with one new mail"
        f" {figures['new_mail_pass_ms']} ms against a floor of {figures['floor_new_mail_ms']} ms"
        f" ({figures['new_mail_over_floor']} times)"
    )
    print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())
