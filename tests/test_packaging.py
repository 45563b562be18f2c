"""An installed wheel carries what the service needs at run time: its templates above all
(mails and archive pages are rendered from them) and its migrations. Built here with pip, as
an operator's install would, then imported from the unpacked wheel alone."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    (found,) = out.glob("adjudicator-*.whl")
    return found


def test_the_wheel_holds_every_template_and_migration(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "templates").rglob("*.*"))
    assert templates
    assert [t for t in templates if f"adjudicator/{t}" not in names] == []
    games = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "adjudicator/games").glob("*/templates/**/*.j2")
    )
    assert len(games) >= 5 * 4  # each game's mails, report page and order syntax
    assert [g for g in games if g not in names] == []
    migrations = (ROOT / "adjudicator/storage/migrations/versions").glob("*.py")
    assert all(f"adjudicator/storage/migrations/versions/{m.name}" in names for m in migrations)
    assert "adjudicator/games/starship_combat/equilibrium.txt" in names  # the first move's table


def test_the_wheel_holds_the_rules_pages_and_their_pictures(wheel: Path) -> None:
    """The archive publishes docs/rules/ and mails carry it where there is no archive."""
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = sorted(
        p.name for p in (ROOT / "docs" / "rules").iterdir() if p.suffix in (".md", ".png", ".svg")
    )
    assert "giveaway.md" in shipped
    assert [name for name in shipped if f"adjudicator/rules/{name}" not in names] == []


def test_mail_renders_from_the_installed_package_alone(wheel: Path, tmp_path: Path) -> None:
    zipfile.ZipFile(wheel).extractall(tmp_path)
    script = (
        "import adjudicator.mail.compose as c\n"
        f"assert str(c.TEMPLATES).startswith({str(tmp_path)!r}), c.TEMPLATES\n"
        "r = c.Renderer().mail('no_game', {'named': 'gw9'})\n"
        "assert 'gw9' in r.text\n"
        "import adjudicator.base.shipped as s\n"
        f"assert s.GAME_TEMPLATES and all(str(g).startswith({str(tmp_path)!r}) for g in s.GAME_TEMPLATES)\n"
        "assert c.Renderer().exists('mail/answer/syntax/giveaway.txt.j2')\n"
        "from adjudicator.readmodel.rules import rules_markdown\n"
        "assert rules_markdown('starship-combat').startswith('# Starship Combat')\n"
        "from adjudicator.games.starship_combat import standin as s\n"
        "assert s.solve(s.START_POSITION).value == 0 and len(s.SOLVED) == 1\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_package_holds_no_link_out_of_itself() -> None:
    """A link out of the package (adjudicator/templates -> ../templates, as it once was) is
    copied as a dangling link by a container build that does not copy its target, and the
    installed service then has no rules pages (issue 39); setup.py copies the folders in."""
    package = ROOT / "adjudicator"
    links = [p for p in package.rglob("*") if p.is_symlink()]
    assert links == []
    assert not (package / "templates").exists()  # the source is templates/ at the top
    assert not (package / "rules").exists()  # and docs/rules/, the players' copy
