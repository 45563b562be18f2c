"""What an operator installs is checked with what runs here: the systemd unit by
``systemd-analyze verify``, the compose file by its structure (no container engine here), the
production configuration by the service's own reader, the container build by its commands."""

from __future__ import annotations

import functools
import os
import pwd
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from needs import unavailable

from adjudicator.base.config import load_config

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
ADJUDICATE = Path(sys.executable).parent / "adjudicate"


def test_the_systemd_unit_verifies_and_uses_notify_and_a_watchdog(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        unavailable("systemd-analyze is not installed (apt-get install systemd)")
    unit = (DEPLOY / "adjudicator.service").read_text()
    assert re.search(r"^Type=notify$", unit, re.M)
    assert re.search(r"^WatchdogSec=\d+$", unit, re.M)
    assert re.search(r"^UMask=0077$", unit, re.M)
    assert re.search(r"^ExecReload=.*-HUP", unit, re.M)
    # Verified as installed here: the program where this test's virtual environment has it,
    # and no User= (the service's user does not exist on a test machine).
    local = unit.replace("/opt/adjudicator/venv/bin/adjudicate", str(ADJUDICATE))
    local = re.sub(r"^(User|Group)=.*$", "", local, flags=re.M)
    path = tmp_path / "adjudicator.service"
    path.write_text(local)
    done = subprocess.run(
        [analyze, "verify", str(path)], capture_output=True, text=True, timeout=120, check=False
    )
    problems = [
        line
        for line in done.stderr.splitlines()
        if "adjudicator.service" in line and "Documentation" not in line
    ]
    assert problems == [], done.stderr
    assert done.returncode == 0, done.stderr


def test_the_compose_file_runs_the_service_on_postgresql_with_volumes() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"database", "init", "adjudicator"}
    assert services["database"]["image"].startswith("postgres:")
    assert "healthcheck" in services["database"]
    service = services["adjudicator"]
    assert service["depends_on"]["init"]["condition"] == "service_completed_successfully"
    assert services["init"]["command"] == ["init"]
    assert service["environment"]["ADJUDICATOR_DATABASE_URL"].startswith("postgresql://")
    mounted = {volume.split(":")[0] for volume in service["volumes"]}
    assert {"data", "solutions"} <= mounted
    assert set(compose["volumes"]) == {"database", "data", "solutions"}
    # The archive and the solutions are on the volumes the image declares.
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "ADJUDICATOR_ARCHIVE_DIR=/var/lib/adjudicator/archive" in dockerfile
    assert "ADJUDICATOR_SOLUTIONS_DIR=/var/cache/adjudicator/solutions" in dockerfile
    assert 'VOLUME ["/var/lib/adjudicator", "/var/cache/adjudicator"]' in dockerfile
    assert "postgresql-client" in dockerfile  # pg_dump, for `adjudicate backup`
    assert service["stop_signal"] == "SIGTERM"


def test_the_container_build_installs_the_package_and_checks_health() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    copied = re.findall(r"^COPY (.+) \./?\S*$", dockerfile, re.M)
    root = DEPLOY.parent
    for line in copied:
        for name in line.split():
            assert (root / name).exists(), name
    (extras,) = re.findall(r"pip install .*\.\[([a-z,]+)\]", dockerfile)
    assert "postgresql" in extras.split(",")  # compose.yaml's database needs its driver
    assert "HEALTHCHECK" in dockerfile
    assert "/healthz" in dockerfile
    assert re.search(r"^USER adjudicator$", dockerfile, re.M)


@pytest.mark.parametrize(
    "path",
    [DEPLOY / "adjudicator.production.toml", DEPLOY.parent / "config/adjudicator.example.toml"],
)
def test_the_example_configurations_are_read_by_the_service(path: Path) -> None:
    config = load_config(path, env={})
    assert config.smtp.tls in ("none", "starttls", "implicit")
    assert config.service.log_format in ("text", "json")


# --- the route of deploy/README.md, from the image's own sources ----------------------------

