"""Claims (``storage/claims.py``): one holder at a time, whether the other claimant is a thread,
a process or another instance, and a claim ends with its holder, even one killed outright."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from playing import poll
from sqlalchemy.engine import Engine

from adjudicator.storage.claims import claimed
from adjudicator.storage.db import make_engine

ROUND = 17


def _claim_now(engine: Engine, key: int = ROUND) -> bool:
    with claimed(engine, key) as mine:
        return mine


def _engine(database: str, tmp_path: Path, request: pytest.FixtureRequest) -> Engine:
    if database == "postgresql":
        engine: Engine = request.getfixturevalue("pg_engine")
        return engine
    engine = make_engine(
        "sqlite:///:memory:" if database == "memory" else f"sqlite:///{tmp_path / 'c.db'}"
    )
    request.addfinalizer(engine.dispose)
    return engine


@pytest.mark.parametrize("database", ["sqlite", "memory", "postgresql"])
def test_a_claim_has_one_holder_among_threads_until_it_is_given_back(
    database: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    engine = _engine(database, tmp_path, request)
    held, release = threading.Event(), threading.Event()
    outcome: list[bool] = []

    def holder() -> None:
        with claimed(engine, ROUND) as mine:
            outcome.append(mine)
            held.set()
            release.wait(30)

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert held.wait(30)
        assert outcome == [True]
        assert not _claim_now(engine), "a second thread got a claim that is held"
        assert _claim_now(engine, ROUND + 1), "another round's claim is free"
    finally:
        release.set()
        thread.join(30)
    assert _claim_now(engine), "the claim was not given back"
    assert _claim_now(engine), "a claim given back is free again, and again"


def test_engines_on_one_sqlite_file_share_its_claims(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    first, second = make_engine(url), make_engine(url)
    try:
        with claimed(first, ROUND) as mine:
            assert mine
            assert not _claim_now(second)
        assert _claim_now(second)
    finally:
        first.dispose()
        second.dispose()


HOLDER = textwrap.dedent(
    """
    import sys
    from adjudicator.storage.claims import claimed
    from adjudicator.storage.db import make_engine

    engine = make_engine(sys.argv[1])
    with claimed(engine, int(sys.argv[2])) as mine:
        print("held" if mine else "refused", flush=True)
        sys.stdin.read()  # until killed
    """
)


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_claim_held_by_another_process_is_left_and_ends_when_that_process_is_killed(
    database: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    engine = _engine(database, tmp_path, request)
    url = engine.url.render_as_string(hide_password=False)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, url, str(ROUND)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    try:
        assert holder.stdout is not None
        ready, _, _ = select.select([holder.stdout], [], [], 60)
        assert ready, "the other process never said whether it holds the claim"
        assert holder.stdout.readline().strip() == b"held"
        assert not _claim_now(engine), "a claim another process holds was taken"
        assert _claim_now(engine, ROUND + 1)
        holder.send_signal(signal.SIGKILL)  # no chance to give it back
        holder.wait(30)
        assert poll(lambda: _claim_now(engine), timeout=30), "the claim outlived its holder"
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(30)
