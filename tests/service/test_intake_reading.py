"""What the intake reads of real mail: the charset note in the answer, quoted and signed orders
never applied, and a sample of the reader's corpus (tests/mail/corpus/) through the real intake."""

from __future__ import annotations

import json
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from playing import new_game
from sqlmodel import Session, col, select

from adjudicator.service.app import App
from adjudicator.service.games import Credentials
from adjudicator.storage.models import OrderSet, OutboxMail, SubmissionStatus

PLAYERS = ["alice", "bob", "carol"]


@pytest.fixture
def creds(app: App) -> dict[str, Credentials]:
    return new_game(app, PLAYERS, settings={"early_close": False})  # no welcome mails


def answers(app: App) -> list[tuple[str, str]]:
    """(kind, plain text) of every queued mail, oldest first."""
    with Session(app.engine) as session:
        rows = session.exec(select(OutboxMail).order_by(col(OutboxMail.id))).all()
        out = []
        for row in rows:
            body = message_from_bytes(row.message, policy=policy.default).get_body(
                preferencelist=("plain",)
            )
            assert body is not None
            out.append((row.kind, str(body.get_content())))
        return out


def stored(app: App) -> list[list[str]]:
    with Session(app.engine) as session:
        return [o.lines for o in session.exec(select(OrderSet).order_by(col(OrderSet.id)))]


def raw_mail(body: bytes, content_type: str) -> bytes:
    head = (
        "From: alice@example.org\nTo: judge@pbem.test\nSubject: [gw1] orders\n"
        f"Message-ID: <reading-{len(body)}@example.org>\nMIME-Version: 1.0\n"
        f"Content-Type: {content_type}\nContent-Transfer-Encoding: 8bit\n\n"
    )
    return head.encode() + body


def test_a_charset_that_does_not_fit_is_read_and_the_answer_says_how(
    app: App, creds: dict[str, Credentials]
) -> None:
    """EUC-JP text labelled ISO-2022-JP: the orders are read, and the confirmation tells the
    player which charset was used instead of the declared one."""
    body = f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob\nよろしく\n".encode("euc_jp")
    status = app.ingest(raw_mail(body, "text/plain; charset=ISO-2022-JP"), channel="pipe")
    assert status == SubmissionStatus.ACCEPTED
    assert stored(app) == [["GIVE 3 TO bob"]]
    [(kind, text)] = answers(app)
    assert kind == "confirmation"
    assert "よろしく" in text  # listed as not read, and readable
    assert "says its text is in ISO-2022-JP, but it is not: read as EUC-JP" in text


def test_a_mail_in_its_declared_charset_gets_no_such_note(
    app: App, creds: dict[str, Credentials]
) -> None:
    body = f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob\n".encode("iso2022_jp")
    app.ingest(raw_mail(body, "text/plain; charset=ISO-2022-JP"), channel="pipe")
    [(kind, text)] = answers(app)
    assert kind == "confirmation"
    assert "says its text is in" not in text


def test_orders_below_a_signature_dash_are_stored_and_the_signature_not_echoed(
    app: App, creds: dict[str, Credentials]
) -> None:
    """Orders are never dropped to make an echo disappear: an order typed below the
    signature's ``-- `` is stored with the others; the signature's other lines are not listed
    back as ignored."""
    body = (
        f"PASSWORD {creds['alice'].secret}\nGIVE 1 TO carol\n\n-- \nAlice Example\n"
        "Sent from my iPhone\n\nGIVE 2 TO bob\n"
    ).encode()
    status = app.ingest(raw_mail(body, "text/plain; charset=utf-8"), channel="pipe")
    assert status == SubmissionStatus.ACCEPTED
    assert stored(app) == [["GIVE 1 TO carol", "GIVE 2 TO bob"]]
    [(kind, text)] = answers(app)
    assert kind == "confirmation"
    assert "Alice Example" not in text


CORPUS = Path(__file__).resolve().parents[1] / "mail" / "corpus"
EXPECTED: dict[str, dict[str, list[str]]] = json.loads(
    (CORPUS / "expected.json").read_text(encoding="utf-8")
)


