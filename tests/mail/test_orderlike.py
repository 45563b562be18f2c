"""Which lines the reader keeps as orders or commands, never cutting them as a signature."""

from __future__ import annotations

import pytest

from adjudicator.mail.orderlike import reads_as_order


@pytest.mark.parametrize(
    "line", ["TAKE gw1 12345678", "take gw1 8963B1C3", "APPROVE c2 0F1E2D3C", "DECLINE sf 99990000"]
)
def test_a_coded_take_approve_or_decline_line_is_a_command(line: str) -> None:
    """docs/commands.md "Seats": the offer and join-request mails give these lines to send; a
    code of many digits must not make the line look like a signature's phone number."""
    assert reads_as_order(line)


@pytest.mark.parametrize("line", ["Take care,", "Take care and good luck", "Approved by legal"])
def test_a_sign_off_starting_with_the_same_word_is_not_a_command(line: str) -> None:
    assert not reads_as_order(line)
