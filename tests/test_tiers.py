"""The suite's tiers (tests/tiers.py): a module the slow list names must exist, or a module
renamed or moved would fall into the fast tier unnoticed."""

from __future__ import annotations

import pytest
from tiers import SLOW_MODULES, TESTS


@pytest.mark.parametrize("module", sorted(SLOW_MODULES))
def test_every_module_the_slow_list_names_exists(module: str) -> None:
    assert (TESTS / module).is_file(), (
        f"tests/{module} is gone: name where it went in tests/tiers.py's SLOW_MODULES"
    )