def _for_alices_giveaway(name: str) -> bool:
    """A corpus mail written as a reply in game gw1 (or naming none) with Giveaway's orders and
    no password: the rest are orders of the other games, or carry the corpus's own password
    (not alice's)."""
    head = (CORPUS / f"{name}.eml").read_bytes().split(b"\n\n", 1)[0]
    subject = next((line for line in head.splitlines() if line.startswith(b"Subject:")), b"")
    named = b"[gw1]" in subject or b"[" not in subject
    orders = EXPECTED[name]["orders"]
    return named and all(o.lstrip("- ").upper().startswith("GIVE ") for o in orders)


SAMPLE = [
    name
    for i, name in enumerate(sorted(n for n in EXPECTED if _for_alices_giveaway(n)))
    if i % 3 == i // 3 % 3
]
"""One mail of each client format (three variants each, in sorted order), the variant turning,
of those written for this game."""
IGNORED_HEADING = "These lines were not read as orders and were ignored:"


def ignored_lines(confirmation: str) -> list[str]:
    """The lines a confirmation lists as not read, as the player sees them."""
    if IGNORED_HEADING not in confirmation:
        return []
    listed = confirmation.split(IGNORED_HEADING, 1)[1].lstrip("\n").split("\n\n", 1)[0]
    return [line.strip() for line in listed.splitlines() if line.strip()]


@pytest.mark.slow
def test_a_sample_of_the_reader_corpus_through_the_real_intake(
    app: App, creds: dict[str, Credentials]
) -> None:
    """A third of the corpus (one mail of each client format), each mail sent as alice's reply
    to her confirmation (her reply address in To): her new orders are stored exactly, the
    quoted old orders never, and the confirmation lists as ignored only what she wrote herself
    (no quote, signature, footer or disclaimer line)."""
    token = creds["alice"].reply_token
    wrong: list[tuple[str, object]] = []
    for name in SAMPLE:
        case = EXPECTED[name]
        raw = (CORPUS / f"{name}.eml").read_bytes().replace(b"TOKEN", token.encode(), 1)
        status = app.ingest(raw, channel="pipe")
        want = [order.lstrip("- ") for order in case["orders"]]
        got = stored(app)[-1] if stored(app) else []
        kind, text = answers(app)[-1]
        chatter = [line for line in case["text"] if line not in case["orders"]]
        if status != SubmissionStatus.ACCEPTED or got != want or kind != "confirmation":
            wrong.append((name, (status, got, kind)))
        elif ignored_lines(text) != chatter:
            wrong.append((name, ignored_lines(text)))
    assert len(SAMPLE) >= 60
    assert wrong == []


def test_the_icloud_case_of_reading_mail_is_read_from_its_html_part(
    app: App, creds: dict[str, Credentials]
) -> None:
    """Issue 40, finding 10: docs/reading-mail.md's own iCloud case. iCloud's web mail writes
    the plain part as one line (``Hi, GIVE 2 TO bob GIVE 1 TO carol``) and the HTML part as
    lines; the orders are read from the HTML, and alice, replying with no password to her
    seat's reply address, is told her orders were received, not that none were found."""
    token = creds["alice"].reply_token
    raw = f"""\
From: Alice Example <alice@example.org>
To: judge+{token}@pbem.test
Subject: Re: [gw1] Orders received for round 1
Message-ID: <icloud-case@mail.example.org>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="=_alt"

--=_alt
Content-Type: text/plain; charset="utf-8"

Hi, GIVE 2 TO bob GIVE 1 TO carol
--=_alt
Content-Type: text/html; charset="utf-8"

<html><body><div>Hi,</div><div><br></div><div>GIVE 2 TO bob</div><div>GIVE 1 TO carol</div>
</body></html>
--=_alt--
""".encode()
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    assert stored(app) == [["GIVE 2 TO bob", "GIVE 1 TO carol"]]
    [(kind, text)] = answers(app)
    assert kind == "confirmation"
    flat = " ".join(text.split())
    assert "GIVE 2 TO bob" in flat
    assert "GIVE 1 TO carol" in flat
    assert "no orders" not in flat.lower()
