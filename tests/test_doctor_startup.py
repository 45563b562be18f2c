"""What ``adjudicate serve`` needs before it can start, and ``adjudicate doctor`` must therefore
check: log settings it knows, a log file it may write, a metrics port it may listen on. Each
broken one fails doctor with the setting and its fix, and makes ``serve`` exit with one line
saying the same, not a traceback. Doctor and serve run as the operator runs them: the
``adjudicate`` command, serve as a process of its own."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mailservers import free_port
from typer.testing import CliRunner

from adjudicator.base.config import load_config
from adjudicator.cli.main import app
from adjudicator.doctor import FAIL, OK, Check, run_checks
from adjudicator.serve.metrics import Metrics
from adjudicator.service.app import utcnow
from adjudicator.storage.db import make_engine

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
EXIT_USAGE = 2  # cli_support.py: usage or configuration error


@pytest.fixture(autouse=True)
def _no_outside_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith(("ADJUDICATOR_", "NOTIFY_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another program listens on (it answers nothing)."""
    with socket.create_server(("127.0.0.1", 0)) as holder:
        yield holder.getsockname()[1]


def _ready(tmp_path: Path, service: str = "", metrics: str = "") -> Path:
    """A configuration after `adjudicate init`, plus ``service`` and ``metrics`` lines."""
    path = tmp_path / "adjudicator.toml"
    path.write_text(
        f'[service]\ndata_dir = "{tmp_path / "data"}"\naddress = "judge@pbem.test"\n'
        f'solutions_dir = "{tmp_path / "solutions"}"\n'
    )
    path.chmod(0o600)
    assert CliRunner().invoke(app, ["--config", str(path), "init"]).exit_code == 0
    path.write_text(path.read_text() + service + (f"[metrics]\n{metrics}" if metrics else ""))
    return path


def _failed(path: Path) -> list[Check]:
    return [c for c in run_checks(path) if c.status == FAIL]


def _serve(path: Path) -> subprocess.CompletedProcess[str]:
    """``adjudicate serve`` as a process; it must end by itself, refusing to start."""
    return subprocess.run(
        [str(ADJUDICATE), "--config", str(path), "serve"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={k: v for k, v in os.environ.items() if not k.startswith("ADJUDICATOR_")},
    )


def _one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == EXIT_USAGE, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    # The log lines of the start (on standard error too, without a log file) come before it.
    line = result.stderr.splitlines()[-1]
    assert line.startswith("adjudicate: ")
    assert [n for n in result.stderr.splitlines() if n.startswith("adjudicate: ")] == [line]
    return line


@pytest.mark.parametrize(
    ("setting", "check", "words", "fix"),
    [
        ('log_format = "xml"\n', "logging", "service.log_format is 'xml'", "LOG_FORMAT"),
        ('log_level = "verbose"\n', "logging", "service.log_level is 'verbose'", "LOG_LEVEL"),
        ("log_file = 'FOLDER/nowhere/adjudicator.log'\n", "log file", "does not exist", "LOG_FILE"),
        ("log_file = 'FOLDER'\n", "logging", "is a folder, not a file", "LOG_FILE"),
    ],
)
def test_a_log_setting_serve_cannot_use_fails_doctor_and_serve_with_its_fix(
    tmp_path: Path, setting: str, check: str, words: str, fix: str
) -> None:
    path = _ready(tmp_path, setting.replace("FOLDER", str(tmp_path)))
    (failed,) = _failed(path)
    assert failed.name == check
    assert words in failed.message
    assert f"ADJUDICATOR_{fix}" in failed.fix
    result = CliRunner().invoke(app, ["--config", str(path), "doctor"])
    assert result.exit_code == 1
    assert f"fix: {failed.fix}" in result.output

    line = _one_line(_serve(path))
    assert words in line
    assert f"ADJUDICATOR_{fix}" in line


def test_a_writable_log_file_is_ok(tmp_path: Path) -> None:
    path = _ready(tmp_path, f"log_file = '{tmp_path / 'logs.txt'}'\n")
    (logging,) = [c for c in run_checks(path) if c.name == "logging"]
    assert logging.status == OK
    assert str(tmp_path / "logs.txt") in logging.message


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in any folder")
def test_a_log_folder_this_user_may_not_write_fails_doctor_and_serve(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir(mode=0o500)
    path = _ready(tmp_path, f"log_file = '{folder / 'adjudicator.log'}'\n")
    (failed,) = _failed(path)
    assert failed.name == "log file"
    assert "ADJUDICATOR_LOG_FILE" in failed.fix
    line = _one_line(_serve(path))
    assert "may not write" in line
    assert f"write access to {folder}" in line


def test_a_busy_metrics_port_fails_doctor_and_serve_with_address_and_fix(
    tmp_path: Path, busy_port: int
) -> None:
    path = _ready(tmp_path, metrics=f"port = {busy_port}\n")
    (failed,) = _failed(path)
    assert failed.name == f"metrics 127.0.0.1:{busy_port}"
    assert f"cannot listen for metrics on 127.0.0.1:{busy_port}" in failed.message
    assert f"sport = :{busy_port}" in failed.fix
    assert "ADJUDICATOR_METRICS_PORT" in failed.fix

    line = _one_line(_serve(path))
    assert f"127.0.0.1:{busy_port}" in line
    assert "Address already in use" in line
    assert "ADJUDICATOR_METRICS_PORT" in line


def test_a_free_metrics_port_and_one_held_by_the_running_service_are_ok(tmp_path: Path) -> None:
    port = free_port()
    path = _ready(tmp_path, metrics=f"port = {port}\n")
    assert _failed(path) == []
    config = load_config(path)
    engine = make_engine(config.database_url)
    server = Metrics(engine, clock=utcnow).serve(address="127.0.0.1", port=port)
    try:
        (check,) = [c for c in run_checks(path) if c.name.startswith("metrics")]
        assert check.status == OK
        assert "running adjudicator service" in check.message
    finally:
        server.close()
        engine.dispose()
