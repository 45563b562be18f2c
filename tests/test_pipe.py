"""``adjudicate receive`` as a mail server runs it: a process of its own for each message, which
delivers the message into the service's Maildir and ends; the service reads it from there
(deploy/MAIL.md, "By pipe")."""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from needs import unavailable
from playing import new_game, player_mail
from sqlmodel import Session, col, select

from adjudicator.base.config import load_config
from adjudicator.cli.pipe import EX_TEMPFAIL, config_of_receive
from adjudicator.mail.maildir import arrival_time
from adjudicator.serve import runner
from adjudicator.serve.runner import make_maildir_reader
from adjudicator.service.app import make_app
from adjudicator.storage.db import aware
from adjudicator.storage.models import OrderSet, Submission, SubmissionStatus

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
CHECKOUT = Path(__file__).resolve().parents[1]
RAW = b"From: ann@example.org\r\nSubject: [gw1] orders\r\n\r\nGIVE 3 TO bob\r\n\xe9t\xe9\r\n"


def _config(tmp_path: Path, *, maildir: Path | None = None) -> Path:
    config = tmp_path / "adjudicator.toml"
    lines = ["[service]", f'data_dir = "{tmp_path / "data"}"', 'address = "judge@pbem.test"']
    if maildir is not None:
        lines += ["[maildir]", f'path = "{maildir}"']
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def _pipe(config: Path, raw: bytes, *command: str) -> subprocess.CompletedProcess[bytes]:
    """The command as a mail server's alias runs it: the message on standard input."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADJUDICATOR_")}
    return subprocess.run(
        [str(ADJUDICATE), "-c", str(config), *(command or ("receive",))],
        input=raw,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )


def _delivered(maildir: Path) -> list[Path]:
    return sorted((maildir / "new").iterdir()) if (maildir / "new").exists() else []


def test_a_piped_message_is_in_the_maildir_byte_for_byte_when_the_command_ends(
    tmp_path: Path,
) -> None:
    done = _pipe(_config(tmp_path), RAW)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""
    maildir = tmp_path / "data" / "maildir"  # the default: <data_dir>/maildir
    (message,) = _delivered(maildir)
    assert message.read_bytes() == RAW  # line ends and 8-bit bytes as the mail server gave them
    assert list((maildir / "tmp").iterdir()) == []
    assert not (tmp_path / "data" / "adjudicator.db").exists()  # no database was opened


def test_the_pipe_imports_neither_the_database_nor_the_service(tmp_path: Path) -> None:
    """What keeps a deadline's rush of piped mail cheap: the process the mail server starts
    for each message loads the configuration and the Maildir writer, not the service."""
    heavy = (
        "sqlalchemy",
        "sqlmodel",
        "typer",
        "jinja2",
        "adjudicator.cli.main",
        "adjudicator.service",
    )
    probe = (
        "import atexit, sys\n"
        f"heavy = {heavy!r}\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules"
        " if m.startswith(heavy)), file=sys.stderr))\n"
        f"sys.argv = ['adjudicate', '--config', {str(_config(tmp_path))!r}, 'receive']\n"
        "from adjudicator.cli.entry import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], input=RAW, capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr.decode().strip() == "[]"
    assert len(_delivered(tmp_path / "data" / "maildir")) == 1


@pytest.mark.parametrize(
    "broken",
    ["no configuration file", "a configuration that is not UTF-8", "the Maildir is a file"],
)
def test_a_message_that_cannot_be_stored_is_left_to_the_mail_server(
    tmp_path: Path, broken: str
) -> None:
    """Exit status 75: the mail server keeps the message and tries again later."""
    maildir = tmp_path / "maildir"
    if broken == "no configuration file":
        config = tmp_path / "missing.toml"
    elif broken == "a configuration that is not UTF-8":
        config = _config(tmp_path)
        config.write_bytes(config.read_bytes() + b"# caf\xe9\n")
    else:
        maildir.write_text("not a folder", encoding="utf-8")
        config = _config(tmp_path, maildir=maildir)
    done = _pipe(config, RAW)
    assert done.returncode == EX_TEMPFAIL
    error = done.stderr.decode()
    assert error.startswith("adjudicate: could not store the message: ")
    named = {"no configuration file": "missing.toml", "the Maildir is a file": str(maildir)}
    assert named.get(broken, "utf-8") in error
    assert "Traceback" not in error
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    ("arguments", "short", "config"),
    [
        (["receive"], True, None),
        (["-c", "a.toml", "receive"], True, Path("a.toml")),
        (["--config", "a.toml", "receive"], True, Path("a.toml")),
        (["--config=a.toml", "receive"], True, Path("a.toml")),
        (["receive", "--help"], False, None),
        (["--round", "7", "receive"], False, None),
        (["-c", "a.toml", "status"], False, None),
        ([], False, None),
    ],
)
def test_only_a_plain_receive_takes_the_short_way(
    arguments: list[str], short: bool, config: Path | None
) -> None:
    assert config_of_receive(arguments) == (short, config)


def test_other_commands_still_reach_the_whole_command_line(tmp_path: Path) -> None:
    config = _config(tmp_path)
    helped = _pipe(config, b"", "receive", "--help")
    assert helped.returncode == 0
    assert "Usage: adjudicate receive" in helped.stdout.decode()  # typer answered, not the pipe
    wrong = _pipe(config, b"", "--round", "7", "receive")  # --round goes with no command
    assert wrong.returncode == 2
    assert "--round does not go with a command" in wrong.stderr.decode()
    assert _delivered(tmp_path / "data" / "maildir") == []


def test_the_service_reads_piped_mail_in_order_as_of_its_delivery(tmp_path: Path) -> None:
    """Two order mails piped one after the other: both stored as of their delivery, and the
    later one's orders are in force."""
    config = _config(tmp_path)
    app = make_app(load_config(config, env={}))
    try:
        credentials = new_game(app, ["ann", "bob", "cid"])
        secret = credentials["ann"].secret
        first = player_mail("gw1", "ann", f"PASSWORD {secret}\nGIVE 3 TO bob\n", number=1)
        second = player_mail("gw1", "ann", f"PASSWORD {secret}\nGIVE 3 TO cid\n", number=2)
        for raw in (first, second):
            done = _pipe(config, raw)
            assert done.returncode == 0, done.stderr.decode()
        files = _delivered(tmp_path / "data" / "maildir")
        delivered = sorted(arrival_time(path) for path in files)
        assert make_maildir_reader(app).run_once() == 2
        with Session(app.engine) as session:
            stored = session.exec(select(Submission).order_by(col(Submission.id))).all()
            assert [s.status for s in stored] == [SubmissionStatus.ACCEPTED] * 2
            assert [s.message_id for s in stored] == ["<ann-1@example.org>", "<ann-2@example.org>"]
            assert {s.channel for s in stored} == {"maildir"}
            for submission, at in zip(stored, delivered, strict=True):
                assert abs((aware(submission.received_at) - at).total_seconds()) < 1
            sets = session.exec(select(OrderSet).order_by(col(OrderSet.id))).all()
            assert [s.submission_id for s in sets] == [stored[0].id, stored[1].id]
            assert [" ".join(s.lines) for s in sets] == ["GIVE 3 TO bob", "GIVE 3 TO cid"]
    finally:
        app.engine.dispose()


