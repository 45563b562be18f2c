"""Every path the service writes, checked as the user the service runs as, and against the
sandbox of its systemd unit: a folder the service cannot write fails at the first mail, page or
log line, long after ``serve`` has started, so ``doctor`` finds it first.

Who writes: the current user; run as root, the unit's ``User=`` (or the owner of the
configuration file, which holds passwords and belongs to the service's user), checked in a
child process that runs as that user, so the kernel's own rules decide (modes, groups, ACLs, a
read-only mount). The unit (``deploy/adjudicator.service``, installed as
``/etc/systemd/system/adjudicator.service``) with ``ProtectSystem=strict`` lets the service
write only its ``StateDirectory=``, ``CacheDirectory=``, ``LogsDirectory=`` and
``ReadWritePaths=``; ``ProtectHome=`` hides the home folders.
"""

from __future__ import annotations

import json
import os
import pwd
from dataclasses import dataclass, replace
from pathlib import Path

from adjudicator.base.config import Config
from adjudicator.doctor.check import FAIL, OK, Check
from adjudicator.games import KINDS
from adjudicator.service.solutions import ready

INSTALLED_UNIT = Path("/etc/systemd/system/adjudicator.service")
_UNIT_ROOTS = {
    "StateDirectory": "/var/lib",
    "CacheDirectory": "/var/cache",
    "LogsDirectory": "/var/log",
    "RuntimeDirectory": "/run",
}
_HOMES = ("/home", "/root", "/run/user")


@dataclass(frozen=True)
class Written:
    """A folder the service writes in (or a file it writes), and the setting that names it."""

    what: str
    setting: str
    env: str
    path: Path
    created: bool = (
        True  # the service makes a missing folder (with its parents); else it must exist
    )
    is_file: bool = False


@dataclass(frozen=True)
class Unit:
    """What a systemd unit says about the service's user and what it may write."""

    file: Path
    user: str
    working_directory: Path | None
    strict: bool
    hides_homes: bool
    writable: tuple[Path, ...]


def read_unit(file: Path) -> Unit:
    """The settings of ``file`` that decide where the service may write."""
    settings: dict[str, list[str]] = {}
    for raw in file.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line and not line.startswith(("#", ";", "[")) and "=" in line:
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip())
    writable = [Path(p.lstrip("-+")) for v in settings.get("ReadWritePaths", []) for p in v.split()]
    for key, root in _UNIT_ROOTS.items():
        writable += [Path(root) / name for v in settings.get(key, []) for name in v.split()]
    if settings.get("PrivateTmp", ["no"])[-1] in ("yes", "true", "1"):
        writable += [Path("/tmp"), Path("/var/tmp")]
    directory = settings.get("WorkingDirectory", [""])[-1].lstrip("-")
    return Unit(
        file=file,
        user=settings.get("User", [""])[-1],
        working_directory=Path(directory) if directory.startswith("/") else None,
        strict=settings.get("ProtectSystem", [""])[-1] == "strict",
        hides_homes=settings.get("ProtectHome", ["no"])[-1]
        in ("yes", "true", "read-only", "tmpfs"),
        writable=tuple(writable),
    )


def written_paths(config: Config) -> list[Written]:
    """Every place ``serve`` (and ``init``, which the unit runs first) writes."""
    service = config.service
    paths = [
        Written("data folder", "service.data_dir", "ADJUDICATOR_DATA_DIR", config.data_path),
        Written("Maildir", "maildir.path", "ADJUDICATOR_MAILDIR_PATH", config.maildir_path),
        Written("archive", "service.archive_dir", "ADJUDICATOR_ARCHIVE_DIR", config.archive_path),
    ]
    url = config.database_url
    if url.startswith("sqlite") and not url.endswith(":memory:"):
        database = Path(url.split("///", 1)[-1])
        # SQLite writes its journal beside the file: its folder must be writable too.
        env = "ADJUDICATOR_DATABASE_URL"
        paths.append(Written("SQLite database", "service.database_url", env, database.parent))
        paths.append(
            Written(
                "SQLite database",
                "service.database_url",
                env,
                database,
                created=False,
                is_file=True,
            )
        )
    if not config.smtp.host:
        outbox = config.data_path / "outbox-maildir"
        paths.append(Written("outbox Maildir", "smtp.host", "ADJUDICATOR_SMTP_HOST", outbox))
    if service.log_file:
        log = Path(service.log_file)
        env = "ADJUDICATOR_LOG_FILE"
        paths.append(Written("log file", "service.log_file", env, log.parent, created=False))
        paths.append(Written("log file", "service.log_file", env, log, created=False, is_file=True))
    if any(k.solution and not ready(config.solutions_path, k.solution) for k in KINDS):
        env = "ADJUDICATOR_SOLUTIONS_DIR"
        paths.append(Written("solutions", "service.solutions_dir", env, config.solutions_path))
    return paths


