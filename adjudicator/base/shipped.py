"""The folders the package ships beside its code: its templates and the games' rules pages.

Their sources are at the top of the repository (``templates/``, ``docs/rules/``); the build
copies them into the package (``setup.py``), so an installed wheel finds them inside itself. A
checkout, installed editable or not at all, has no copies and reads the sources in place.

A game's own templates are not among them: they live in the game's package
(:data:`GAME_TEMPLATES`), package data like its code, so that a game is one folder.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parents[2]


def shipped_folder(name: str, *, source: str) -> Path:
    """The package's folder ``name`` (built from ``source`` of the repository): inside the
    installed package, else the checkout's own ``source``."""
    packaged = Path(str(resources.files("adjudicator") / name))
    if packaged.is_dir():
        return packaged
    checkout = _CHECKOUT / source
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"the package has no {name} folder ({packaged}) and there is no checkout's {source}/ "
        "beside it: install adjudicator from a wheel built from the whole source "
        "(`pip install .` in a checkout, with its templates/ and docs/rules/)"
    )


TEMPLATES = shipped_folder("templates", source="templates")
"""The mails' and the archive's Jinja2 templates."""
RULES = shipped_folder("rules", source="docs/rules")
"""The games' rules pages (Markdown) and their pictures."""
GAME_TEMPLATES: tuple[Path, ...] = tuple(
    sorted((Path(__file__).resolve().parents[1] / "games").glob("*/templates"))
)
"""Each game's own templates (``adjudicator/games/<game>/templates/``), laid out as in
``templates/`` and found under the same names (``mail/giveaway/result.txt.j2``,
``archive/report/giveaway.html.j2``, ``mail/answer/syntax/giveaway.txt.j2``)."""
