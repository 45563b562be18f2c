"""The garbage collector of the long-running processes (``garbage_collection.py``): what was
there at the start is frozen, and garbage made afterwards is still collected by itself. Each
check runs in a process of its own: freezing is for the whole interpreter, and this one runs
every test."""

from __future__ import annotations

import platform
import subprocess
import sys
import textwrap

import pytest

from adjudicator.serve.garbage_collection import MALLOC_ARENAS, YOUNG_THRESHOLD


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
        from adjudicator.serve.garbage_collection import settle
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
        from adjudicator.serve.garbage_collection import settle, YOUNG_THRESHOLD
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


ARENAS = """
    import ctypes, os, sys, tempfile, threading
    from adjudicator.serve.garbage_collection import settle
    if sys.argv[1] == "settled":
        settle()
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.fopen.restype = ctypes.c_void_p
    libc.fclose.argtypes = [ctypes.c_void_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    started, done = threading.Barrier(7), threading.Event()

    def allocate():
        libc.malloc(4096)  # each thread's first allocation: glibc picks (or makes) its arena
        started.wait()
        done.wait()

    threads = [threading.Thread(target=allocate) for _ in range(6)]
    for thread in threads:
        thread.start()
    started.wait()  # all six hold their allocation at once
    path = os.path.join(tempfile.mkdtemp(), "info.xml")
    out = libc.fopen(path.encode(), b"w")
    libc.malloc_info(0, out)
    libc.fclose(out)
    done.set()
    for thread in threads:
        thread.join()
    print(open(path).read().count("<heap nr="))
"""


def _heaps(settled: bool) -> int:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(ARENAS), "settled" if settled else "bare"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc arenas")
def test_a_settled_process_keeps_to_a_few_malloc_arenas_however_many_threads_allocate() -> None:
    """glibc gives each thread an arena of its own (up to eight a core) and keeps the memory
    each took; a settled process shares ``MALLOC_ARENAS`` among all its threads."""
    assert _heaps(settled=False) > MALLOC_ARENAS  # the test sees what it is about
    assert _heaps(settled=True) <= MALLOC_ARENAS