def writer(config_file: Path | None, unit: Unit | None) -> str:
    """The user the service runs as, as far as this process can tell."""
    current = pwd.getpwuid(os.geteuid()).pw_name
    if os.geteuid() != 0:
        return current
    if unit is not None and unit.user:
        return unit.user
    if config_file is not None and config_file.exists():
        return pwd.getpwuid(config_file.stat().st_uid).pw_name
    return current


def check_paths(config: Config, *, config_file: Path | None, unit_file: Path | None) -> list[Check]:
    """Each written path: writable by the service's user, and inside the unit's sandbox."""
    if unit_file is None and INSTALLED_UNIT.exists():
        unit_file = INSTALLED_UNIT
    unit = read_unit(unit_file) if unit_file is not None else None
    user = writer(config_file, unit)
    # Relative paths are taken from where the service runs: the unit's WorkingDirectory=.
    base = unit.working_directory if unit and unit.working_directory else Path.cwd()
    paths = [replace(p, path=base / p.path) for p in written_paths(config)]
    try:
        problems = probe_as(user, [(str(p.path), p.created, p.is_file) for p in paths])
    except (KeyError, OSError, ValueError) as error:
        return [
            Check(
                "written paths",
                FAIL,
                f"cannot check them as the user {user!r}: {error}",
                f"create the service's user (deploy/README.md), or run doctor as it: "
                f"runuser -u {user} -- adjudicate doctor",
            )
        ]
    checks = []
    shown: set[Path] = set()  # one line for a folder two settings share (the data folder)
    for path, (denied, exists) in zip(paths, problems, strict=True):
        # A file is where its folder is: the folder's line says it.
        outside = _outside_sandbox(path.path, unit) if unit and not path.is_file else ""
        problem = denied or outside
        if problem:
            message = f"{path.path}: {problem} (checked as {user}, the service's user)"
            checks.append(Check(path.what, FAIL, message, _fix(path, user, unit)))
        elif not path.is_file and path.path not in shown:
            shown.add(path.path)
            made = "" if exists else " (`adjudicate init` or the service makes it)"
            checks.append(Check(path.what, OK, f"{path.path}, writable by {user}{made}"))
    return checks


def _outside_sandbox(path: Path, unit: Unit) -> str:
    if unit.hides_homes and any(path.is_relative_to(home) for home in _HOMES):
        return f"hidden from the service: its unit {unit.file} has ProtectHome="
    if unit.strict and not any(path.is_relative_to(root) for root in unit.writable):
        roots = ", ".join(str(r) for r in unit.writable) or "nothing"
        return (
            f"read-only to the service: its unit {unit.file} has ProtectSystem=strict and lets "
            f"it write only {roots}"
        )
    return ""


def _fix(path: Written, user: str, unit: Unit | None) -> str:
    where = f"set {path.setting} ({path.env}) to a path "
    if unit is not None and unit.writable:
        where += f"under {unit.writable[0]}" if path.what != "log file" else "the unit may write"
        where += f", or add ReadWritePaths={path.path} to {unit.file}"
    else:
        where += f"{user} may write"
    if not path.created:
        return f"create {path.path} owned by {user} (the unit's LogsDirectory= does), or {where}"
    return f"give {user} write access to it (chown {user}: the folder), or {where}"


def probe(paths: list[tuple[str, bool, bool]]) -> list[tuple[str, bool]]:
    """For each (path, created, is_file): what stops this process writing it ("" when nothing
    does) and whether it exists. A folder the service makes needs its nearest existing parent
    writable; the kernel decides (``access``: modes, groups, ACLs, a read-only mount)."""
    found = []
    for path, created, is_file in paths:
        there = path
        while created and not os.path.lexists(there):
            there = os.path.dirname(there)
        exists = there == path
        if not os.path.lexists(there):
            found.append(("" if is_file else "does not exist", False))
        elif is_file:
            found.append(("" if os.access(there, os.W_OK) else "this user may not write it", True))
        elif not os.path.isdir(there):
            found.append((f"{there} is not a folder", exists))
        elif not os.access(there, os.W_OK | os.X_OK):
            what = "this folder" if exists else f"{there}, where it would be made,"
            found.append((f"this user may not write in {what}", exists))
        else:
            found.append(("", exists))
    return found


def probe_as(user: str, paths: list[tuple[str, bool, bool]]) -> list[tuple[str, bool]]:
    """:func:`probe` as ``user`` (with its groups), in a child process that becomes it."""
    entry = pwd.getpwnam(user)
    if entry.pw_uid == os.geteuid():
        return probe(paths)
    groups = os.getgrouplist(user, entry.pw_gid)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child process, ended by os._exit
        status = 1
        try:
            os.close(read)
            os.setgroups(groups)
            os.setgid(entry.pw_gid)
            os.setuid(entry.pw_uid)
            with os.fdopen(write, "w", encoding="utf-8") as stream:
                json.dump(probe(paths), stream)
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, encoding="utf-8") as stream:
        answer = stream.read()
    _, status = os.waitpid(child, 0)
    if status != 0:
        raise OSError(f"the check could not run as {user} (status {status})")
    return [(str(problem), bool(exists)) for problem, exists in json.loads(answer)]
