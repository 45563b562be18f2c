"""STYLE.md: games/ and core/ import only the standard library and each other."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "adjudicator"
PURE = ("core", "games", "pictures")
# Modules that would let pure code reach the clock, global randomness or the outside world.
FORBIDDEN_STDLIB = {
    "socket",
    "smtplib",
    "imaplib",
    "subprocess",
    "sqlite3",
    "urllib",
    "http",
    "time",
    "os",
    "asyncio",
    "threading",
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def _pure_files() -> list[Path]:
    return sorted(p for folder in PURE for p in (PACKAGE / folder).rglob("*.py"))


@pytest.mark.parametrize("path", _pure_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_pure_packages_import_only_stdlib_and_each_other(path: Path) -> None:
    bad = []
    for line, module in _imports(path):
        top = module.split(".")[0]
        if top == "adjudicator":
            inside = module.split(".")[1] if "." in module else ""
            if inside not in PURE:
                bad.append(f"line {line}: {module}")
        elif top not in sys.stdlib_module_names or top in FORBIDDEN_STDLIB:
            bad.append(f"line {line}: {module}")
    assert not bad, f"{path.name} imports outside the pure layer: {bad}"


def test_pure_code_uses_no_global_random() -> None:
    """Randomness is passed in as a random.Random; the module-level functions are not used."""
    offenders = []
    for path in _pure_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
                and node.attr not in ("Random",)
            ):
                offenders.append(f"{path.name}:{node.lineno} random.{node.attr}")
    assert not offenders, offenders
