"""``adjudicate doctor`` against real mail servers: Dovecot (STARTTLS on the plain port, implicit
TLS on its own) and aiosmtpd sinks (STARTTLS, implicit TLS, none; AUTH). A working setup is all
ok and sends nothing; each broken mail setting fails with its own words and a fix; ``--send-to``
sends exactly one mail. The checks without servers are in tests/test_doctor.py."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from mailservers import Dovecot, SelfSignedCert, SmtpSink, free_port
from typer.testing import CliRunner

from adjudicator.base.config import load_config
from adjudicator.base.security import load_or_create_key
from adjudicator.cli.main import app
from adjudicator.doctor import FAIL, OK, SKIP, Check, check_imap, check_smtp, run_checks
from adjudicator.mail.imap import ImapPoller, ImapSettings, MemoryCursorStore
from adjudicator.storage.db import make_engine, migrate

Settings = dict[str, object]


@pytest.fixture(autouse=True)
def _trust_the_test_certificate(tls_cert: SelfSignedCert, monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers' certificate is self-signed: trust it as an operator would trust their CA."""
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_cert.cert))
    for name in list(os.environ):
        if name.startswith("ADJUDICATOR_"):
            monkeypatch.delenv(name)


@pytest.fixture
def sink(make_smtp_sink: Callable[..., SmtpSink]) -> SmtpSink:
    return make_smtp_sink(tls="starttls", accounts={"judge": "smtp-pw"})


@pytest.fixture
def imap(dovecot: Dovecot, imap_user: str) -> Settings:
    return {"host": dovecot.host, "port": dovecot.port, "username": imap_user,
            "password": dovecot.password}  # fmt: skip


@pytest.fixture
def smtp(sink: SmtpSink) -> Settings:
    return {"host": sink.host, "port": sink.port, "tls": "starttls", "username": "judge",
            "password": "smtp-pw"}  # fmt: skip


def _write(tmp_path: Path, *, imap: Settings, smtp: Settings) -> Path:
    """A configuration file, with a migrated database and a key: only the mail can be wrong."""

    def table(name: str, values: Settings) -> str:
        lines = [f"[{name}]"]
        for key, value in values.items():
            lines.append(f"{key} = {json.dumps(value)}")
        return "\n".join(lines)

    service = {
        "data_dir": str(tmp_path / "data"),
        "address": "judge@pbem.test",
        "solutions_dir": str(tmp_path / "solutions"),  # none made: skipped, whatever the machine
    }
    path = tmp_path / "adjudicator.toml"
    path.write_text("\n\n".join([table("service", service), table("imap", imap),
                                 table("smtp", smtp)]) + "\n")  # fmt: skip
    path.chmod(0o600)
    config = load_config(path)
    migrate(make_engine(config.database_url))
    load_or_create_key(config.secret_key_path)
    return path


def _named(checks: list[Check], prefix: str) -> list[Check]:
    return [c for c in checks if c.name.startswith(prefix)]


