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

from adjudicator.core.errors import NotAnOrder
from adjudicator.core.kind import GameKind
from adjudicator.core.text import normalise_line
from adjudicator.games import KINDS
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
    """Some sixty common clients three times each, and the last mile (``last_mile.py``): 144
    more mails, four of each shape."""
    assert len(EXPECTED) >= 300
    assert len({case["client"] for case in EXPECTED.values()}) >= 90
    assert {path.stem for path in CORPUS.glob("*.eml")} == set(EXPECTED)


LAST_MILE = {
    # Quote headers that are not "On ... wrote:"
    "outlook-express", "outlook-express-joined", "webmail-dashed-from", "outlook-2003-cc",
    "notes-german", "notes-french", "notes-italian", "notes-dutch", "notes-spanish",
    "notes-portuguese", "notes-swedish", "notes-polish", "notes-japanese", "notes-chinese",
    "notes-russian", "notes-html", "notes-memo-text", "outlook-spanish", "outlook-portuguese",
    "outlook-swedish", "outlook-polish", "outlook-japanese", "foxmail-chinese",
    "outlook-russian", "html-quote-containers", "html-cite-containers",
    # Mailing-list footers and banners
    "mailman-3", "mailman-2", "google-groups", "m365-external-banner", "m365-banner-more",
    # Gateway and device signatures
    "sms-gateway-dashed", "ios-languages", "ios-languages-more", "carrier-notice",
    "device-lines-more",
}  # fmt: skip
"""The last mile's client shapes (issue 45's three classes), four mails each."""


def test_the_last_mile_has_every_class_four_times() -> None:
    """At least sixty mails of the project's own for the last mile, each class of quote
    header, list footer and gateway signature among them, four mails of each."""
    clients = [case["client"] for case in EXPECTED.values() if case["client"] in LAST_MILE]
    assert {client: clients.count(client) for client in LAST_MILE} == dict.fromkeys(LAST_MILE, 4)
    assert len(clients) >= 60


def _accepts(kind: GameKind, order: str) -> bool:
    try:
        kind.rules.parse_order(normalise_line(order))
    except NotAnOrder:
        return False
    except Exception:  # a wrongly written order of this game is still its order
        return True
    return True


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_the_mails_hold_orders_of_every_game(kind: GameKind) -> None:
    orders = {order for case in EXPECTED.values() for order in case["orders"]}
    assert any(_accepts(kind, order) for order in orders)


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
    kept = [line.strip() for line in read_mail(raw).lines if line.strip()]
    assert kept == case["text"]
    assert [line for line in kept if is_order(line)] == case["orders"]


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
    "{order}\n\n" + "-" * 44 + "\nEnvoyé par le service de messagerie texte de Fido\n" + "-" * 44,
    "-" * 44 + "\n{order}\nSent by the text messaging service of Rogers\n" + "-" * 44,
    "{order}\n" + "_" * 47 + "\n{order}\nGw1 mailing list -- gw1@lists.example.org",
    "External email: use caution when opening links or attachments.\n\n{order}",
    "Hi,\n\n{order}\n\nJudge via Team --- Re: [gw1] orders ---\n\nHello alice,",
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


LIST_MAIL = (
    "From: Alicia <alice@example.org>\nTo: gw1-jugadores@lists.example.org\n"
    "Subject: [gw1] ordenes\n{fields}Content-Type: text/plain; charset=utf-8\n\n"
    "Hola,\n\nGIVE 2 TO bob\n\n"
    "Para darse de baja de gw1-jugadores@lists.example.org, visite la web de la lista.\n"
)
LIST_FIELDS = (
    "List-Id: Jugadores de gw1 <gw1-jugadores.lists.example.org>\n"
    "List-Post: <mailto:gw1-jugadores@lists.example.org>\n"
    "List-Unsubscribe: <mailto:gw1-jugadores-leave@lists.example.org>\n"
)


def test_a_list_footer_in_any_language_is_known_by_the_lists_fields() -> None:
    """Mailing-list footers are not the player's text: recognised by the mail's List-* fields
    where present (a line naming the list), whatever language the list writes them in; the
    orders posted to the list are read."""
    mail = read_mail(LIST_MAIL.format(fields=LIST_FIELDS).encode())
    assert [line for line in mail.lines if line.strip()] == ["Hola,", "GIVE 2 TO bob"]


def test_without_the_lists_fields_an_unknown_footer_is_left_to_the_player() -> None:
    """Without the fields, a line in no footer's known shape stays the sender's: when in
    doubt, a line is read."""
    mail = read_mail(LIST_MAIL.format(fields="").encode())
    assert mail.lines[-1].startswith("Para darse de baja")


DEVICE_LINES = [
    "Sent from my iPhone", "Sent from my Galaxy", "Von meinem iPhone gesendet",
    "Von meinem/meiner Galaxy gesendet", "Gesendet von Outlook für Android",
    "Gesendet mit der WEB.DE Mail App", "Envoyé de mon iPhone", "Envoyé depuis mon téléphone",
    "Enviado desde mi iPhone", "Enviado do meu iPhone", "Inviato da iPhone",
    "Verstuurd vanaf mijn iPhone", "Skickat från min iPhone", "Sendt fra min iPhone",
    "Lähetetty iPhonesta", "Wysłane z iPhone'a", "Odesláno z iPhonu", "iPhone'umdan gönderildi",
    "Отправлено с iPhone", "iPhoneから送信", "发自我的iPhone", "iPhone에서 보냄",
    "Get Outlook for iOS", "Sent via the Samsung Galaxy S24 Ultra, an AT&T 5G smartphone",
    "Inviato dal mio dispositivo Samsung", "Obter o Outlook para Android",
    "Pobierz aplikację Outlook dla systemu Android", "iOS版Outlookを入手",
    "This mobile text message is brought to you by AT&T",
]  # fmt: skip


