"""``adjudicate archive build``, through the main command."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from archivesite import make_test_app
from samplegames import SampleGame, play_samples
from typer.testing import CliRunner

from adjudicator.cli.main import app as main_app

ADJUDICATE = Path(sys.executable).parent / "adjudicate"


def _config(tmp_path: Path) -> Path:
    app = make_test_app(tmp_path)
    duel = SampleGame("duel", "starship-combat", ("ann", "ben"), 2)
    play_samples(app, datetime(2026, 3, 2, tzinfo=UTC), [duel])
    app.engine.dispose()
    path = tmp_path / "adjudicator.toml"
    path.write_text(
        f'[service]\ndata_dir = "{tmp_path / "data"}"\naddress = "judge@pbem.example.org"\n',
        encoding="utf-8",
    )
    return path


def test_build_writes_the_site_into_the_configured_archive_folder(tmp_path: Path) -> None:
    config = _config(tmp_path)
    result = CliRunner().invoke(main_app, ["--config", str(config), "archive", "build"])
    assert result.exit_code == 0, result.output
    assert "1 game," in result.output
    site = tmp_path / "data" / "archive"  # archive_dir's default: <data_dir>/archive
    assert (site / "index.html").is_file()
    assert (site / "duel" / "round-1.html").is_file()
    feed = (site / "duel" / "feed.atom").read_text(encoding="utf-8")
    assert "tag:pbem.example.org," in feed  # the service's own domain names the feed's ids


def test_build_of_one_game_into_a_chosen_folder(tmp_path: Path) -> None:
    config = _config(tmp_path)
    out = tmp_path / "public"
    args = ["-c", str(config), "archive", "build", "--out", str(out), "--game", "duel"]
    result = CliRunner().invoke(main_app, args)
    assert result.exit_code == 0, result.output
    assert (out / "duel" / "index.html").is_file()


def test_build_of_an_unknown_game_fails_with_its_name(tmp_path: Path) -> None:
    config = _config(tmp_path)
    args = ["-c", str(config), "archive", "build", "--out", str(tmp_path / "o"), "--game", "gw9"]
    result = CliRunner().invoke(main_app, args)
    assert result.exit_code == 3
    assert "no game called 'gw9'" in result.output


def test_the_site_is_readable_by_a_web_server_under_the_units_umask(tmp_path: Path) -> None:
    """deploy/adjudicator.service runs the service with UMask=0077; a web server, another user,
    must still enter every folder of the archive and read every page."""
    config = _config(tmp_path)
    done = subprocess.run(
        [str(ADJUDICATE), "-c", str(config), "archive", "build"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        preexec_fn=lambda: os.umask(0o077),
    )
    assert done.returncode == 0, done.stderr
    site = tmp_path / "data" / "archive"
    assert (site / "duel" / "round-1.html").is_file()
    folders = [site, *(p for p in site.rglob("*") if p.is_dir())]
    files = [p for p in site.rglob("*") if p.is_file()]
    assert [f for f in folders if stat.S_IMODE(f.stat().st_mode) != 0o755] == []
    assert [f for f in files if stat.S_IMODE(f.stat().st_mode) != 0o644] == []
