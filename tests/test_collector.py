"""The collector of the long-running processes (``collector.py``): what was there at the start
is frozen, and garbage made afterwards is still collected by itself. Each check runs in a
process of its own: freezing is for the whole interpreter, and this one runs every test."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from adjudicator.collector import YOUNG_THRESHOLD


def _run(script: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_what_was_there_at_the_start_is_left_out_of_later_collections() -> None:
    out = _run(
        """
        import gc
        from adjudicator.collector import settle
        kept = [[] for _ in range(100)]
        settle()
        tracked = {id(o) for o in gc.get_objects()}
        print(gc.get_freeze_count() > 0, id(kept) in tracked, gc.get_threshold()[0])
        """
    )
    assert out == f"True False {YOUNG_THRESHOLD}"


def test_garbage_made_afterwards_is_collected_without_being_asked() -> None:
    """A cycle made after ``settle`` is freed by the collector's own young collections (no
    ``gc.collect``), once enough new containers were made: nothing made later leaks."""
    out = _run(
        """
        import gc, weakref
        from adjudicator.collector import settle, YOUNG_THRESHOLD
        settle()

        class Node:
            pass

        def cycle():
            a, b = Node(), Node()
            a.other, b.other = b, a
            return weakref.ref(a)

        gone = cycle()
        alive_before = gone() is not None
        kept = [[] for _ in range(3 * YOUNG_THRESHOLD)]
        print(gc.isenabled(), alive_before, gone() is None)
        """
    )
    assert out == "True True True"
