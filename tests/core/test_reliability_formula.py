"""The reliability formula and the rating band (adjudicator/core/club.py; docs/club.md)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.core.club import Band, BandError, Mark, parse_band, reliability

ON, LATE, MISSED = Mark.ON_TIME, Mark.LATE, Mark.MISSED


@pytest.mark.parametrize(
    ("recent", "abandoned", "expected"),
    [
        ((), 0, 100),  # "a player with no counted round yet has 100"
        ((), 1, 90),
        ((ON, ON, LATE, MISSED, ON, LATE), 0, 67),  # 100 x (3 + 1) / 6 = 66.67
        ((LATE,), 0, 50),
        ((ON, MISSED, MISSED, MISSED, MISSED, MISSED, MISSED, MISSED), 0, 13),  # 12.5: half up
        ((MISSED,) * 5, 2, 0),  # never below 0
        ((ON,) * 4, 3, 70),
    ],
)
def test_reliability_follows_the_documented_formula(
    recent: tuple[Mark, ...], abandoned: int, expected: int
) -> None:
    """docs/club.md: 100 x (on time + 1/2 x late) / rounds, less 10 for each seat left,
    rounded half up, never below 0."""
    assert reliability(recent, abandoned=abandoned) == expected


def test_only_the_last_twenty_rounds_count() -> None:
    """ "rounds are the player's last 20 counted rounds ... newest first": twenty rounds on
    time after ten missed ones give 100."""
    assert reliability((ON,) * 20 + (MISSED,) * 10, abandoned=0) == 100
    assert reliability((MISSED,) + (ON,) * 20, abandoned=0) == 95


@given(st.lists(st.sampled_from(list(Mark)), max_size=40), st.integers(0, 20))
def test_reliability_stays_between_0_and_100(recent: list[Mark], abandoned: int) -> None:
    assert 0 <= reliability(recent, abandoned=abandoned) <= 100


@pytest.mark.parametrize(
    ("text", "band"),
    [("1400-1800", Band(1400, 1800)), ("1400-", Band(1400, None)), (" -1800 ", Band(None, 1800))],
)
def test_a_band_reads_and_writes_back(text: str, band: Band) -> None:
    assert parse_band(text) == band
    assert parse_band(band.text()) == band


@pytest.mark.parametrize("text", ["", "-", "1800-1400", "high", "1400:1800"])
def test_a_band_that_does_not_read_says_so(text: str) -> None:
    with pytest.raises(BandError, match="not a rating band"):
        parse_band(text)


def test_a_band_includes_both_ends() -> None:
    band = parse_band("1400-1800")
    assert band.admits(1400)
    assert band.admits(1800)
    assert not band.admits(1399)
    assert not band.admits(1801)