def test_the_running_service_reads_a_piped_mail_at_once_not_at_its_next_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service is told of a delivery into its Maildir (mail/maildir_watch.py): with its
    regular turn an hour apart, a mail piped while it waits is answered all the same."""
    monkeypatch.setattr(runner, "TICK_SECONDS", 3600.0)
    config = _config(tmp_path)
    app = make_app(load_config(config, env={}))
    turned = threading.Event()
    alive = runner.Service._alive

    def counted(service: runner.Service) -> None:
        alive(service)
        turned.set()

    monkeypatch.setattr(runner.Service, "_alive", counted)
    credentials = new_game(app, ["ann", "bob", "cid"])
    secret = credentials["ann"].secret

    def accepted() -> int:
        with Session(app.engine) as session:
            statuses = session.exec(select(Submission.status)).all()
        return statuses.count(SubmissionStatus.ACCEPTED)

    async def scenario() -> bool:
        service = runner.Service(app)
        running = asyncio.ensure_future(service.run())
        try:
            assert await asyncio.to_thread(turned.wait, 60)  # its first turn is over: it waits
            # A delivery made before the watch was in place is not told: another mail is piped
            # every 2 s until one is answered, for a minute at most (a turn is an hour away).
            deadline = time.monotonic() + 60
            number, next_pipe = 0, time.monotonic()
            while time.monotonic() < deadline:
                if time.monotonic() >= next_pipe:
                    raw = player_mail(
                        "gw1", "ann", f"PASSWORD {secret}\nGIVE 3 TO bob\n", number=number
                    )
                    assert (await asyncio.to_thread(_pipe, config, raw)).returncode == 0
                    number, next_pipe = number + 1, time.monotonic() + 2
                if await asyncio.to_thread(accepted):
                    return True
                await asyncio.sleep(0.05)
            return False
        finally:
            service.request_stop()
            await running

    try:
        answered = asyncio.run(scenario())
    finally:
        app.engine.dispose()
    assert answered  # without the hour's turn


def _as_user(user: str, config: Path, raw: bytes) -> subprocess.CompletedProcess[bytes]:
    """The command as Postfix's local(8) runs an alias's pipe: as the owner of the alias
    database (``default_privs``, nobody, for root's /etc/aliases), with its groups."""
    entry = pwd.getpwnam(user)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADJUDICATOR_")}
    return subprocess.run(
        [str(config.parent / "adjudicate"), "-c", str(config), "receive"],
        input=raw,
        env={**env, "HOME": entry.pw_dir, "USER": user},
        capture_output=True,
        timeout=120,
        check=False,
        cwd="/",
        user=entry.pw_uid,
        group=entry.pw_gid,
        extra_groups=os.getgrouplist(user, entry.pw_gid),
    )


@pytest.fixture
def installed() -> Iterator[tuple[Path, str]]:
    """A configuration (mode 0600) and a data folder owned by a service's user, as
    deploy/README.md installs them; a folder of mkdtemp, since pytest's are closed to others."""
    if os.geteuid() != 0:
        pytest.skip("runs the pipe as other users: needs root")
    service = "daemon"  # a user every Debian system has, standing for the service's
    entry = pwd.getpwnam(service)
    root = Path(tempfile.mkdtemp(prefix="pipe-users-"))
    root.chmod(0o755)
    config = _config(root)
    config.chmod(0o600)
    (root / "data").mkdir(mode=0o700)
    for path in (config, root / "data"):
        os.chown(path, entry.pw_uid, entry.pw_gid)
    # The program as the package's entry point is, on the system's Python: this test's own
    # interpreter may live where other users cannot run it (a folder under /root).
    system_python = shutil.which("python3", path="/usr/bin:/bin")
    if system_python is None:
        unavailable("no /usr/bin/python3 that other users may run (apt-get install python3)")
    program = root / "adjudicate"
    program.write_text(
        f"#!{system_python} -I\nimport sys\nsys.path.insert(0, {str(CHECKOUT)!r})\n"
        "from adjudicator.cli.entry import main\nsys.exit(main())\n",
        encoding="utf-8",
    )
    program.chmod(0o755)
    yield config, service
    shutil.rmtree(root)


def test_a_pipe_run_as_nobody_is_refused_with_who_and_why(installed: tuple[Path, str]) -> None:
    """An alias in root's /etc/aliases runs as nobody, which may not read the 0600
    configuration: the mail server keeps the message (75), and the refusal names the user, the
    file and the route that works (deploy/MAIL.md)."""
    config, _ = installed
    done = _as_user("nobody", config, RAW)
    assert done.returncode == EX_TEMPFAIL
    error = done.stderr.decode()
    assert "the user nobody may not open" in error
    assert str(config) in error
    assert "alias map owned by" in error
    assert "deploy/MAIL.md" in error
    assert "Traceback" not in error


def test_a_pipe_run_as_the_service_user_delivers_into_its_maildir(
    installed: tuple[Path, str],
) -> None:
    """The documented route: an alias map owned by the service's user makes Postfix run the
    pipe as that user, who reads the configuration and delivers into the Maildir the service
    reads, the file owned by that user."""
    config, service = installed
    done = _as_user(service, config, RAW)
    assert done.returncode == 0, done.stderr.decode()
    (delivered,) = _delivered(config.parent / "data" / "maildir")
    assert delivered.read_bytes() == RAW
    assert delivered.stat().st_uid == pwd.getpwnam(service).pw_uid
