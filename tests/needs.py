"""What a test needs from the machine: a missing server or program skips the test here, and
fails it under CI (``CI=true``: .ci/run must provide it)."""

from __future__ import annotations

import importlib
import os
import shutil
from typing import NoReturn

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(reason: str) -> NoReturn:
    """Skip a test that needs something missing here; in CI the same thing is a failure."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: .ci/run must provide it)")
    pytest.skip(reason)


def require_program(name: str, package: str) -> str:
    """The path of program ``name`` (from Debian's ``package``), or skip/fail the test."""
    found = shutil.which(name)
    if found is None:
        unavailable(f"{name} is not installed (apt-get install {package})")
    return found


def require_extra(module: str, *, package: str, extra: str) -> None:
    """Skip/fail the test unless ``module`` (of ``package``, in the package's extra ``extra``)
    can be imported."""
    try:
        importlib.import_module(module)
    except ImportError:
        unavailable(f"{package} is not installed (pip install 'adjudicator[{extra}]')")
