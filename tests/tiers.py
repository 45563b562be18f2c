"""The suite's tiers: which tests the fast tier (``make test-fast``, ``pytest -m "not slow and
not e2e"``) leaves out. tests/conftest.py marks every collected test here; ``make test`` runs
them all."""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).parent

SERVER_FIXTURES = frozenset({"dovecot", "imap_user", "pg_server"})
"""Fixtures that start a real server or need one (Dovecot, PostgreSQL): a test that uses one,
directly or through another fixture, is ``slow``."""

SLOW_MODULES = frozenset(
    {
        # `adjudicate serve` or the command line in subprocesses, or a bench run in full
        "test_serve_pause.py",
        "test_serve_outages.py",
        "test_serve_signals.py",
        "test_outbox_cli.py",
        "test_limits_cli.py",
        "test_reliability_bench.py",
        "test_backup.py",
        "test_backup_postgresql.py",
        "test_deploy.py",
        "test_packaging.py",
        "test_pipe.py",
        "test_upgrades.py",
        "test_collector.py",
        "test_doctor_startup.py",
        "archive/test_archive_cli.py",
        "service/test_workers.py",
        "e2e/test_crash_webhooks.py",  # `serve` killed while it posts to a loopback receiver
        "test_demo.py",  # the real service plays a game of every kind to its end
        # headless Chromium
        "archive/test_accessibility.py",
        "archive/test_archive_chromium.py",
        "service/test_every_mail_readable.py",
    }
)
"""Test modules (relative to tests/) whose tests are ``slow`` for what they start."""


def mark_tiers(items: list[pytest.Item]) -> None:
    """The tiers: a test in tests/e2e/ drives the running service and is marked ``e2e``; a test
    that uses a real server, starts processes or a browser is marked ``slow``. The fast tier
    (``make test-fast``) leaves both out; ``make test`` runs everything."""
    for item in items:
        where = item.path.relative_to(TESTS).as_posix()
        if where.startswith("e2e/"):
            item.add_marker(pytest.mark.e2e)
        if where in SLOW_MODULES or _uses_a_server(item):
            item.add_marker(pytest.mark.slow)


def _uses_a_server(item: pytest.Item) -> bool:
    """Whether the test uses a fixture of :data:`SERVER_FIXTURES`, or is the PostgreSQL case
    of a test parametrized by database (which asks for its fixture while it runs)."""
    if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and "postgresql" in callspec.params.values()
