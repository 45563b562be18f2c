"""``adjudicate doctor``, the checks that need no mail server: the configuration, the database
and its schema (on SQLite and on PostgreSQL), the key file and the DNS. Each broken setup fails
with its own message and a fix; the mail servers are in tests/mail/test_doctor_servers.py."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from needs import require_extra
from typer.testing import CliRunner

from adjudicator.base.config import Config, ServiceConfig, load_config
from adjudicator.cli.main import app
from adjudicator.doctor import (
    FAIL,
    OK,
    SKIP,
    WARN,
    Check,
    check_configuration,
    check_database,
    check_dns,
    check_key,
    check_paths,
    check_solutions,
    dns_lookup,
    run_checks,
)
from adjudicator.games.three_musketeers.kind import KIND as THREE_MUSKETEERS
from adjudicator.storage.db import alembic_config, make_engine, migrate


@pytest.fixture(autouse=True)
def _no_outside_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("ADJUDICATOR_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def _write(tmp_path: Path, text: str = "", *, mode: int = 0o600) -> Path:
    path = tmp_path / "adjudicator.toml"
    service = f'[service]\ndata_dir = "{tmp_path / "data"}"\naddress = "judge@pbem.test"\n'
    path.write_text(service + text)
    path.chmod(mode)
    return path


def _only(checks: list[Check], name: str) -> Check:
    (found,) = [c for c in checks if c.name == name]
    return found


def _doctor(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output


# --- the whole command --------------------------------------------------------------------


def test_init_makes_a_local_setup_ready(tmp_path: Path) -> None:
    """No mail servers, no public domain: after `adjudicate init` every line is ok or skip."""
    path = _write(tmp_path)
    code, output = _doctor("--config", str(path), "doctor")
    assert code == 1
    assert "run `adjudicate init`" in output

    assert CliRunner().invoke(app, ["--config", str(path), "init"]).exit_code == 0
    key = tmp_path / "data" / "secret.key"
    assert key.stat().st_mode & 0o777 == 0o600  # init creates the key, private
    code, output = _doctor("doctor", "--config", str(path))  # --config after the command too
    assert code == 0, output
    assert output.splitlines()[-1] == "everything is ready"
    # A status is right-aligned in the first four columns; a fix below a line is indented.
    statuses = [line[:4].strip() for line in output.splitlines()[:-1] if line[:4].strip()]
    assert set(statuses) <= {OK, SKIP}
    assert any("Maildir" in line for line in output.splitlines() if "IMAP" in line)
    assert any("outbox-maildir" in line for line in output.splitlines() if "SMTP" in line)


def test_json_lists_every_check_with_status_message_and_fix(tmp_path: Path) -> None:
    path = _write(tmp_path)
    code, output = _doctor("--config", str(path), "doctor", "--json")
    assert code == 1
    report = json.loads(output)
    assert report["ok"] is False
    names = [c["name"] for c in report["checks"]]
    assert names[:3] == ["configuration", "logging", "data folder"]
    assert {"Maildir", "archive", "outbox Maildir"} <= set(names)  # every folder it writes
    assert names.index("database") + 1 == names.index("key file")
    assert all(set(c) == {"name", "status", "message", "fix"} for c in report["checks"])
    database = report["checks"][names.index("database")]
    assert database["status"] == FAIL
    assert "adjudicate init" in database["fix"]


# --- configuration ------------------------------------------------------------------------


def test_a_value_load_config_refuses_stops_the_checks_and_names_the_key(tmp_path: Path) -> None:
    path = _write(tmp_path, '[smtp]\nport = "twenty-five"\n')
    checks = list(run_checks(path))
    assert [(c.name, c.status) for c in checks] == [("configuration", FAIL)]
    assert "smtp.port" in checks[0].message
    assert str(path) in checks[0].fix
    assert _doctor("--config", str(path), "doctor")[0] == 1


def test_a_bad_environment_variable_is_named_in_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADJUDICATOR_IMAP_SSL", "perhaps")
    (check,) = list(run_checks(_write(tmp_path)))
    assert check.status == FAIL
    assert "ADJUDICATOR_IMAP_SSL" in check.fix


def test_a_missing_configuration_file_says_where_an_example_is(tmp_path: Path) -> None:
    (check,) = list(run_checks(tmp_path / "nowhere.toml"))
    assert check.status == FAIL
    assert "nowhere.toml" in check.message
    assert "adjudicator.example.toml" in check.fix


@pytest.mark.parametrize(
    ("setting", "words", "fix"),
    [
        ("smtp.tls=sometimes", "smtp.tls is 'sometimes'", "ADJUDICATOR_SMTP_TLS"),
        ("service.address=judge at pbem", "not a mail address", "ADJUDICATOR_ADDRESS"),
        ("service.address=Judge <judge@pbem.test>", "not a mail address", "service.name"),
        ("service.archive_url=ftp://pbem.test/", "not an http(s) address", "ARCHIVE_URL"),
        ("service.archive_url=https:/games", "not an http(s) address", "ARCHIVE_URL"),
    ],
)
def test_each_bad_value_fails_with_the_key_that_fixes_it(
    tmp_path: Path, setting: str, words: str, fix: str
) -> None:
    name, value = setting.split("=", 1)
    table, key = name.split(".")
    tables: dict[str, dict[str, str]] = {"service": {"address": "judge@pbem.test"}}
    tables.setdefault(table, {})[key] = value
    path = tmp_path / "adjudicator.toml"
    path.write_text(
        "".join(
            f"[{name}]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items())
            for name, values in tables.items()
        )
    )
    config, checks = check_configuration(path)
    assert config is not None
    failed = [c for c in checks if c.status == FAIL]
    assert len(failed) == 1, checks
    assert words in failed[0].message
    assert fix in failed[0].fix


def test_a_data_folder_that_is_a_file_fails(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("not a folder")
    folder = _only(list(run_checks(_write(tmp_path))), "data folder")
    assert folder.status == FAIL
    assert "is not a folder" in folder.message
    assert "ADJUDICATOR_DATA_DIR" in folder.fix


def test_a_data_folder_not_made_yet_is_fine_when_it_can_be_made(tmp_path: Path) -> None:
    path = tmp_path / "adjudicator.toml"
    path.write_text(f'[service]\ndata_dir = "{tmp_path / "a" / "b" / "data"}"\n')
    folder = _only(list(run_checks(path)), "data folder")
    assert folder.status == OK
    assert "adjudicate init" in folder.message


def test_a_world_readable_file_with_a_password_is_a_warning(tmp_path: Path) -> None:
    path = _write(tmp_path, '[smtp]\npassword = "hunter2"\n', mode=0o644)
    _, checks = check_configuration(path)
    warning = [c for c in checks if c.status == WARN]
    assert len(warning) == 1
    assert "passwords" in warning[0].message
    assert f"chmod 600 {path}" in warning[0].fix
    path.chmod(0o640)  # readable by the service's group only: fine
    assert all(c.status == OK for c in check_configuration(path)[1])
    path.write_text(path.read_text().replace("hunter2", ""))
    path.chmod(0o644)  # no password in it: fine
    assert all(c.status == OK for c in check_configuration(path)[1])


# --- database -----------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'check.db'}"
    else:
        yield request.getfixturevalue("pg_url")


def _config(url: str, tmp_path: Path) -> Config:
    return Config(service=ServiceConfig(data_dir=str(tmp_path / "data"), database_url=url))


def test_an_empty_database_fails_with_run_init(database_url: str, tmp_path: Path) -> None:
    config = _config(database_url, tmp_path)
    if database_url.startswith("sqlite"):
        make_engine(database_url).connect().close()  # the file exists, with no schema
    check = check_database(config)
    assert check.status == FAIL
    assert "no schema" in check.message
    assert "run `adjudicate init`" in check.fix


def test_an_older_schema_fails_with_both_revisions_and_back_up_then_migrate(
    database_url: str, tmp_path: Path
) -> None:
    engine = make_engine(database_url)
    newest = ScriptDirectory.from_config(alembic_config(engine)).get_current_head()
    assert newest is not None
    assert newest != "0001"
    migrate(engine, "0001")
    head = check_database(_config(database_url, tmp_path))
    assert head.status == FAIL
    assert f"the schema is at revision 0001, this version needs {newest}" in head.message
    assert "adjudicate backup FILE" in head.fix
    assert "then run `adjudicate migrate`" in head.fix
    migrate(engine)
    engine.dispose()
    ready = check_database(_config(database_url, tmp_path))
    assert ready.status == OK
    assert newest in ready.message


def test_a_schema_from_a_newer_version_is_told_apart(database_url: str, tmp_path: Path) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    engine.dispose()
    check = check_database(_config(database_url, tmp_path))
    assert check.status == FAIL
    assert "does not know" in check.message


def test_a_stamped_base_is_an_empty_schema(database_url: str, tmp_path: Path) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    command.stamp(alembic_config(engine), "base")
    engine.dispose()
    assert "no schema" in check_database(_config(database_url, tmp_path)).message


def test_a_database_server_nobody_listens_on_cannot_be_connected(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql://judge:s3cret@127.0.0.1:{port}/adjudicator"
    check = check_database(_config(url, tmp_path))
    assert check.status == FAIL
    assert check.message.startswith(f"cannot connect to postgresql://judge:***@127.0.0.1:{port}/")
    assert "s3cret" not in check.message
    assert "ADJUDICATOR_DATABASE_URL" in check.fix


# --- key file -----------------------------------------------------------------------------


def test_the_key_file_is_checked_for_presence_form_and_privacy(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path))
    key = config.secret_key_path
    missing = check_key(config)
    assert missing.status == FAIL
    assert "no key at" in missing.message
    assert "adjudicate init" in missing.fix
    assert "ADJUDICATOR_SECRET_KEY_FILE" in missing.fix

    key.parent.mkdir(parents=True)
    key.write_text("not a key\n")
    key.chmod(0o600)
    assert "does not hold a key" in check_key(config).message
    key.write_text("")
    assert "is empty" in check_key(config).message

    key.write_text("0123456789abcdef" * 4 + "\n")
    assert check_key(config).status == OK
    key.chmod(0o644)
    shared = check_key(config)
    assert shared.status == WARN
    assert "0644" in shared.message
    assert shared.fix == f"chmod 600 {key.absolute()}"


# --- DNS ----------------------------------------------------------------------------------


def _address(address: str) -> Config:
    return Config(service=ServiceConfig(address=address))


def test_dns_of_a_public_domain_is_looked_up_and_missing_records_explained() -> None:
    records = {("games.example.net", "MX"): ["10 mx.games.example.net."]}

    def lookup(name: str, kind: str) -> list[str]:
        return records.get((name, kind), [])

    config = _address("judge@games.example.net")
    checks = check_dns(config, lookup=lookup)
    assert [c.status for c in checks] == [OK, WARN, WARN]
    assert "SPF" in checks[1].message
    assert "spam" in checks[1].message
    assert "v=spf1" in checks[1].fix
    assert "DMARC" in checks[2].message
    assert "_dmarc.games.example.net" in checks[2].fix

    records[("games.example.net", "TXT")] = ["v=spf1 mx -all"]
    records[("_dmarc.games.example.net", "TXT")] = ["v=DMARC1; p=none"]
    assert [c.status for c in check_dns(config, lookup=lookup)] == [OK]

    records[("games.example.net", "MX")] = []
    records[("games.example.net", "AAAA")] = ["2001:db8::1"]
    assert check_dns(config, lookup=lookup)[0].status == OK  # mail goes to the address
    records[("games.example.net", "AAAA")] = []
    none = check_dns(config, lookup=lookup)[0]
    assert none.status == FAIL
    assert "no MX, A or AAAA record" in none.message
    records[("games.example.net", "MX")] = ["0 ."]
    assert "null MX" in check_dns(config, lookup=lookup)[0].message


@pytest.mark.parametrize(
    "address",
    ["judge@localhost", "judge@pbem.test", "judge@pbem.example", "judge@x.invalid",
     "judge@box.localhost", "judge@[127.0.0.1]", "judge@[::1]"],
)  # fmt: skip
def test_dns_is_skipped_for_local_and_reserved_names(address: str) -> None:
    def lookup(name: str, kind: str) -> list[str]:
        raise AssertionError(f"looked up {name} {kind}")

    (check,) = check_dns(_address(address), lookup=lookup)
    assert check.status == SKIP


def test_a_resolver_that_does_not_answer_is_a_warning_not_a_crash() -> None:
    require_extra("dns.resolver", package="dnspython", extra="dns")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))  # bound, never read: every query times out
        lookup = dns_lookup(["127.0.0.1"], port=silent.getsockname()[1], lifetime=0.3)
        (check,) = check_dns(_address("judge@games.example.net"), lookup=lookup)
    assert check.status == WARN
    assert check.message.startswith("could not check DNS: ")
    assert "resolv.conf" in check.fix


# --- solutions ----------------------------------------------------------------------------


def test_a_solution_not_made_yet_is_no_problem_and_says_how_to_make_it(tmp_path: Path) -> None:
    config = Config(service=ServiceConfig(solutions_dir=str(tmp_path / "solutions")))
    (check,) = check_solutions(config)
    assert check.name == "Three Musketeers solution"
    assert check.healthy
    assert "not made yet" in check.message
    assert "adjudicate solve" in check.fix


def test_a_made_solution_is_found_where_the_configuration_says(tmp_path: Path) -> None:
    assert THREE_MUSKETEERS.solution is not None
    folder = tmp_path / "solutions"
    folder.mkdir()
    made = folder / THREE_MUSKETEERS.solution.file_name
    with made.open("wb") as handle:  # a sparse file of the table's size stands for it here
        handle.truncate(THREE_MUSKETEERS.solution.size)
    (check,) = check_solutions(Config(service=ServiceConfig(solutions_dir=str(folder))))
    assert check.status == OK
    assert str(made) in check.message
    made.unlink()
    with made.open("wb") as handle:  # a file of another size is not the solution
        handle.truncate(1000)
    (check,) = check_solutions(Config(service=ServiceConfig(solutions_dir=str(folder))))
    assert "not made yet" in check.message


def test_a_table_of_an_earlier_layout_is_named_with_the_command_that_replaces_it(
    tmp_path: Path,
) -> None:
    """The byte-a-value table of Three Musketeers is not read any more: doctor says it is
    there, that it is not used, and that `adjudicate solve` replaces it."""
    assert THREE_MUSKETEERS.solution is not None
    folder = tmp_path / "solutions"
    folder.mkdir()
    (old,) = (folder / name for name in THREE_MUSKETEERS.solution.old_file_names)
    old.write_bytes(b"\0" * 1000)
    (check,) = check_solutions(Config(service=ServiceConfig(solutions_dir=str(folder))))
    assert check.status == WARN
    assert str(old) in check.message
    assert "earlier layout" in check.message
    assert "adjudicate solve" in check.fix


# --- the paths the service writes -----------------------------------------------------------

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def _unit_as(tmp_path: Path, user: str) -> Path:
    """deploy/adjudicator.service as shipped, run by ``user`` (the test machine has no user
    adjudicator)."""
    unit = (DEPLOY / "adjudicator.service").read_text()
    path = tmp_path / "adjudicator.service"
    path.write_text(unit.replace("User=adjudicator", f"User={user}"))
    return path


def test_the_shipped_configuration_writes_only_where_the_shipped_unit_lets_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under ProtectSystem=strict the service writes only its StateDirectory=, CacheDirectory=
    and LogsDirectory=: every path of deploy/adjudicator.production.toml is inside them."""
    me = pwd.getpwuid(os.geteuid()).pw_name
    monkeypatch.setenv("ADJUDICATOR_LOG_FILE", "/var/log/adjudicator/adjudicator.log")
    config = load_config(DEPLOY / "adjudicator.production.toml")
    checks = check_paths(config, config_file=None, unit_file=_unit_as(tmp_path, me))
    outside = [c for c in checks if "read-only to the service" in c.message]
    assert outside == []
    assert {"archive", "solutions", "Maildir"} <= {c.name for c in checks}


