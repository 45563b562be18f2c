"""The mail reader over its corpus: orders recovered exactly, lines echoed back wrongly.

Run: .venv/bin/python bench/reader_corpus.py

Every mail of ``tests/mail/corpus/`` (replies in the formats of some sixty mail clients, with
what the player wrote noted when each was made, see ``make_corpus.py``) goes through
``read_mail``, the reader the intake uses. Per mail:

* orders recovered exactly: the lines the reader keeps that read as orders
  (``parse.is_order``) are the player's orders, no more, no fewer, in order;
* lines echoed wrongly: lines the reader keeps that the player did not write (quote,
  signature, footer, disclaimer). A confirmation lists every kept line that is not an order
  as "ignored", so each of these would be shown back to the player;
* quoted orders taken: the service's quoted old orders found among the kept lines (they would
  be applied).

Also the time per mail, with its floor in the same run: the standard library's parser alone
on the same bytes; each is the best of :data:`REPEATS` passes over the corpus, run in turn, so
that a busy machine's pauses do not count. The last line printed is a JSON object with every
figure.

With ``--against REV`` (a commit, a branch), the reader as it was at ``REV`` reads the same
corpus in the same run, its passes taken in turn with today's, so that a change's cost in
speed is seen on one machine at one moment; its orders, echoes and quoted orders over the
same corpus are printed beside today's (``then_*`` in the JSON line):

    .venv/bin/python bench/reader_corpus.py --against main
"""

from __future__ import annotations

import argparse
import email
import gc
import importlib
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from email import policy
from pathlib import Path
from typing import Protocol

from adjudicator.mail.parse import is_order, read_mail

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "mail" / "corpus"
REPEATS = 15


class Read(Protocol):
    """What a reader gives of a mail (``parse.ReadMail``, today's or then)."""

    @property
    def lines(self) -> Sequence[str]: ...


def best_seconds(*functions: Callable[[], object]) -> list[float]:
    """The shortest of :data:`REPEATS` runs of each function, the runs taken in turn, so that
    a busy machine slows each of them alike; in the process's CPU time, so that the time
    other processes take the cores from it does not count."""
    best = [float("inf")] * len(functions)
    for _ in range(REPEATS):
        for index, function in enumerate(functions):
            gc.collect()
            gc.disable()  # as timeit does: a collection falls on whichever pass runs then
            try:
                start = time.process_time()
                function()
                best[index] = min(best[index], time.process_time() - start)
            finally:
                gc.enable()
    return best


def reader_at(revision: str, folder: Path) -> Callable[[bytes], Read]:
    """``read_mail`` as it was at ``revision``: the package taken from git into ``folder``
    under another name (``adjudicator_then``), so that both readers live in one process."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision, "adjudicator"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / "adjudicator_then"
    (folder / "adjudicator").rename(package)
    for source in package.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        source.write_text(re.sub(r"\badjudicator\b(?=[.\s])", "adjudicator_then", text), "utf-8")
    sys.path.insert(0, str(folder))
    read: Callable[[bytes], Read] = importlib.import_module("adjudicator_then.mail.parse").read_mail
    return read


@dataclass
class Score:
    """How a reader did over the corpus (see the module's documentation)."""

    exact: int = 0  # mails whose orders it recovered exactly
    echoed: int = 0  # lines it kept that the player did not write, and no order
    quoted_taken: int = 0  # quoted old orders it kept
    wrong: list[str] = field(default_factory=list)  # the mails not exact


def score(expected: dict[str, dict[str, list[str]]], kept_lines: dict[str, Sequence[str]]) -> Score:
    """The score of the lines a reader kept of each mail."""
    found = Score()
    for name, lines in kept_lines.items():
        case = expected[name]
        kept = [line.strip() for line in lines if line.strip()]
        if [line for line in kept if is_order(line)] == case["orders"]:
            found.exact += 1
        else:
            found.wrong.append(name)
        stray = [line for line in kept if line not in case["text"]]
        found.echoed += len([line for line in stray if not is_order(line)])
        found.quoted_taken += len([line for line in kept if line in case["quoted"]])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--against", metavar="REV", help="also time the reader as it was at REV")
    against = parser.parse_args().against
    expected = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
    mails = {name: (CORPUS / f"{name}.eml").read_bytes() for name in sorted(expected)}
    results = {name: read_mail(raw) for name, raw in mails.items()}
    runs: list[Callable[[], object]] = [
        lambda: [read_mail(raw) for raw in mails.values()],
        lambda: [email.message_from_bytes(raw, policy=policy.compat32) for raw in mails.values()],
    ]
    then_score = Score()
    with tempfile.TemporaryDirectory() as folder:
        if against:
            then = reader_at(against, Path(folder))
            runs.append(lambda: [then(raw) for raw in mails.values()])
            then_score = score(expected, {name: then(raw).lines for name, raw in mails.items()})
        reader_seconds, floor_seconds, *then_seconds = best_seconds(*runs)
    now = score(expected, {name: mail.lines for name, mail in results.items()})
    exact, echoed, quoted_taken, wrong = now.exact, now.echoed, now.quoted_taken, now.wrong
    total = len(mails)
    clients = len({case["client"] for case in expected.values()})
    print(f"corpus: {total} mails in {clients} client formats")
    print(f"orders recovered exactly: {exact}/{total} ({100 * exact / total:.1f}%)")
    print(f"lines echoed wrongly as ignored: {echoed} (over the whole corpus)")
    print(f"quoted old orders kept as new: {quoted_taken}")
    print(
        f"time per mail: reader {1000 * reader_seconds / total:.2f} ms, "
        f"floor (stdlib parse only) {1000 * floor_seconds / total:.2f} ms; "
        f"{total / reader_seconds:.0f} mails a second, "
        f"{reader_seconds / floor_seconds:.1f}x the floor"
    )
    then_figures: dict[str, object] = {}
    if then_seconds:
        then_figures = {
            "against": against,
            "then_ms_per_mail": round(1000 * then_seconds[0] / total, 3),
            "then_mails_per_second": round(total / then_seconds[0]),
            "then_over_floor": round(then_seconds[0] / floor_seconds, 2),
            "then_orders_exact": then_score.exact,
            "then_echoed_wrongly": then_score.echoed,
            "then_quoted_orders_taken": then_score.quoted_taken,
            "then_not_exact": then_score.wrong,
        }
        print(
            f"the reader at {against}: {1000 * then_seconds[0] / total:.2f} ms a mail, "
            f"{total / then_seconds[0]:.0f} mails a second, "
            f"{then_seconds[0] / floor_seconds:.1f}x the floor; orders exact "
            f"{then_score.exact}/{total}, {then_score.echoed} lines echoed wrongly, "
            f"{then_score.quoted_taken} quoted old orders kept"
        )
    if wrong:
        print("orders not recovered exactly:", ", ".join(wrong))
    print(
        json.dumps(
            {
                "mails": total,
                "client_formats": clients,
                "orders_exact": exact,
                "orders_exact_share": round(exact / total, 4),
                "echoed_wrongly": echoed,
                "quoted_orders_taken": quoted_taken,
                "reader_ms_per_mail": round(1000 * reader_seconds / total, 3),
                "floor_ms_per_mail": round(1000 * floor_seconds / total, 3),
                "mails_per_second": round(total / reader_seconds),
                "reader_over_floor": round(reader_seconds / floor_seconds, 2),
                "not_exact": wrong,
                **then_figures,
            }
        )
    )


if __name__ == "__main__":
    main()
