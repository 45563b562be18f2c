"""Optional routes are extras (pyproject.toml): PostgreSQL's driver (``postgresql``) and
dnspython for the doctor's DNS check (``dns``). Without one, the feature that needs it says
which extra to install, everything else works, and the test command installs them all."""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from adjudicator.base.config import Config, ConfigError, MissingExtra, ServiceConfig, load_config
from adjudicator.cli.main import app
from adjudicator.doctor import SKIP, check_dns
from adjudicator.storage.db import make_engine

ROOT = Path(__file__).resolve().parents[1]
PG_URL = "postgresql://adjudicator@db.example.net/adjudicator"


class _Uninstalled:
    """A finder that makes one package look uninstalled: importing it or a module of it fails
    as it does where it is missing."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname == self.name or fullname.startswith(self.name + "."):
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def uninstall(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Package ``name`` is missing until the test ends."""
    for module in list(sys.modules):
        if module == name or module.startswith(name + "."):
            monkeypatch.delitem(sys.modules, module)
    monkeypatch.setattr(sys, "meta_path", [_Uninstalled(name), *sys.meta_path])


def test_a_postgresql_database_without_its_driver_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    uninstall(monkeypatch, "psycopg")
    with pytest.raises(ConfigError) as configured:
        load_config(env={"ADJUDICATOR_DATABASE_URL": PG_URL})
    assert "service.database_url" in str(configured.value)
    assert "pip install 'adjudicator[postgresql]'" in str(configured.value)
    with pytest.raises(MissingExtra) as made:
        make_engine(PG_URL)
    assert made.value.extra == "postgresql"
    assert "psycopg" in str(made.value)

    monkeypatch.chdir(tmp_path)  # no adjudicator.toml here
    result = CliRunner().invoke(app, ["status"], env={"ADJUDICATOR_DATABASE_URL": PG_URL})
    assert result.exit_code == 2
    assert "pip install 'adjudicator[postgresql]'" in result.output
    assert "Traceback" not in result.output


def test_sqlite_needs_no_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    uninstall(monkeypatch, "psycopg")
    uninstall(monkeypatch, "dns")
    config = load_config(env={"ADJUDICATOR_DATA_DIR": str(tmp_path)})
    engine = make_engine(config.database_url)
    assert engine.dialect.name == "sqlite"
    engine.dispose()


def test_without_dnspython_the_dns_check_is_skipped_and_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    uninstall(monkeypatch, "dns")
    (check,) = check_dns(Config(service=ServiceConfig(address="judge@games.example.net")))
    assert check.status == SKIP
    assert "dnspython is not installed" in check.message
    assert "pip install 'adjudicator[dns]'" in check.fix


def _extras_the_code_names() -> set[str]:
    """The ``extra=`` of every ``require_extra(...)`` call in the package."""
    named = set()
    for path in (ROOT / "adjudicator").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        if "require_extra(" not in source:
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "require_extra":
                named |= {
                    keyword.value.value
                    for keyword in node.keywords
                    if keyword.arg == "extra" and isinstance(keyword.value, ast.Constant)
                }
    return named


def test_every_extra_the_code_names_exists_and_the_test_command_installs_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    named = _extras_the_code_names()
    assert {"postgresql", "dns"} <= named
    assert named <= set(extras)
    (itself,) = [d for d in extras["test"] if d.startswith("adjudicator[")]
    assert named <= set(itself.removeprefix("adjudicator[").removesuffix("]").split(","))
    required = " ".join(project["dependencies"])
    assert "psycopg" not in required
    assert "dnspython" not in required
