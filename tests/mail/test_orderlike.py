"""Which lines the reader keeps as orders or commands, never cutting them as a signature."""

from __future__ import annotations

import pytest

from adjudicator.mail.orderlike import reads_as_order
from adjudicator.mail.quotes import split_reply


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


@pytest.mark.parametrize(
    "line",
    [
        "REPLACE cat new@example.org",
        "replace d WITH dora@example.org",
        "REPLACE player cat by <x@mail.example.org>",
    ],
)
def test_a_replace_line_is_a_command_not_a_contact_line(line: str) -> None:
    """docs/commands.md: the game master's REPLACE ends with the newcomer's address; alone
    at the end of a mail it was cut as a signature's contact details, and the mail answered
    as naming no game."""
    assert reads_as_order(line)


def test_a_replace_line_alone_at_the_end_of_a_mail_is_read() -> None:
    split = split_reply(["WITHDRAW a", "REPLACE d WITH dora@example.org"])
    assert "REPLACE d WITH dora@example.org" in split.text


@pytest.mark.parametrize("line", ["Replace my orders with these:", "jane@example.org"])
def test_prose_and_a_bare_address_are_not_a_replace(line: str) -> None:
    assert not reads_as_order(line)
