"""``adjudicate doctor`` against a working setup (real Dovecot with STARTTLS, a real SMTP server
with STARTTLS and a login, a migrated database, a key) and against each way it breaks: every
broken setup fails with its own message and a fix, and nothing is sent unless asked."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from mailservers import Dovecot, SelfSignedCert, SmtpSink, free_port
from typer.testing import CliRunner

from adjudicator.cli import app
from adjudicator.config import load_config
from adjudicator.doctor import FAIL, OK, SKIP, WARN, Check, check_dns, run_checks
from adjudicator.security import load_or_create_key
from adjudicator.storage.db import make_engine, migrate


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


def _write(tmp_path: Path, *, imap: dict[str, object], smtp: dict[str, object]) -> Path:
    def table(name: str, values: dict[str, object]) -> str:
        lines = [f"[{name}]"]
        for key, value in values.items():
            shown = str(value).lower() if isinstance(value, bool) else value
            lines.append(f"{key} = {json.dumps(shown) if isinstance(shown, str) else shown}")
        return "\n".join(lines)

    data = tmp_path / "data"
    service = {"data_dir": str(data), "address": "judge@pbem.test"}
    path = tmp_path / "adjudicator.toml"
    path.write_text(
        "\n\n".join([table("service", service), table("imap", imap), table("smtp", smtp)]) + "\n"
    )
    path.chmod(0o600)
    return path


def _ready(path: Path) -> None:
    config = load_config(path)
    migrate(make_engine(config.database_url))
    load_or_create_key(config.secret_key_path)


@pytest.fixture
def working(tmp_path: Path, dovecot: Dovecot, imap_user: str, sink: SmtpSink) -> Path:
    path = _write(
        tmp_path,
        imap={"host": dovecot.host, "port": dovecot.port, "username": imap_user,
              "password": dovecot.password},
        smtp={"host": sink.host, "port": sink.port, "tls": "starttls", "username": "judge",
              "password": "smtp-pw"},
    )  # fmt: skip
    _ready(path)
    return path


def _by_name(checks: list[Check], prefix: str) -> list[Check]:
    return [c for c in checks if c.name.startswith(prefix)]


def test_a_working_setup_is_all_ok_and_sends_nothing(working: Path, sink: SmtpSink) -> None:
    checks = list(run_checks(working))
    assert [c for c in checks if c.status not in (OK, SKIP)] == []
    assert {c.name.split()[0] for c in checks if c.status == OK} >= {
        "configuration", "database", "key", "IMAP", "SMTP",
    }  # fmt: skip
    assert "logged in as judge" in _by_name(checks, "SMTP")[0].message
    assert sink.received == []
    result = CliRunner().invoke(app, ["--config", str(working), "doctor"])
    assert result.exit_code == 0, result.output
    assert "everything is ready" in result.output


def test_send_to_sends_exactly_one_test_mail(working: Path, sink: SmtpSink) -> None:
    result = CliRunner().invoke(
        app, ["--config", str(working), "doctor", "--send-to", "gm@example.org", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["ok"] is True
    (mail,) = sink.wait_for(1)
    assert list(mail.rcpt_tos) == ["gm@example.org"]
    assert len(sink.received) == 1


@pytest.mark.parametrize(
    ("breakage", "check", "words"),
    [
        ("imap password", "IMAP", "AUTHENTICATIONFAILED"),
        ("imap port", "IMAP", "cannot connect"),
        ("smtp password", "SMTP", "535"),
        ("smtp without tls", "SMTP", "no TLS"),
    ],
)
def test_each_broken_mail_setting_fails_with_its_own_words_and_a_fix(
    tmp_path: Path, request: pytest.FixtureRequest, breakage: str, check: str, words: str
) -> None:
    dovecot: Dovecot = request.getfixturevalue("dovecot")
    imap_user: str = request.getfixturevalue("imap_user")
    make_smtp_sink: Callable[..., SmtpSink] = request.getfixturevalue("make_smtp_sink")
    plain = make_smtp_sink(accounts={"judge": "smtp-pw"})  # offers no STARTTLS
    secure = make_smtp_sink(tls="starttls", accounts={"judge": "smtp-pw"})
    imap = {"host": dovecot.host, "port": dovecot.port, "username": imap_user,
            "password": dovecot.password}  # fmt: skip
    smtp = {"host": secure.host, "port": secure.port, "tls": "starttls", "username": "judge",
            "password": "smtp-pw"}  # fmt: skip
    if breakage == "imap password":
        imap["password"] = "wrong"
    elif breakage == "imap port":
        imap["port"] = free_port()
    elif breakage == "smtp password":
        smtp["password"] = "wrong"
    else:
        smtp["port"] = plain.port
    path = _write(tmp_path, imap=imap, smtp=smtp)
    _ready(path)
    checks = list(run_checks(path))
    failed = [c for c in checks if c.status == FAIL]
    assert [c.name.split()[0] for c in failed] == [check], checks
    assert words in failed[0].message
    assert failed[0].fix
    result = CliRunner().invoke(app, ["--config", str(path), "doctor"])
    assert result.exit_code == 1


def test_a_missing_key_an_old_schema_and_a_bad_value_each_fail(tmp_path: Path) -> None:
    path = _write(tmp_path, imap={}, smtp={})
    checks = list(run_checks(path))
    database = _by_name(checks, "database")[0]
    assert database.status == FAIL
    assert "adjudicate init" in database.fix
    assert _by_name(checks, "key")[0].status == FAIL

    config = load_config(path)
    migrate(make_engine(config.database_url), "0001")  # an older version's schema
    load_or_create_key(config.secret_key_path)
    checks = list(run_checks(path))
    database = _by_name(checks, "database")[0]
    assert database.status == FAIL
    assert "the schema is at revision 0001" in database.message
    assert _by_name(checks, "key")[0].status == OK
    assert {c.status for c in _by_name(checks, "IMAP") + _by_name(checks, "SMTP")} == {SKIP}

    config.secret_key_path.chmod(0o644)
    assert _by_name(list(run_checks(path)), "key")[0].status == WARN

    path.write_text(path.read_text().replace("[smtp]", '[smtp]\ntls = "sometimes"'))
    bad = [c for c in run_checks(path) if c.status == FAIL and "smtp.tls" in c.message]
    assert bad
    assert "starttls" in bad[0].fix


def test_dns_of_a_public_domain_is_looked_up_and_missing_records_explained() -> None:
    from adjudicator.config import Config, ServiceConfig

    config = Config(service=ServiceConfig(address="judge@games.example.net"))
    records = {("games.example.net", "MX"): ["10 mx.games.example.net."]}

    def resolve(name: str, kind: str) -> list[str]:
        return records.get((name, kind), [])

    checks = check_dns(config, lookup=resolve)
    assert [c.status for c in checks] == [OK, WARN, WARN]
    assert "SPF" in checks[1].message
    assert "v=spf1" in checks[1].fix
    assert "_dmarc.games.example.net" in checks[2].fix
    records[("games.example.net", "MX")] = []
    assert check_dns(config, lookup=resolve)[0].status == FAIL
    local = Config(service=ServiceConfig(address="judge@localhost"))
    assert [c.status for c in check_dns(local, lookup=resolve)] == [SKIP]