@pytest.mark.parametrize(
    ("setting", "value", "name"),
    [
        ("ADJUDICATOR_ARCHIVE_DIR", "/var/www/pbem/games", "archive"),
        ("ADJUDICATOR_LOG_FILE", "/var/log/adjudicator.log", "log file"),
        ("ADJUDICATOR_SOLUTIONS_DIR", "/srv/solutions", "solutions"),
    ],
)
def test_a_path_outside_the_units_sandbox_fails_with_its_setting_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str, value: str, name: str
) -> None:
    """Issue 39: archive_dir in /var/www, a log file beside the others: read-only under the
    unit's ProtectSystem=strict, though the user could write them outside the unit."""
    me = pwd.getpwuid(os.geteuid()).pw_name
    monkeypatch.setenv(setting, value)
    config = load_config(DEPLOY / "adjudicator.production.toml")
    checks = check_paths(config, config_file=None, unit_file=_unit_as(tmp_path, me))
    (failed,) = [c for c in checks if c.status == FAIL]
    assert failed.name == name
    assert value.rsplit("/", 1)[0] in failed.message
    assert "ProtectSystem=strict" in failed.message
    assert setting in failed.fix
    assert "ReadWritePaths=" in failed.fix


def test_a_solutions_folder_in_a_home_the_unit_hides_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39: solutions_dir defaulted to ~/.cache, which ProtectHome=yes hides."""
    me = pwd.getpwuid(os.geteuid()).pw_name
    monkeypatch.setenv("ADJUDICATOR_SOLUTIONS_DIR", "")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "/home/adjudicator")
    config = load_config(DEPLOY / "adjudicator.production.toml")
    checks = check_paths(config, config_file=None, unit_file=_unit_as(tmp_path, me))
    (failed,) = [c for c in checks if c.status == FAIL]
    assert failed.name == "solutions"
    assert "/home/adjudicator/.cache" in failed.message
    assert "ProtectHome=" in failed.message


def test_a_folder_the_services_user_may_not_write_fails_as_that_user() -> None:
    """Run by root, doctor checks as the user that owns the configuration (the service's):
    a data folder only root may write fails, naming the folder, the user and the setting."""
    if os.geteuid() != 0:
        pytest.skip("checks as another user: needs root")
    entry = pwd.getpwnam("daemon")
    root = Path(tempfile.mkdtemp(prefix="doctor-paths-"))
    try:
        root.chmod(0o755)
        (root / "data").mkdir(mode=0o755)  # root's, as a data folder made by hand would be
        config = _write(root)
        os.chown(config, entry.pw_uid, entry.pw_gid)
        checks = list(run_checks(config))
        folder = _only(checks, "data folder")
        assert folder.status == FAIL
        assert str(root / "data") in folder.message
        assert "daemon" in folder.message
        assert "ADJUDICATOR_DATA_DIR" in folder.fix
        os.chown(root / "data", entry.pw_uid, entry.pw_gid)
        assert _only(list(run_checks(config)), "data folder").status == OK
    finally:
        shutil.rmtree(root)