@pytest.mark.parametrize("device", DEVICE_LINES)
def test_sent_from_my_device_in_the_common_languages_is_no_text(device: str) -> None:
    """ "Sent from my ..." in the common languages is the mail program's line, not the
    player's: it is not echoed; the order above it is read."""
    split = split_reply(body_lines(f"SHIELD\n\n{device}\n"), is_order=is_order)
    assert (_non_blank(split.text), _non_blank(split.signature)) == (["SHIELD"], [device])


def test_an_order_in_the_shape_of_a_separator_opens_no_quote() -> None:
    """Orders are never dropped to make an echo disappear: a line that reads as an order is
    read even when it has a quote header's shape (here Notes' banner, ``x --- y ---``), and
    it does not hide the orders below it."""
    body = "GIVE 2 TO bob --- GIVE 1 TO carol ---\nGIVE 3 TO dave\n"
    split = split_reply(body_lines(body), is_order=is_order)
    assert _non_blank(split.text) == ["GIVE 2 TO bob --- GIVE 1 TO carol ---", "GIVE 3 TO dave"]


PLACES = {
    "below the signature dash": "Hi,\n\n-- \nAlice Example\n\n{order}\n",
    "right below the signature dash": "Hi,\n-- \n{order}\nAlice\n",
    "below Sent from my iPhone": "Hi,\n\nSent from my iPhone\n\n{order}\n",
    "below Envoyé de mon iPhone": "Envoyé de mon iPhone\n{order}\n",
    "inside a list footer's block": (
        "Hi,\n" + "_" * 47 + "\nGw1-players mailing list -- gw1-players@lists.example.org\n"
        "{order}\nTo unsubscribe send an email to gw1-players-leave@lists.example.org\n"
    ),
    "inside a gateway's ruled block": (
        "-" * 44 + "\nEnvoyé par le service de messagerie texte de Fido\n{order}\n" + "-" * 44
    ),
    "below a sign-off": "Thanks,\nAlice\n{order}\n",
    "inside a disclaimer's paragraph": (
        "Hi,\n\nCONFIDENTIAL: this message is for the intended recipient only.\n{order}\n"
    ),
    "below an external banner": "External email: use caution when opening links.\n{order}\n",
    "after a header that is no quote header": "Judge said:\n{order}\n",
    "after a colon line with a date": "My orders for 3 March:\n{order}\n",
    "after a writer's dashed title": "Round 3 --- my orders ---\n{order}\n",
    "after a lone From line": "From: alice\n{order}\n",
    "after a rule of the writer's": "Hi,\n" + "-" * 30 + "\n{order}\n",
    "below a name and an address": "Alice\n<alice@example.org>\n02.03.2026\nTo\n{order}\n",
    "below a short rule": "Hi,\n----\n{order}\nSent from my iPhone\n",
}
"""Places where a line could be taken for part of a signature, footer or quote header's reach
without being inside a recognised quote."""


@pytest.mark.parametrize("place", sorted(PLACES))
def test_an_order_is_read_wherever_it_stands_outside_a_quote(place: str) -> None:
    """Orders are never dropped to make an echo disappear: a line that could be an order
    (a right one, or a wrongly written one listed as a problem) is read wherever it stands,
    below a signature's ``-- ``, a mail program's line, inside a footer-like block, after a
    line that is not a recognised quote header, unless it is inside a recognised quote."""
    lost = []
    for order in ["GIVE 2 TO bob", "A5-B5", "MOVE e5 e4", "SHIELD", "TEAM red", "GIVE 99 TO"]:
        body = PLACES[place].format(order=order)
        raw = f"From: alice@example.org\nTo: judge@pbem.test\nSubject: [gw1] orders\n\n{body}"
        lines = [line.strip() for line in read_mail(raw.encode()).lines]
        if order not in lines:
            lost.append(order)
    assert lost == []


def test_an_order_inside_a_recognised_quote_is_not_read() -> None:
    """The one place an order-like line is not read: inside a recognised quote (old orders)."""
    body = (
        "SHIELD\n\n-----Original Message-----\nFrom: Judge [mailto:judge@pbem.test]\n"
        "Sent: Monday, March 02, 2026 1:05 PM\nTo: Alice\nSubject: [sc4] orders\n\nFIRE\n"
    )
    raw = f"From: alice@example.org\nTo: judge@pbem.test\nSubject: [sc4] orders\n\n{body}"
    assert [line for line in read_mail(raw.encode()).lines if line.strip()] == ["SHIELD"]


RULED_FOOTERS = [
    "-----\nSent from my T-Mobile 5G Device",
    "=" * 30 + "\nThis message was sent via Verizon text messaging.\n" + "=" * 30,
    "----\nCONFIDENTIAL: this message is for the intended recipient only.",
]


@pytest.mark.parametrize("footer", RULED_FOOTERS)
def test_a_footer_below_a_short_or_an_equals_rule_is_no_text(footer: str) -> None:
    """Carrier and company notices below a rule: a short one (four dashes or more) or one of
    ``=`` is the footer's too, and is not echoed; the order above is read, and an order below
    the rule keeps it all the player's."""
    split = split_reply(body_lines(f"GIVE 2 TO bob\n\n{footer}\n"), is_order=is_order)
    assert _non_blank(split.text) == ["GIVE 2 TO bob"]
    mixed = footer.replace("\n", "\nGIVE 1 TO carol\n", 1)
    split = split_reply(body_lines(f"GIVE 2 TO bob\n\n{mixed}\n"), is_order=is_order)
    assert "GIVE 1 TO carol" in _non_blank(split.text)
