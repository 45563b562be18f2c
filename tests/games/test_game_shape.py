"""Every game package has one shape, and a game is one folder (issue 41).

A game contributes its package, ``adjudicator/games/<game>/`` (its code, and its templates
under ``templates/``, found by the mail renderer under the names they would have in the shared
``templates/``), its rules page ``docs/rules/<game>.md`` with the pictures that page shows, and
one entry in ``adjudicator.games.KINDS``. The rules page stays in ``docs/rules/``: that folder
is the players' copy of every binding ruling, which the code and the tests cite by that path;
the game's face declares it (its docstring names it) and the package ships it.

These tests build the list of files each game contributes and check that nothing else in the
service (the shared templates, the code outside the game's package, the packaging) names a
game: a sixth game needs no change anywhere else.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from adjudicator.core.kind import GameKind
from adjudicator.games import KINDS
from adjudicator.mail.compose import Renderer

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "adjudicator"
GAMES = PACKAGE / "games"
RULES_PAGES = ROOT / "docs" / "rules"

EVERY_GAME_HAS = frozenset({"kind", "rules", "orders", "pictures", "standin"})
"""The modules of every game (``three_musketeers/`` is the model): its ``GameKind``, its
``Rules`` object, reading and writing its orders, its pictures and its stand-in."""
POSITION = frozenset({"board", "state"})
"""Where the position between rounds is held: ``board`` in a game played on one, ``state`` in
the others; a game has exactly one of them."""
SAID_WHEN_MISSING = ("board", "hints")
"""Parts some games have and some do not: a face without one says so."""
OWN_TEMPLATES = ("mail/{}/position.txt.j2", "mail/{}/result.txt.j2", "mail/answer/syntax/{}.txt.j2")
"""The templates the service asks for by the game's name, in every game."""


def package_of(kind: GameKind) -> Path:
    """The game's package: the folder of the module that defines its ``Rules`` object."""
    module = sys.modules[type(kind.rules).__module__]
    assert module.__file__ is not None
    return Path(module.__file__).parent


def rules_page(kind: GameKind) -> list[Path]:
    """``docs/rules/<game>.md`` and the pictures it shows (with an SVG twin where shipped)."""
    page = RULES_PAGES / f"{kind.name}.md"
    shown = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", page.read_text(encoding="utf-8"))
    pictures = [RULES_PAGES / name for name in shown]
    twins = [p.with_suffix(".svg") for p in pictures if p.suffix == ".png"]
    return [page, *pictures, *(t for t in twins if t.is_file())]


