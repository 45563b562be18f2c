"""Fixtures for the mail tests: a real Dovecot, aiosmtpd sinks and a self-signed certificate.

The servers themselves are in tests/mailservers.py, importable from any test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mailservers import (
    Dovecot,
    SelfSignedCert,
    SmtpSink,
    make_self_signed_cert,
    running_dovecot,
    start_smtp_sink,
)


@pytest.fixture(scope="session")
def dovecot(tls_cert: SelfSignedCert) -> Iterator[Dovecot]:
    """One Dovecot for the whole session (stopping one takes a second); any user name logs in
    with password "secret", so take a fresh ``imap_user`` per test. Plain IMAP on ``port``
    (STARTTLS offered), implicit TLS on ``tls_port`` with ``tls_cert``."""
    with running_dovecot(cert=tls_cert) as server:
        yield server


@pytest.fixture
def imap_user(dovecot: Dovecot) -> str:
    """A user (hence a mailbox) that no other test sees."""
    return dovecot.new_user()


@pytest.fixture(scope="session")
def tls_cert(tmp_path_factory: pytest.TempPathFactory) -> SelfSignedCert:
    return make_self_signed_cert(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def make_smtp_sink(tls_cert: SelfSignedCert) -> Iterator[Callable[..., SmtpSink]]:
    """``make_smtp_sink(tls="starttls", accounts={"judge": "pw"}, require_auth=True)``: start
    a sink of the wanted kind; all are stopped after the test."""
    sinks: list[SmtpSink] = []

    def make(**options: Any) -> SmtpSink:
        if options.get("tls", "none") != "none":
            options.setdefault("cert", tls_cert)
        sink = start_smtp_sink(**options)
        sinks.append(sink)
        return sink

    yield make
    for sink in sinks:
        sink.stop()


@pytest.fixture
def smtp_sink(make_smtp_sink: Callable[..., SmtpSink]) -> SmtpSink:
    """A plain SMTP sink that accepts everything."""
    return make_smtp_sink()


@pytest.fixture
def maildir(tmp_path: Path) -> Path:
    return tmp_path / "Maildir"
