"""What an operator installs is checked with what runs here: the systemd unit by
``systemd-analyze verify``, the compose file by its structure (no container engine here), the
production configuration by the service's own reader, the container build by its commands."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from needs import unavailable

from adjudicator.config import load_config

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
    assert "data" in mounted
    assert set(compose["volumes"]) == {"database", "data"}
    assert service["stop_signal"] == "SIGTERM"


def test_the_container_build_installs_the_package_and_checks_health() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    copied = re.findall(r"^COPY (.+) \./?\S*$", dockerfile, re.M)
    root = DEPLOY.parent
    for line in copied:
        for name in line.split():
            assert (root / name).exists(), name
    assert "pip install" in dockerfile
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