def contributed(kind: GameKind) -> list[Path]:
    """Every file the game brings: its package (code, templates, data) and its rules page."""
    package = package_of(kind)
    files = [p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return sorted([*files, *rules_page(kind)])


def words_of(kind: GameKind) -> set[str]:
    """What would name the game in shared code or templates: its record name, its package's
    name and its title."""
    return {kind.name, package_of(kind).name, kind.title.lower()}


def _face(kind: GameKind) -> ast.Module:
    return ast.parse((package_of(kind) / "__init__.py").read_text(encoding="utf-8"))


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_every_game_package_has_the_same_modules(kind: GameKind) -> None:
    package = package_of(kind)
    assert package.parent == GAMES
    modules = {p.stem for p in package.glob("*.py")} - {"__init__"}
    assert modules >= EVERY_GAME_HAS, f"{kind.name} lacks {sorted(EVERY_GAME_HAS - modules)}"
    assert len(modules & POSITION) == 1, f"{kind.name}: {sorted(modules & POSITION)}"


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_a_games_face_only_hands_names_on(kind: GameKind) -> None:
    """``__init__.py``: a docstring, imports from the package's own modules and ``__all__``;
    every name it hands on is imported, and nothing is defined there."""
    face = _face(kind)
    own = f"adjudicator.games.{package_of(kind).name}."
    imported: set[str] = set()
    for statement in face.body[1:]:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            continue
        if isinstance(statement, ast.ImportFrom):
            assert (statement.module or "").startswith(own), ast.unparse(statement)
            imported |= {alias.asname or alias.name for alias in statement.names}
            continue
        assert isinstance(statement, ast.Assign), f"{kind.name}: {ast.unparse(statement)}"
        assert [ast.unparse(t) for t in statement.targets] == ["__all__"]
        handed_on = ast.literal_eval(statement.value)
    assert handed_on, kind.name
    assert set(handed_on) == imported, kind.name


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_a_games_face_names_its_rules_page_and_its_parts(kind: GameKind) -> None:
    package = package_of(kind)
    said = ast.get_docstring(_face(kind)) or ""
    assert f"docs/rules/{kind.name}.md" in " ".join(said.split())
    modules = {p.stem for p in package.glob("*.py")} - {"__init__"}
    for module in sorted(modules):
        assert f":mod:`.{module}`" in said, f"{kind.name}'s face does not name .{module}"
    for part in SAID_WHEN_MISSING:
        if part not in modules:
            assert f"no {part}" in said, f"{kind.name}'s face does not say it has no {part}"


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_a_games_templates_are_in_its_folder_and_found_by_their_names(kind: GameKind) -> None:
    renderer = Renderer()
    loader = renderer.env.loader
    assert loader is not None
    folder = package_of(kind) / "templates"
    own = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.j2"))
    assert {name.format(kind.name) for name in OWN_TEMPLATES} <= set(own)
    for name in own:
        _, found, _ = loader.get_source(renderer.env, name)
        assert found == str(folder / name), f"{name} is found elsewhere: {found}"


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_the_files_a_game_contributes_are_its_folder_and_its_rules_page(kind: GameKind) -> None:
    package = package_of(kind)
    files = contributed(kind)
    assert all(f.is_file() for f in files)
    outside = [f for f in files if not f.is_relative_to(package)]
    assert outside == sorted(rules_page(kind))
    assert all(f.parent == RULES_PAGES and f.name.startswith(kind.name) for f in outside)
    inside = {f.relative_to(package).as_posix() for f in files if f.is_relative_to(package)}
    assert {"kind.py", "rules.py"} <= inside
    assert {name.format(kind.name) for name in OWN_TEMPLATES} <= {
        name.removeprefix("templates/") for name in inside
    }


def test_every_rules_file_belongs_to_one_game() -> None:
    """``docs/rules/`` holds the games' pages and pictures and the index, nothing of no game."""
    pages = [f for kind in KINDS for f in rules_page(kind)]
    assert len(pages) == len(set(pages))
    assert sorted([*pages, RULES_PAGES / "README.md"]) == sorted(RULES_PAGES.iterdir())


def test_no_shared_template_names_a_game() -> None:
    """The shared templates word every game alike; a game's own words are in its folder."""
    found = []
    for path in sorted((ROOT / "templates").rglob("*")):
        if not path.is_file():
            continue
        text = f"{path.relative_to(ROOT)}\n{path.read_text(encoding='utf-8')}".lower()
        found += [(str(path), w) for kind in KINDS for w in words_of(kind) if w in text]
    assert found == []


def _code_outside_the_games() -> list[Path]:
    games = {package_of(kind) for kind in KINDS}
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if not any(path.is_relative_to(g) for g in games)
        and "migrations" not in path.parts
        and path != GAMES / "__init__.py"
    ]


def _strings_that_are_not_docstrings(tree: ast.Module) -> list[str]:
    documented = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in documented
    ]


def test_no_code_outside_the_games_knows_a_game() -> None:
    """No module outside a game's package imports it or compares with its name: the service
    knows the games only through ``KINDS`` (``adjudicator/games/__init__.py``)."""
    packages = {package_of(kind).name for kind in KINDS}
    names = {w for kind in KINDS for w in words_of(kind)}
    found = []
    for path in _code_outside_the_games():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom | ast.Import):
                modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                modules += [alias.name for alias in node.names]
                found += [(str(path), m) for m in modules if set(m.split(".")) & packages]
        found += [
            (str(path), s) for s in _strings_that_are_not_docstrings(tree) if s.lower() in names
        ]
    assert found == []


def test_kinds_is_the_one_place_that_lists_the_games() -> None:
    """``adjudicator/games/__init__.py`` imports each game's ``KIND`` once, and that is all it
    knows of them."""
    tree = ast.parse((GAMES / "__init__.py").read_text(encoding="utf-8"))
    games = [
        node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("adjudicator.games.")
    ]
    assert sorted(games) == sorted(f"adjudicator.games.{package_of(k).name}.kind" for k in KINDS)
    names = {w for kind in KINDS for w in words_of(kind)}
    assert [s for s in _strings_that_are_not_docstrings(tree) if s.lower() in names] == []


def test_the_packaging_names_no_game() -> None:
    """The build ships every game's folder by pattern (``games/*/templates``), none by name.
    (A comment may say which game a dependency serves.)"""
    found = []
    for name in ("pyproject.toml", "MANIFEST.in", "setup.py"):
        lines = (ROOT / name).read_text(encoding="utf-8").lower().splitlines()
        text = "\n".join(line.partition("#")[0] for line in lines)
        found += [(name, w) for kind in KINDS for w in words_of(kind) if w in text]
    assert found == []
