"""The reader over its own corpus (tests/mail/corpus/, built by make_corpus.py): replies in the
formats of some sixty mail clients, each with the player's text, orders and signature written
down when the mail was made. Every mail must give exactly the player's lines as text, its
signature, footer or disclaimer as signature, and the quoted old orders as quote only."""

from __future__ import annotations

import email
import json
from email import policy
from pathlib import Path

import pytest

from adjudicator.mail.body import extract_text
from adjudicator.mail.parse import is_order, read_mail
from adjudicator.mail.quotes import Split, body_lines, split_reply

CORPUS = Path(__file__).resolve().parent / "corpus"
EXPECTED: dict[str, dict[str, list[str]]] = json.loads(
    (CORPUS / "expected.json").read_text(encoding="utf-8")
)


def read_split(raw: bytes) -> Split:
    """A mail's body split as the intake splits it (``parse._with_body``)."""
    message = email.message_from_bytes(raw, policy=policy.compat32)
    return split_reply(body_lines(extract_text(message).body), is_order=is_order)


def _non_blank(lines: list[str]) -> list[str]:
    return [line.strip() for line in lines if line.strip()]


def test_the_corpus_is_large_and_varied() -> None:
    assert len(EXPECTED) >= 150
    assert len({case["client"] for case in EXPECTED.values()}) >= 50
    assert {path.stem for path in CORPUS.glob("*.eml")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_reply_splits_into_text_quote_and_signature(name: str) -> None:
    case = EXPECTED[name]
    raw = (CORPUS / f"{name}.eml").read_bytes()
    split = read_split(raw)
    assert _non_blank(split.text) == case["text"], split.classes
    assert _non_blank(split.signature) == case["signature"], split.classes
    quote = _non_blank(split.quote)
    for line in case["quoted"]:
        assert any(line in quoted for quoted in quote), (line, split.classes)
    lines = read_mail(raw).lines
    assert [line.strip() for line in lines if line.strip()] == case["text"]


GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _every_recorded_order() -> list[str]:
    from adjudicator.games import read_record

    found = {
        order.text
        for path in sorted(GOLDEN.glob("*/*.record"))
        for round_ in read_record(path.read_text(encoding="utf-8")).rounds
        for order in round_.orders
    }
    return sorted(found)


ORDERS = _every_recorded_order()
SURROUNDINGS = [
    "{order}\n\nThanks,\nAlice",
    "Hi,\n\n{order}\nAlice Example\nTel: +49 30 1234 5678\nwww.acme.example",
    "Best regards,\n{order}",
    "Alice\n\n{order}\n\nCONFIDENTIAL: this message is for the intended recipient only.",
    "{order}\nSent from my iPhone",
]


def test_the_corpus_has_orders_of_every_game() -> None:
    assert len(ORDERS) > 100


@pytest.mark.parametrize("surrounding", SURROUNDINGS)
def test_no_recorded_order_is_ever_taken_for_a_signature(surrounding: str) -> None:
    """Every order line of every golden record, among sign-offs, contact details, disclaimers
    and footers, stays the player's text: a signature is never guessed over an order."""
    eaten = []
    for order in ORDERS:
        split = split_reply(body_lines(surrounding.format(order=order)), is_order=is_order)
        if order.strip() not in [line.strip() for line in split.text]:
            eaten.append(order)
    assert eaten == []