def test_a_working_setup_is_all_ok_and_sends_nothing(
    tmp_path: Path, imap: Settings, smtp: Settings, sink: SmtpSink
) -> None:
    path = _write(tmp_path, imap=imap, smtp=smtp)
    checks = list(run_checks(path))
    assert [c for c in checks if c.status not in (OK, SKIP)] == []
    written = ["data folder", "Maildir", "archive", "solutions"]  # every folder it writes
    assert [c.name.split(" 127.0.0.1")[0] for c in checks if c.status == OK] == [
        "configuration", "logging", *written, "database", "key file", "IMAP", "SMTP",
    ]  # fmt: skip
    assert f"logged in as {imap['username']}" in _named(checks, "IMAP")[0].message
    assert "connected (starttls TLS), logged in as judge" in _named(checks, "SMTP")[0].message
    result = CliRunner().invoke(app, ["--config", str(path), "doctor"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "everything is ready"
    assert sink.received == []  # the SMTP session ended with the check: nothing can be pending


def test_implicit_tls_on_both_sides_is_ok(
    tmp_path: Path,
    dovecot: Dovecot,
    imap: Settings,
    make_smtp_sink: Callable[..., SmtpSink],
) -> None:
    implicit = make_smtp_sink(tls="implicit", accounts={"judge": "smtp-pw"})
    imap |= {"port": dovecot.tls_port, "ssl": True}
    smtp = {"host": implicit.host, "port": implicit.port, "tls": "implicit",
            "username": "judge", "password": "smtp-pw"}  # fmt: skip
    config = load_config(_write(tmp_path, imap=imap, smtp=smtp))
    assert [c.status for c in check_imap(config)] == [OK]
    (check,) = check_smtp(config, send_to=None)
    assert check.status == OK, check
    assert "implicit TLS" in check.message


def test_send_to_sends_exactly_one_test_mail(
    tmp_path: Path, imap: Settings, smtp: Settings, sink: SmtpSink
) -> None:
    path = _write(tmp_path, imap=imap, smtp=smtp)
    result = CliRunner().invoke(
        app, ["doctor", "--config", str(path), "--send-to", "gm@example.org", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["ok"] is True
    (mail,) = sink.wait_for(1)
    assert list(mail.rcpt_tos) == ["gm@example.org"]
    assert mail.mail_from == "judge@pbem.test"
    assert len(sink.received) == 1
    smtp_check = next(c for c in report["checks"] if c["name"].startswith("SMTP"))
    assert "one test mail sent to gm@example.org" in smtp_check["message"]


@pytest.mark.parametrize(
    ("breakage", "words", "fix"),
    [
        ("imap password", "login failed: [AUTHENTICATIONFAILED]", "ADJUDICATOR_IMAP_PASSWORD"),
        ("imap port", "cannot connect: ", "imap.port"),
        ("imap ssl on the plain port", "cannot connect: ", "speak TLS"),
        ("imap folder", "cannot select the folder 'Orders'", "INBOX"),
        ("smtp password", "login failed: (535", "ADJUDICATOR_SMTP_PASSWORD"),
        ("smtp port", "connect failed: ", "smtp.port"),
        ("smtp without tls", "no TLS: the server does not offer STARTTLS", "587"),
        ("smtp sender refused", "send failed: (553", "service.address"),
    ],
)
def test_each_broken_mail_setting_fails_with_its_own_words_and_a_fix(
    tmp_path: Path, request: pytest.FixtureRequest, breakage: str, words: str, fix: str
) -> None:
    imap: Settings = request.getfixturevalue("imap")
    smtp: Settings = request.getfixturevalue("smtp")
    sink: SmtpSink = request.getfixturevalue("sink")
    make_smtp_sink: Callable[..., SmtpSink] = request.getfixturevalue("make_smtp_sink")
    send_to = None
    if breakage == "imap password":
        imap["password"] = "wrong"
    elif breakage == "imap port":
        imap["port"] = free_port()  # nothing listens there
    elif breakage == "imap ssl on the plain port":
        imap["ssl"] = True
    elif breakage == "imap folder":
        imap["folder"] = "Orders"
    elif breakage == "smtp password":
        smtp["password"] = "wrong"
    elif breakage == "smtp port":
        smtp["port"] = free_port()
    elif breakage == "smtp without tls":
        smtp["port"] = make_smtp_sink(accounts={"judge": "smtp-pw"}).port  # no STARTTLS
    else:
        sink.refuse("mail", "553 5.7.1 Sender address rejected: not owned by user judge")
        send_to = "gm@example.org"
    path = _write(tmp_path, imap=imap, smtp=smtp)
    checks = list(run_checks(path, send_to=send_to))
    failed = [c for c in checks if c.status == FAIL]
    assert [c.name.split()[0] for c in failed] == [breakage.split(maxsplit=1)[0].upper()], checks
    assert words in failed[0].message
    assert fix in failed[0].fix
    assert sink.received == []
    args = ["--config", str(path), "doctor", *(["--send-to", send_to] if send_to else [])]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert f"fix: {failed[0].fix}" in result.output


def test_a_processed_folder_not_made_yet_is_fine(tmp_path: Path, imap: Settings) -> None:
    """The service creates imap.processed_folder when it connects (mail/imap.py)."""
    imap["processed_folder"] = "Processed"
    config = load_config(_write(tmp_path, imap=imap, smtp={}))
    checks = check_imap(config)
    assert [c.status for c in checks] == [OK, OK]
    assert "the service creates it" in checks[1].message


def test_a_plain_port_offering_starttls_with_an_untrusted_certificate_passes_as_the_service_connects(
    tmp_path: Path, imap: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """deploy/MAIL.md's own Dovecot on Debian: port 143, STARTTLS offered with the stock
    self-signed certificate, ``imap.ssl = false``. The service logs in without STARTTLS and
    reads the folder; doctor once tried STARTTLS, failed on the certificate, and said the
    setup that works was broken. It must try what the service does."""
    monkeypatch.delenv("SSL_CERT_FILE")  # the certificate is trusted by nobody here
    config = load_config(_write(tmp_path, imap=imap, smtp={}))
    service = ImapSettings(
        host=config.imap.host,
        port=config.imap.port,
        username=config.imap.username,
        password=config.imap.password,
    )
    poller = ImapPoller(service, cursors=MemoryCursorStore(), handle=lambda ref, raw: None)
    try:
        assert poller.run_once() == 0  # the service connects, logs in and reads
    finally:
        poller.close()
    checks = check_imap(config)
    assert [c.status for c in checks] == [OK], checks
    assert f"logged in as {imap['username']}" in checks[0].message
