"""The build step that pyproject.toml cannot declare: the templates (``templates/``) and the
games' rules pages (``docs/rules/``) live at the top of the repository, where writers and
players find them, and are copied into the package as ``adjudicator/templates`` and
``adjudicator/rules`` when a wheel is built, so that an installed wheel is complete on its own.
A checkout (an editable install) reads the top-level folders where they are
(``adjudicator/base/shipped.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = {"templates": "templates", "rules": "docs/rules"}
"""Folder in the package: its source at the top of the repository (keep in step with
adjudicator/base/shipped.py and MANIFEST.in)."""


class BuildWithSharedFolders(build_py):
    """``build_py`` plus a copy of each folder of :data:`SHIPPED` into the built package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # the package is the checkout: it reads the folders in place
            return
        for name, source in SHIPPED.items():
            origin = ROOT / source
            if not origin.is_dir():
                raise FileNotFoundError(
                    f"{origin} is missing: the package needs it to be complete (copy "
                    f"{source}/ with the rest of the source, e.g. in deploy/Dockerfile)"
                )
            target = Path(self.build_lib) / "adjudicator" / name
            shutil.rmtree(target, ignore_errors=True)  # nothing stale from an earlier build
            shutil.copytree(origin, target, ignore=shutil.ignore_patterns(".*", "__pycache__"))


setup(cmdclass={"build_py": BuildWithSharedFolders})
