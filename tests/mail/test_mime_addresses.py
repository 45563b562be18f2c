"""Address header fields (``mail/mime.py``): the common forms are read by a quick path, and
every address is read exactly as the standard library's ``parseaddr`` reads it."""

from __future__ import annotations

from email import message_from_string
from email.policy import default
from email.utils import parseaddr

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.mail.mime import address_header, split_address

# Letters that make addresses, the specials of RFC 5322 that make them not plain, blanks
# and a letter outside ASCII.
ALPHABET = list("ab.@<> -+_'Z9\"(),;:\\[]\t\u00e9")


@settings(max_examples=3000, deadline=None)
@given(st.text(ALPHABET, max_size=24))
def test_any_text_is_read_as_parseaddr_reads_it(value: str) -> None:
    assert split_address(value) == parseaddr(value)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(
    st.from_regex(r"[a-z0-9.+_-]{1,12}@[a-z0-9-]{1,10}(\.[a-z]{2,4}){0,2}", fullmatch=True),
    st.from_regex(r"[A-Za-z0-9 ]{0,20}", fullmatch=True),
)
def test_the_common_forms_are_read_as_parseaddr_reads_them(address: str, name: str) -> None:
    assert split_address(address) == parseaddr(address)
    assert split_address(f"{name}<{address}>") == parseaddr(f"{name}<{address}>")
    assert split_address(f"{name} <{address}>") == parseaddr(f"{name} <{address}>")


@pytest.mark.parametrize(
    ("value", "name", "address"),
    [
        ("alice@example.org", "", "alice@example.org"),
        ("Alice  Smith <alice@example.org>", "Alice Smith", "alice@example.org"),
        ("J. Smith <j@example.org>", "J. Smith", "j@example.org"),
        ('"Smith, J" <j@example.org>', "Smith, J", "j@example.org"),
        ("Zoë <zoe@example.org>", "Zoë", "zoe@example.org"),
    ],
)
def test_a_mail_client_reads_the_name_and_the_address_back(
    value: str, name: str, address: str
) -> None:
    """Read as a mail client reads the header (RFC 5322, names RFC 2047-encoded where they
    are not ASCII): one address, with its display name and address as given."""
    field = address_header("To", value)
    assert field.isascii()
    message = message_from_string(f"{field}\n\n", policy=default)
    (read,) = message["To"].addresses
    assert (read.display_name, read.addr_spec) == (name, address)
