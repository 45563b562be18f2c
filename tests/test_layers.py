"""The import direction of every package and module of ``adjudicator``.

Each part of the package sits on a floor; code may import only from its own floor or a lower
one, and no two parts may import each other through any path (no circles). The floors are the
README's layout, read from the bottom up: pure values and the configuration, logging and
secrets; pure drawing, pure games; storage; the read model that both the service and the
archive stand on; mail; the use cases; the archive site; ``adjudicate serve`` and the
processes it joins; the installation's doctor; the command line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "adjudicator"

FLOORS: tuple[tuple[str, ...], ...] = (
    ("core", "base"),
    ("pictures",),
    ("games", "solving"),
    ("storage",),
    ("readmodel",),
    ("mail",),
    ("notify",),
    ("service",),
    ("archive",),
    ("serve",),
    ("doctor",),
    ("cli",),
)
"""Bottom first. A name is a package (a folder) or a module (a file) directly under the package."""

FLOOR_OF = {part: level for level, parts in enumerate(FLOORS) for part in parts}


def _part_of(module: str) -> str | None:
    """The top-level part of ``adjudicator`` a dotted module name belongs to."""
    names = module.split(".")
    if names[0] != "adjudicator" or len(names) < 2:
        return None
    return names[1]


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every ``adjudicator`` module that ``path`` imports, anywhere in the file (also inside
    functions: a late import is still an arrow)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    relative_to = path.relative_to(PACKAGE.parent).with_suffix("")
    here = list(relative_to.parts)
    if here[-1] == "__init__":
        here.pop()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                found.append((node.lineno, node.module))
            elif node.level:
                base = here[: len(here) - node.level + (1 if path.name == "__init__.py" else 0)]
                found.append((node.lineno, ".".join([*base, *(node.module or "").split(".")])))
    return [(line, module) for line, module in found if module.startswith("adjudicator.")]


def _files() -> list[Path]:
    """The package's modules, less its face (``adjudicator/__init__.py``) and the migrations."""
    return sorted(
        p
        for p in PACKAGE.rglob("*.py")
        if "migrations" not in p.parts and p != PACKAGE / "__init__.py"
    )


def _part_of_file(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def test_every_part_is_on_a_floor() -> None:
    """A new package or module must be placed on a floor before it can pass the tests below."""
    parts = {_part_of_file(p) for p in _files()}
    assert parts <= set(FLOOR_OF), f"not on any floor: {sorted(parts - set(FLOOR_OF))}"


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    part = _part_of_file(path)
    assert part in FLOOR_OF, f"{part} is not on any floor"
    upward = []
    for line, module in _imports(path):
        target = _part_of(module)
        if target is None or target == part or target not in FLOOR_OF:
            continue
        if FLOOR_OF[target] > FLOOR_OF[part]:
            upward.append(f"line {line}: {module} (floor {FLOOR_OF[target]} > {FLOOR_OF[part]})")
    assert not upward, f"{path.relative_to(PACKAGE)} imports upwards: {upward}"


def test_no_circles_between_parts() -> None:
    """Parts on one floor must not import each other both ways (a circle of two)."""
    arrows: set[tuple[str, str]] = set()
    for path in _files():
        part = _part_of_file(path)
        for _, module in _imports(path):
            target = _part_of(module)
            if target and target != part:
                arrows.add((part, target))
    circles = sorted(f"{a} <-> {b}" for a, b in arrows if (b, a) in arrows and a < b)
    assert not circles, f"parts that import each other: {circles}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _module_arrows() -> dict[str, set[str]]:
    """Module to module: every import of a module of ``adjudicator`` (a package's face counts
    as its own module; ``from package import module`` points at the module)."""
    modules = {_module_name(p): p for p in _files()}
    arrows: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    above = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*above, *([node.module] if node.module else [])])
                for alias in node.names:
                    inner = f"{base}.{alias.name}"
                    targets.append(inner if inner in modules else base)
            for imported in targets:
                target = imported
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]  # a name inside a module: the module
                if target in modules and target != name:
                    arrows[name].add(target)
    return arrows


def _circles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without
    recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(arrows):
        if root in index:
            continue
        work = [(root, iter(sorted(arrows[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(arrows[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_no_circles_between_modules() -> None:
    """No module imports itself back through any path, within a part too (a late import
    inside a function is still an arrow)."""
    circles = _circles(_module_arrows())
    assert not circles, f"modules that import each other through a circle: {circles}"


def test_the_circle_finder_finds_a_circle_of_three() -> None:
    arrows = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert _circles(arrows) == [["a", "b", "c"]]