SERVICE_USER = "daemon"  # a user every Debian system has, standing for the service's own
GAMES = {
    "gw": ("giveaway", ["ann", "ben", "cat"], []),
    "sf": ("sissyfight", ["ann", "ben", "cat", "dan"], []),
    "tm": ("three-musketeers", ["ann", "ben"], []),
    "rsp": ("rock-scissors-paper", ["ann", "ben"], []),
    "duel": ("starship-combat", ["ann", "cpu"], ["--setting", "stand_ins=cpu"]),
}
"""A game of every kind; the duel's second seat is played by the computer (no address)."""


def _copied_by_the_dockerfile(into: Path) -> None:
    """Copy exactly what deploy/Dockerfile's COPY lines copy (into its WORKDIR), no more."""
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    for line in re.findall(r"^COPY (.+)$", dockerfile, re.M):
        *sources, target = line.split()
        for source in sources:
            origin = DEPLOY.parent / source
            there = into / target / origin.name if target.endswith("/") else into / target
            there.parent.mkdir(parents=True, exist_ok=True)
            if origin.is_dir():
                shutil.copytree(
                    origin, there, symlinks=True, ignore=shutil.ignore_patterns("__pycache__")
                )
            else:
                shutil.copy2(origin, there)


@pytest.fixture(scope="module")
def deployed() -> Iterator[Path]:
    """The package as the image builds it, installed as deploy/README.md installs it: a wheel
    built from exactly the Dockerfile's copies, into a fresh virtual environment of the
    system's Python, outside the checkout. Its dependencies come from this test's environment
    through a path file (installing NumPy and libvips again would take minutes and the
    network); the package itself only from the wheel."""
    if os.geteuid() != 0:
        pytest.skip("runs the service as its own user: needs root")
    system_python = shutil.which("python3", path="/usr/bin:/bin")
    if system_python is None:
        unavailable("no /usr/bin/python3 (apt-get install python3-venv)")
    root = Path(tempfile.mkdtemp(prefix="deployed-"))
    root.chmod(0o755)
    source = root / "opt-adjudicator"
    _copied_by_the_dockerfile(source)
    wheels = root / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("adjudicator-*.whl")
    venv = root / "venv"
    subprocess.run([system_python, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = venv.glob("lib/python3*/site-packages")
    dependencies = sysconfig.get_paths()["purelib"]
    (site / "dependencies.pth").write_text(dependencies + "\n", encoding="utf-8")
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin/python"),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    shutil.rmtree(source)  # as the image does: nothing of the sources is left to lean on
    yield root
    shutil.rmtree(root)


def _unit_paths(deployed: Path, pg_url: str) -> tuple[Path, dict[str, str]]:
    """deploy/adjudicator.production.toml with every path moved under ``root`` (and the
    test's database, no mail servers), the folders the unit's StateDirectory=,
    CacheDirectory= and LogsDirectory= make, owned by the service's user; the environment of
    the unit's ExecStart, as that user."""
    entry = pwd.getpwnam(SERVICE_USER)
    root = Path(tempfile.mkdtemp(dir=deployed, prefix="host-"))
    root.chmod(0o755)
    unit = (DEPLOY / "adjudicator.service").read_text()
    for key, parent in (("State", "var/lib"), ("Cache", "var/cache"), ("Logs", "var/log")):
        (name,) = re.findall(rf"^{key}Directory=(\S+)$", unit, re.M)
        folder = root / parent / name
        folder.mkdir(parents=True, mode=0o755)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    text = (DEPLOY / "adjudicator.production.toml").read_text()
    text = re.sub(r'"/var/', f'"{root}/var/', text)
    text = re.sub(r'^database_url = ".*"$', f'database_url = "{pg_url}"', text, flags=re.M)
    text = re.sub(
        r'^log_file = ""$', f'log_file = "{root}/var/log/adjudicator/a.log"', text, flags=re.M
    )
    config = root / "etc" / "adjudicator.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(text, encoding="utf-8")
    config.chmod(0o600)
    os.chown(config, entry.pw_uid, entry.pw_gid)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": entry.pw_dir,  # /usr/sbin: no cache folder there, as a system user's home
        "ADJUDICATOR_CONFIG": str(config),
        "ADJUDICATOR_SMTP_HOST": "",  # results into <data_dir>/outbox-maildir
        "ADJUDICATOR_IMAP_HOST": "",
        "ADJUDICATOR_ADDRESS": "judge@pbem.test",  # a reserved name: doctor skips its DNS
    }
    return root, env


def _as_service(
    deployed: Path, root: Path, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    """``adjudicate ARGS`` as the unit runs it: its user, UMask=0077, WorkingDirectory=."""
    entry = pwd.getpwnam(SERVICE_USER)
    return subprocess.run(
        [str(deployed / "venv/bin/adjudicate"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=root / "var/lib/adjudicator",
        user=entry.pw_uid,
        group=entry.pw_gid,
        extra_groups=os.getgrouplist(SERVICE_USER, entry.pw_gid),
        umask=0o077,
    )


@pytest.mark.slow
def test_the_image_sources_make_a_service_that_plays_every_game_with_the_units_paths(
    deployed: Path, pg_url: str
) -> None:
    """deploy/README.md line by line, on the wheel of the image: init, doctor ready, a game of
    every kind (one with a computer seat), a pass of the service, the archive built and
    readable by a web server, all as the service's user under the unit's paths and umask."""
    root, env = _unit_paths(deployed, pg_url)
    run = functools.partial(_as_service, deployed, root, env)
    init = run("init")
    assert init.returncode == 0, init.stderr
    doctor = run("doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert doctor.stdout.splitlines()[-1] == "everything is ready"
    for name, (kind, seats, extra) in GAMES.items():
        players = [f"--player={s}=" + ("" if s == "cpu" else f"{s}@example.org") for s in seats]
        created = run("game", "create", name, "--kind", kind, *players, *extra)
        assert created.returncode == 0, created.stdout + created.stderr
    assert "played by the computer" in created.stdout
    served = run("serve", "--once")
    assert served.returncode == 0, served.stderr
    built = run("archive", "build")
    assert built.returncode == 0, built.stderr
    site = root / "var/lib/adjudicator/archive"
    for name, (kind, _, _) in GAMES.items():
        assert (site / name / "index.html").is_file(), name
        assert (site / "rules" / f"{kind}.html").is_file(), kind  # the rules ship in the wheel
    assert [p for p in site.rglob("*") if p.is_dir() and p.stat().st_mode & 0o777 != 0o755] == []
    assert [p for p in site.rglob("*") if p.is_file() and p.stat().st_mode & 0o777 != 0o644] == []
    assert (root / "var/log/adjudicator/a.log").stat().st_size > 0  # LogsDirectory=
    outbox = root / "var/lib/adjudicator/outbox-maildir/new"
    addressed = sum(seat != "cpu" for _, seats, _ in GAMES.values() for seat in seats)
    assert len(list(outbox.iterdir())) >= addressed  # a welcome to every seat with an address


@pytest.mark.slow
def test_a_computer_seat_with_no_solutions_folder_is_a_clear_error(
    deployed: Path, pg_url: str
) -> None:
    """The service's user has no home folder, where the solutions went by default: creating a
    Three Musketeers game with a computer seat says which setting to change, with no
    traceback; doctor says it first."""
    root, env = _unit_paths(deployed, pg_url)
    run = functools.partial(_as_service, deployed, root, {**env, "ADJUDICATOR_SOLUTIONS_DIR": ""})
    assert run("init").returncode == 0
    doctor = run("doctor")
    assert doctor.returncode == 1
    (line,) = [ln for ln in doctor.stdout.splitlines() if "solutions:" in ln]
    assert line.startswith("FAIL")
    assert "/usr/sbin/.cache" in line
    players = ["--player=cpu=", "--player=ann=ann@example.org"]
    create = ["game", "create", "solo", "--kind", "three-musketeers", *players]
    created = run(*create, "--setting", "stand_ins=cpu")
    assert created.returncode == 2, created.stderr
    assert "Traceback" not in created.stderr
    assert "service.solutions_dir (ADJUDICATOR_SOLUTIONS_DIR)" in created.stderr
    assert "/usr/sbin/.cache/adjudicator/solutions" in created.stderr
