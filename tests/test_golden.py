"""Golden playthroughs: every tests/golden/<game>/<case>.record replays to its reviewed .json.

The .json files were checked by hand against docs/rules/ when they were written; a change in the
output shows up here as a diff to review.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.games import read_record, replay_record

GOLDEN = Path(__file__).parent / "golden"
RECORDS = sorted(GOLDEN.glob("*/*.record"))


def test_there_are_golden_playthroughs_for_every_game() -> None:
    from adjudicator.games import GAME_NAMES

    assert {p.parent.name for p in RECORDS} >= set(GAME_NAMES)


@pytest.mark.parametrize("record", RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_replay(record: Path) -> None:
    expected = json.loads(record.with_suffix(".json").read_text(encoding="utf-8"))
    parsed = read_record(record.read_text(encoding="utf-8"))
    assert parsed.game == record.parent.name
    assert replay_record(parsed) == expected
