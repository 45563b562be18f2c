"""Build the reader's corpus: replies to the service in the formats of real mail clients.

Each mail is written here from public descriptions of how each client lays out a reply (where it
puts the attribution or the quoted header block, how it quotes, its footers, its MIME structure,
charset and transfer encoding); no other project's fixtures are used. Every mail answers the
service's confirmation below (``HISTORY``), whose quoted orders (``GIVE 9 TO mallory``, ``GIVE 5
TO carol``) must never be read as new orders.

``expected.json`` holds, for each mail, what a correct reader finds, written from the parts put
in (never computed by the reader under test): ``text``, the non-blank lines the player wrote
(orders and chatter), ``orders`` among them, ``signature``, the non-blank lines of the
signature, client footer or disclaimer, and ``quoted``, lines that must end up in the quote.
Run from the repository root (deterministic):

    .venv/bin/python tests/mail/corpus/make_corpus.py
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import last_mile
from mime_parts import Mail, html_blockquote, html_lines, prefixed, render

HERE = Path(__file__).resolve().parent

HISTORY = [
    "Hello alice,",
    "",
    "your orders for game gw1, round 1, are stored as:",
    "",
    "    GIVE 9 TO mallory",
    "    GIVE 5 TO carol",
    "",
    "You may send new orders any number of times before the deadline; the last valid set counts.",
    "Deadline: Thursday 05 March 2026, 12:00 GMT (Europe/London).",
]
QUOTED_ORDERS = ["GIVE 9 TO mallory", "GIVE 5 TO carol"]
SERVICE = "Judge <judge@pbem.test>"


@dataclass(frozen=True)
class Reply:
    """What the player writes: chatter and orders (``text``), and a signature."""

    text: tuple[str, ...]
    orders: tuple[str, ...]
    signature: tuple[str, ...] = ()
    expected_signature: tuple[str, ...] | None = None  # when not simply the non-blank lines

    @property
    def signed(self) -> list[str]:
        return [*self.text, *(["", *list(self.signature)] if self.signature else [])]


SIGNATURES: dict[str, tuple[str, ...]] = {
    "none": (),
    "dashes": ("-- ", "Alice Example", "https://alice.example.org"),
    "valediction": ("Thanks,", "Alice"),
    "regards": ("Best regards,", "", "Alice Example", "Game room 3"),
    "company": (
        "Alice Example",
        "Senior Analyst | ACME Widgets GmbH",
        "Musterstraße 12, 10115 Berlin",
        "Tel: +49 30 1234 5678 | Fax: +49 30 1234 5679",
        "www.acme-widgets.example",
    ),
    "disclaimer": (
        "Alice",
        "",
        "CONFIDENTIALITY NOTICE: This e-mail message, including any attachments, is for the sole",
        "use of the intended recipient(s) and may contain confidential and privileged",
        "information. Any unauthorized review, use, disclosure or distribution is prohibited.",
        "If you are not the intended recipient, please contact the sender by reply e-mail and",
        "destroy all copies of the original message.",
        "",
        "ACME Widgets GmbH, registered office: Berlin, Amtsgericht Charlottenburg HRB 12345,",
        "Geschäftsführer: Erika Mustermann.",
        "",
        "Please consider the environment before printing this e-mail.",
    ),
    "german": ("Viele Grüße", "Alice"),
}


def _reply(variant: int, signature: str) -> Reply:
    sig = SIGNATURES[signature]
    if variant == 0:
        return Reply(
            ("Hi,", "", "GIVE 2 TO bob", "GIVE 1 TO carol"),
            ("GIVE 2 TO bob", "GIVE 1 TO carol"),
            sig,
        )
    if variant == 1:
        return Reply(("GIVE 3 TO bob",), ("GIVE 3 TO bob",), sig)
    return Reply(
        (
            "Here are my orders for this round:",
            "",
            "- GIVE 2 TO bob",
            "- GIVE 1 TO carol",
            "",
            "See you at the table.",
        ),
        ("- GIVE 2 TO bob", "- GIVE 1 TO carol"),
        sig,
    )


@dataclass(frozen=True)
class Case:
    name: str
    client: str
    mail: Mail
    reply: Reply
    quoted: tuple[str, ...] = tuple(QUOTED_ORDERS)


CASES: list[Case] = []
Shape = Callable[[Reply, int], Mail]
SHAPES: list[tuple[str, Shape, tuple[str, str, str]]] = []


def shape(client: str, signatures: tuple[str, str, str]) -> Callable[[Shape], Shape]:
    """Register a client's reply format, built three times (variants 0-2) with these
    signature styles."""

    def register(function: Shape) -> Shape:
        SHAPES.append((client, function, signatures))
        return function

    return register


def greeting(reply: Reply, variant: int, first: str) -> Reply:
    """The reply with its greeting in another language (variant 0 has a greeting)."""
    return Reply((first, *reply.text[1:]), reply.orders, reply.signature) if variant == 0 else reply


def with_footer(reply: Reply, *footer: str) -> Reply:
    """The reply with a client's footer after the player's signature."""
    signature = (*reply.signature, "", *footer) if reply.signature else footer
    return Reply(reply.text, reply.orders, signature)


def top(reply: Reply, *rest: str) -> str:
    return "\n".join([*reply.signed, "", *rest]) + "\n"


# --- Gmail -----------------------------------------------------------------------------------


@shape("gmail-web", ("none", "valediction", "dashes"))
def gmail_web(reply: Reply, variant: int) -> Mail:
    attribution = "On Mon, Mar 2, 2026 at 1:05 PM Judge <judge@pbem.test> wrote:"
    plain = top(reply, attribution, "", *prefixed(HISTORY))
    markup = (
        f'<div dir="ltr">{html_lines(reply.signed)}</div><br><div class="gmail_quote">'
        f'<div dir="ltr" class="gmail_attr">{html.escape(attribution)}<br></div>'
        f"{html_blockquote(HISTORY, 'class=gmail_quote style=margin:0px')}</div>"
    )
    return Mail("gmail-web", plain, markup, headers={"X-Mailer": ""})


@shape("gmail-wrapped-attribution", ("none", "company", "regards"))
def gmail_wrapped(reply: Reply, variant: int) -> Mail:
    plain = top(
        reply,
        "On Mon, Mar 2, 2026 at 1:05 PM Judge Service of the Game Room <",
        "judge@pbem.test> wrote:",
        "",
        *prefixed(HISTORY),
    )
    return Mail("gmail-wrapped-attribution", plain, encoding="base64")


@shape("gmail-android", ("none", "valediction", "none"))
def gmail_android(reply: Reply, variant: int) -> Mail:
    plain = top(
        reply, "On Mon, 2 Mar 2026, 13:05 Judge, <judge@pbem.test> wrote:", "", *prefixed(HISTORY)
    )
    markup = (
        f'{html_lines(reply.signed)}<br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
        "On Mon, 2 Mar 2026, 13:05 Judge, &lt;judge@pbem.test&gt; wrote:<br></div>"
        f"{html_blockquote(HISTORY, 'class=gmail_quote')}</div>"
    )
    return Mail("gmail-android", plain, markup)


@shape("gmail-spanish", ("none", "valediction", "none"))
def gmail_spanish(reply: Reply, variant: int) -> Mail:
    return Mail(
        "gmail-spanish",
        top(
            reply,
            "El lun, 2 mar 2026 a las 13:05, Judge (<judge@pbem.test>) escribió:",
            "",
            *prefixed(HISTORY),
        ),
    )


@shape("gmail-japanese", ("none", "none", "valediction"))
def gmail_japanese(reply: Reply, variant: int) -> Mail:
    text = greeting(reply, variant, "よろしくお願いします。")
    return Mail(
        "gmail-japanese",
        top(text, "2026年3月2日(月) 13:05 Judge <judge@pbem.test>:", "", *prefixed(HISTORY)),
        charset="iso2022_jp",
        declared="ISO-2022-JP",
        encoding="7bit",
        text=text.text,
    )


@shape("gmail-korean", ("none", "none", "none"))
def gmail_korean(reply: Reply, variant: int) -> Mail:
    text = greeting(reply, variant, "안녕하세요,")
    return Mail(
        "gmail-korean",
        top(
            text,
            "2026년 3월 2일 (월) 오후 1:05, Judge <judge@pbem.test>님이 작성:",
            "",
            *prefixed(HISTORY),
        ),
        charset="euc_kr",
        declared="EUC-KR",
        encoding="base64",
        text=text.text,
    )


# --- Apple -----------------------------------------------------------------------------------


@shape("ios-mail", ("none", "none", "none"))
def ios_mail(reply: Reply, variant: int) -> Mail:
    footer = with_footer(reply, "Sent from my iPhone")
    quote = prefixed(["On 2 Mar 2026, at 13:05, Judge <judge@pbem.test> wrote:", "", *HISTORY])
    return Mail("ios-mail", top(footer, *quote), flowed=True, signature=footer.signature)


@shape("ios-mail-german", ("none", "none", "none"))
def ios_mail_german(reply: Reply, variant: int) -> Mail:
    footer = with_footer(reply, "Von meinem iPhone gesendet")
    quote = prefixed(["Am 02.03.2026 um 13:05 schrieb Judge <judge@pbem.test>:", "", *HISTORY])
    return Mail("ios-mail-german", top(footer, *quote), flowed=True, signature=footer.signature)


@shape("apple-mail", ("none", "dashes", "valediction"))
def apple_mail(reply: Reply, variant: int) -> Mail:
    quote = prefixed(["On 2 Mar 2026, at 13:05, Judge <judge@pbem.test> wrote:", "", *HISTORY])
    markup = (
        f'<html><body style="overflow-wrap: break-word;">{html_lines(reply.signed)}<div><br>'
        f'<blockquote type="cite"><div>On 2 Mar 2026, at 13:05, Judge &lt;judge@pbem.test&gt; wrote:</div><br>'
        f"{html_lines(HISTORY)}</blockquote></div></body></html>"
    )
    return Mail(
        "apple-mail", top(reply, *quote), markup, headers={"X-Mailer": "Apple Mail (2.3774)"}
    )


@shape("icloud-web", ("none", "none", "valediction"))
def icloud_web(reply: Reply, variant: int) -> Mail:
    # iCloud's plain part: everything on one line, text and quote together.
    one_line = " ".join(
        line
        for line in [
            *reply.signed,
            "On March 2, 2026 at 1:05 PM, Judge <judge@pbem.test> wrote:",
            *HISTORY,
        ]
        if line
    )
    markup = (
        f"<html><body>{html_lines(reply.signed)}<div><br></div>"
        f'<blockquote type="cite"><div>On March 2, 2026 at 1:05 PM, Judge &lt;judge@pbem.test&gt; wrote:</div>'
        f"{html_lines(HISTORY)}</blockquote></body></html>"
    )
    return Mail("icloud-web", one_line + "\n", markup, encoding="quoted-printable")


@shape("icloud-web-new", ("none", "none", "none"))
def icloud_web_new(reply: Reply, variant: int) -> Mail:
    # A new mail from iCloud's web mail, not a reply: the plain part is the HTML's lines on
    # one line, however short (docs/reading-mail.md, "Which part of a mail is read").
    one_line = " ".join(line for line in reply.signed if line)
    markup = f"<html><body>{html_lines(reply.signed)}</body></html>"
    return Mail("icloud-web-new", one_line + "\n", markup, history=False)


# --- Outlook ---------------------------------------------------------------------------------


def outlook_block(
    sent: str = "Monday, March 02, 2026 1:05 PM",
    labels: tuple[str, str, str, str] = ("From", "Sent", "To", "Subject"),
    sep: str = ": ",
) -> list[str]:
    f, s, t, u = labels
    return [
        f"{f}{sep}Judge [mailto:judge@pbem.test] ",
        f"{s}{sep}{sent}",
        f"{t}{sep}Alice Example",
        f"{u}{sep}[gw1] Orders received for round 1",
    ]


@shape("outlook-2003", ("none", "company", "disclaimer"))
def outlook_2003(reply: Reply, variant: int) -> Mail:
    # Outlook 2003 with Exchange: the history re-wrapped below the header block, no ">".
    lines = ["-----Original Message-----", *outlook_block(), "", *HISTORY]
    return Mail(
        "outlook-2003",
        top(reply, *lines),
        charset="cp1252",
        declared="iso-8859-1",
        headers={"X-Mailer": "Microsoft Office Outlook 11"},
    )


@shape("outlook-2007", ("valediction", "company", "none"))
def outlook_2007(reply: Reply, variant: int) -> Mail:
    lines = ["", *outlook_block(), "", *HISTORY]
    markup = (
        f"<html><body><div class=WordSection1>{html_lines(reply.signed)}"
        "<div style='border:none;border-top:solid #B5C4DF 1.0pt;padding:3.0pt 0cm 0cm 0cm'>"
        "<p class=MsoNormal><b>From:</b> Judge [mailto:judge@pbem.test] <br><b>Sent:</b> Monday, March 02, 2026 1:05 PM<br>"
        "<b>To:</b> Alice Example<br><b>Subject:</b> [gw1] Orders received for round 1</p></div>"
        f"{html_lines(HISTORY)}</div></body></html>"
    )
    return Mail(
        "outlook-2007",
        top(reply, *lines),
        markup,
        charset="cp1252",
        declared="us-ascii",
        headers={"X-Mailer": "Microsoft Office Outlook 12.0"},
    )


@shape("outlook-2016", ("regards", "disclaimer", "company"))
def outlook_2016(reply: Reply, variant: int) -> Mail:
    lines = [
        "From: Judge <judge@pbem.test> ",
        "Sent: Monday, 2 March 2026 13:05",
        "To: Alice Example <alice@example.org>",
        "Subject: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail("outlook-2016", top(reply, *lines), headers={"X-Mailer": "Microsoft Outlook 16.0"})


@shape("outlook-365-web", ("none", "company", "valediction"))
def outlook_web(reply: Reply, variant: int) -> Mail:
    lines = [
        "________________________________",
        "From: Judge <judge@pbem.test>",
        "Sent: Monday, March 2, 2026 13:05",
        "To: Alice Example <alice@example.org>",
        "Subject: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    markup = (
        f'<html><body><div dir="ltr">{html_lines(reply.signed)}</div><hr style="display:inline-block;width:98%">'
        '<div id="divRplyFwdMsg" dir="ltr"><b>From:</b> Judge &lt;judge@pbem.test&gt;<br><b>Sent:</b> Monday, March 2, 2026 13:05<br>'
        "<b>To:</b> Alice Example &lt;alice@example.org&gt;<br><b>Subject:</b> [gw1] Orders received for round 1</div>"
        f"<div>{html_lines(HISTORY)}</div></body></html>"
    )
    return Mail("outlook-365-web", top(reply, *lines), markup)


@shape("outlook-mac", ("none", "regards", "company"))
def outlook_mac(reply: Reply, variant: int) -> Mail:
    lines = [
        "From: Judge <judge@pbem.test>",
        "Date: Monday, 2 March 2026 at 13:05",
        "To: Alice Example <alice@example.org>",
        "Subject: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail(
        "outlook-mac", top(reply, *lines), headers={"User-Agent": "Microsoft-MacOutlook/16.89"}
    )


@shape("outlook-german", ("german", "company", "disclaimer"))
def outlook_german(reply: Reply, variant: int) -> Mail:
    block = outlook_block("Montag, 2. März 2026 13:05", ("Von", "Gesendet", "An", "Betreff"))
    return Mail(
        "outlook-german",
        top(reply, "-----Ursprüngliche Nachricht-----", *block, "", *HISTORY),
        charset="iso8859_15",
        declared="iso-8859-15",
    )


@shape("outlook-french", ("none", "company", "valediction"))
def outlook_french(reply: Reply, variant: int) -> Mail:
    block = outlook_block("lundi 2 mars 2026 13:05", ("De", "Envoyé", "À", "Objet"), " : ")
    return Mail(
        "outlook-french",
        top(reply, "", *block, "", *HISTORY),
        charset="cp1252",
        declared="windows-1252",
    )


@shape("outlook-html-only", ("none", "valediction", "disclaimer"))
def outlook_html_only(reply: Reply, variant: int) -> Mail:
    markup = (
        f"<html><head><style>p.MsoNormal {{margin:0cm}}</style></head><body>{html_lines(reply.signed)}"
        "<div><div style='border:none;border-top:solid #E1E1E1 1.0pt'><p class=MsoNormal><b>From:</b> Judge &lt;judge@pbem.test&gt; <br>"
        "<b>Sent:</b> Monday, March 2, 2026 1:05 PM<br><b>To:</b> Alice Example<br><b>Subject:</b> [gw1] Orders received for round 1</p></div></div>"
        f"{html_lines(HISTORY)}</body></html>"
    )
    return Mail("outlook-html-only", None, markup)


@shape("outlook-android", ("none", "none", "valediction"))
def outlook_android(reply: Reply, variant: int) -> Mail:
    footer = with_footer(reply, "Get Outlook for Android")
    lines = [
        "________________________________",
        "From: Judge <judge@pbem.test>",
        "Sent: Monday, March 2, 2026 1:05:00 PM",
        "To: Alice Example <alice@example.org>",
        "Subject: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail("outlook-android", top(footer, *lines), signature=footer.signature)


# --- Thunderbird and Mozilla ----------------------------------------------------------------


@shape("thunderbird-1.5", ("none", "dashes", "none"))
def thunderbird_15(reply: Reply, variant: int) -> Mail:
    return Mail(
        "thunderbird-1.5",
        top(reply, "Judge wrote:", *prefixed(HISTORY)),
        charset="iso8859_1",
        declared="ISO-8859-1",
        encoding="7bit",
        headers={"User-Agent": "Thunderbird 1.5.0.14 (Windows/20071210)"},
    )


@shape("thunderbird-bottom", ("none", "dashes", "valediction"))
def thunderbird_bottom(reply: Reply, variant: int) -> Mail:
    body = (
        "\n".join(["On 02/03/2026 13:05, Judge wrote:", *prefixed(HISTORY), "", *reply.signed])
        + "\n"
    )
    return Mail(
        "thunderbird-bottom",
        body,
        flowed=True,
        encoding="8bit",
        headers={"User-Agent": "Mozilla Thunderbird"},
    )


@shape("thunderbird-128", ("dashes", "none", "regards"))
def thunderbird_128(reply: Reply, variant: int) -> Mail:
    return Mail(
        "thunderbird-128",
        top(reply, "On 3/2/26 13:05, Judge wrote:", *prefixed(HISTORY)),
        flowed=True,
        encoding="8bit",
        headers={"User-Agent": "Mozilla Thunderbird 128.3.0"},
    )


@shape("thunderbird-german", ("german", "dashes", "none"))
def thunderbird_german(reply: Reply, variant: int) -> Mail:
    return Mail(
        "thunderbird-german",
        top(reply, "Am 02.03.26 um 13:05 schrieb Judge:", *prefixed(HISTORY)),
        encoding="8bit",
    )


@shape("thunderbird-interleaved", ("none", "none", "dashes"))
def thunderbird_interleaved(reply: Reply, variant: int) -> Mail:
    orders = list(reply.orders)
    body = [
        "On 02/03/2026 13:05, Judge wrote:",
        *prefixed(HISTORY[:3]),
        "",
        orders[0],
        "",
        *prefixed(HISTORY[3:6]),
        "",
        *orders[1:],
        *prefixed(HISTORY[6:]),
        *(["", *list(reply.signature)] if reply.signature else []),
    ]
    return Mail("thunderbird-interleaved", "\n".join(body) + "\n", text=reply.orders)


# --- Notes, Zimbra, webmail ------------------------------------------------------------------


@shape("notes-8.5", ("none", "company", "disclaimer"))
def notes_85(reply: Reply, variant: int) -> Mail:
    lines = [
        "Inactive hide details for Judge ---03/02/2026 01:05:00 PM---Hello alice, your orders for game gw1",
        "",
        "From: Judge <judge@pbem.test>",
        "To: alice@example.org",
        "Date: 03/02/2026 01:05 PM",
        "Subject: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail(
        "notes-8.5",
        top(reply, *lines),
        headers={"X-Mailer": "Lotus Notes Release 8.5.3 September 15, 2011"},
    )


@shape("notes-9", ("none", "company", "none"))
def notes_9(reply: Reply, variant: int) -> Mail:
    lines = [
        '"Judge" <judge@pbem.test> wrote on 02.03.2026 13:05:00:',
        "",
        '> From: "Judge" <judge@pbem.test>',
        "> To: alice@example.org",
        "> Date: 02.03.2026 13:05",
        *prefixed(HISTORY),
    ]
    return Mail("notes-9", top(reply, *lines), headers={"X-Mailer": "IBM Notes Release 9.0.1"})


@shape("notes-tabular", ("none", "company", "disclaimer"))
def notes_tabular(reply: Reply, variant: int) -> Mail:
    lines = [
        "",
        "From:\tJudge <judge@pbem.test>",
        "To:\talice@example.org",
        "Date:\t02.03.2026 13:05",
        "Subject:\t[gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail("notes-tabular", top(reply, *lines))


@shape("notes-forwarded-by", ("none", "company", "none"))
def notes_forwarded(reply: Reply, variant: int) -> Mail:
    lines = [
        "----- Forwarded by Alice Example/ACME on 02.03.2026 13:10 -----",
        "",
        "From:\tJudge <judge@pbem.test>",
        "To:\talice@example.org",
        "Date:\t02.03.2026 13:05",
        "Subject:\t[gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail("notes-forwarded-by", top(reply, *lines))


@shape("zimbra", ("none", "dashes", "regards"))
def zimbra(reply: Reply, variant: int) -> Mail:
    lines = [
        "----- Original Message -----",
        'From: "Judge" <judge@pbem.test>',
        'To: "Alice Example" <alice@example.org>',
        "Sent: Monday, March 2, 2026 1:05:00 PM",
        "Subject: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail(
        "zimbra",
        top(reply, *lines),
        headers={"X-Mailer": "Zimbra 9.0.0_GA_4178 (ZimbraWebClient - FF123)"},
    )


@shape("zimbra-prefixed", ("none", "company", "none"))
def zimbra_prefixed(reply: Reply, variant: int) -> Mail:
    lines = [
        "----- Mail original -----",
        'De: "Judge" <judge@pbem.test>',
        "À: alice@example.org",
        "Envoyé: Lundi 2 Mars 2026 13:05:00",
        "Objet: [gw1] Orders received for round 1",
        "",
        *prefixed(HISTORY),
    ]
    return Mail("zimbra-prefixed", top(reply, *lines))


@shape("roundcube", ("dashes", "none", "valediction"))
def roundcube(reply: Reply, variant: int) -> Mail:
    return Mail(
        "roundcube",
        top(reply, "On 2026-03-02 13:05, Judge wrote:", *prefixed(HISTORY)),
        flowed=True,
        headers={"User-Agent": "Roundcube Webmail/1.6.9"},
    )


@shape("roundcube-german", ("german", "dashes", "none"))
def roundcube_german(reply: Reply, variant: int) -> Mail:
    return Mail(
        "roundcube-german",
        top(reply, "Am 02.03.2026 13:05, schrieb Judge:", *prefixed(HISTORY)),
        flowed=True,
    )


@shape("yahoo-web", ("none", "valediction", "none"))
def yahoo_web(reply: Reply, variant: int) -> Mail:
    lines = [
        "",
        "On Monday, March 2, 2026 at 01:05:00 PM GMT+1, Judge <judge@pbem.test> wrote:",
        "",
        "",
        *HISTORY,
    ]
    markup = (
        f'<html><body><div class="ydp-body">{html_lines(reply.signed)}</div><div class="yahoo_quoted">'
        "<div>On Monday, March 2, 2026 at 01:05:00 PM GMT+1, Judge &lt;judge@pbem.test&gt; wrote:</div>"
        f"<div><br></div>{html_lines(HISTORY)}</div></body></html>"
    )
    return Mail("yahoo-web", top(reply, *lines), markup)


@shape("yahoo-classic", ("none", "none", "valediction"))
def yahoo_classic(reply: Reply, variant: int) -> Mail:
    lines = [
        "--- On Mon, 3/2/26, Judge <judge@pbem.test> wrote:",
        "",
        "From: Judge <judge@pbem.test>",
        "Subject: [gw1] Orders received for round 1",
        "To: alice@example.org",
        "Date: Monday, March 2, 2026, 1:05 PM",
        "",
        *HISTORY,
    ]
    return Mail("yahoo-classic", top(reply, *lines), charset="iso8859_1", declared="iso-8859-1")


@shape("yahoo-android", ("none", "none", "none"))
def yahoo_android(reply: Reply, variant: int) -> Mail:
    footer = with_footer(reply, "Sent from Yahoo Mail on Android")
    lines = ["  On Mon, Mar 2, 2026 at 13:05, Judge<judge@pbem.test> wrote:   ", *HISTORY]
    return Mail("yahoo-android", top(footer, *lines), signature=footer.signature)


@shape("zoho", ("none", "dashes", "none"))
def zoho(reply: Reply, variant: int) -> Mail:
    lines = [
        "---- On Mon, 02 Mar 2026 13:05:00 +0100 Judge <judge@pbem.test> wrote ----",
        "",
        *HISTORY,
    ]
    return Mail("zoho", top(reply, *lines))


@shape("gmx", ("german", "none", "company"))
def gmx(reply: Reply, variant: int) -> Mail:
    lines = [
        "Gesendet: Montag, 02. März 2026 um 13:05 Uhr",
        'Von: "Judge" <judge@pbem.test>',
        "An: alice@example.org",
        "Betreff: [gw1] Orders received for round 1",
        *HISTORY,
    ]
    return Mail("gmx", top(reply, *lines))


@shape("orange", ("none", "none", "valediction"))
def orange(reply: Reply, variant: int) -> Mail:
    lines = [
        "----- Mail original -----",
        "De: Judge <judge@pbem.test>",
        "À: alice@example.org",
        "Envoyé: lundi 2 mars 2026 13:05",
        "Objet: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail("orange", top(reply, *lines), charset="iso8859_1", declared="iso-8859-1")


@shape("proton", ("none", "none", "none"))
def proton(reply: Reply, variant: int) -> Mail:
    footer = with_footer(reply, "Sent with Proton Mail secure email.")
    quote = [
        "On Monday, March 2nd, 2026 at 13:05, Judge <judge@pbem.test> wrote:",
        "",
        *prefixed(HISTORY),
    ]
    return Mail("proton", top(footer, *quote), signature=footer.signature)


@shape("samsung-email", ("none", "none", "none"))
def samsung(reply: Reply, variant: int) -> Mail:
    footer = with_footer(reply, "Sent from my Galaxy")
    lines = [
        "",
        "",
        "-------- Original message --------",
        "From: Judge <judge@pbem.test> ",
        "Date: 02/03/2026 13:05 (GMT+01:00) ",
        "To: alice@example.org ",
        "Subject: [gw1] Orders received for round 1 ",
        "",
        *HISTORY,
    ]
    return Mail("samsung-email", top(footer, *lines), signature=footer.signature)


@shape("bluemail", ("none", "none", "none"))
def bluemail(reply: Reply, variant: int) -> Mail:
    footer = with_footer(reply, "\u2063Sent from BlueMail\u2063")
    quote = ["On Mar 2, 2026, at 13:05, Judge <judge@pbem.test> wrote:", *prefixed(HISTORY)]
    shown = with_footer(reply, "Sent from BlueMail").signature
    return Mail("bluemail", top(footer, *quote), signature=shown)


@shape("atmail", ("none", "dashes", "none"))
def atmail(reply: Reply, variant: int) -> Mail:
    lines = [
        "-----From: Judge <judge@pbem.test>",
        "To: alice@example.org",
        "Sent: Mon, 02 Mar 2026 13:05:00 +0100",
        "Subject: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail("atmail", top(reply, *lines), headers={"X-Mailer": "Atmail 7.8"})


# --- Chinese and Russian clients -------------------------------------------------------------


@shape("qqmail", ("none", "none", "none"))
def qqmail(reply: Reply, variant: int) -> Mail:
    text = greeting(reply, variant, "你好，")
    lines = [
        "------------------ 原始邮件 ------------------",
        '发件人: "Judge"<judge@pbem.test>;',
        "发送时间: 2026年3月2日(星期一) 下午1:05",
        '收件人: "alice"<alice@example.org>;',
        "主题: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail(
        "qqmail",
        top(text, *lines),
        charset="gb18030",
        declared="GB2312" if variant != 1 else "gb18030",
        encoding="base64",
        headers={"X-Mailer": "QQMail 2.x"},
        text=text.text,
    )


@shape("qqmail-english", ("none", "none", "none"))
def qqmail_english(reply: Reply, variant: int) -> Mail:
    lines = [
        "------------------ Original ------------------",
        'From: "Judge"<judge@pbem.test>;',
        "Date: Mon, Mar 2, 2026 01:05 PM",
        'To: "alice"<alice@example.org>;',
        "",
        "Subject: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail("qqmail-english", top(reply, *lines), encoding="base64")


@shape("coremail", ("none", "none", "none"))
def coremail(reply: Reply, variant: int) -> Mail:
    text = greeting(reply, variant, "谢谢！")
    lines = ['在 2026-03-02 13:05:00，"Judge" <judge@pbem.test> 写道：', *prefixed(HISTORY)]
    return Mail(
        "coremail",
        top(text, *lines),
        charset="gbk",
        declared="GB2312",
        encoding="base64",
        headers={"X-Mailer": "Coremail Webmail Server Version XT5.0.13"},
        text=text.text,
    )


@shape("coremail-forwarding", ("none", "none", "none"))
def coremail_forwarding(reply: Reply, variant: int) -> Mail:
    lines = [
        "-------- Forwarding messages --------",
        'From: "Judge" <judge@pbem.test>',
        "Date: 2026-03-02 13:05:00",
        'To: "alice" <alice@example.org>',
        "Subject: [gw1] Orders received for round 1",
        *HISTORY,
    ]
    return Mail(
        "coremail-forwarding", top(reply, *lines), charset="gbk", declared="GBK", encoding="base64"
    )


@shape("chinese-mailto", ("none", "none", "none"))
def chinese_mailto(reply: Reply, variant: int) -> Mail:
    # A Chinese client quoting only From (with [mailto:]) and Subject.
    lines = [
        "From: Judge [mailto:judge@pbem.test]",
        "Subject: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail(
        "chinese-mailto",
        top(reply, *lines),
        charset="gb18030",
        declared="gb2312",
        encoding="base64",
    )


@shape("mailru", ("none", "none", "valediction"))
def mailru(reply: Reply, variant: int) -> Mail:
    text = greeting(reply, variant, "Привет!")
    footer = with_footer(text, "Отправлено из мобильной Почты Mail.ru") if variant == 1 else text
    lines = [
        "",
        "",
        "Понедельник, 2 марта 2026, 13:05 +03:00 от Judge <judge@pbem.test>:",
        *prefixed(HISTORY),
    ]
    markup = (
        f"<html><body>{html_lines(footer.signed)}<br><br>"
        "<div>Понедельник, 2 марта 2026, 13:05 +03:00 от Judge &lt;judge@pbem.test&gt;:</div>"
        f"{html_blockquote(HISTORY, 'style=border-left:1px solid #0857A6')}</body></html>"
    )
    return Mail(
        "mailru",
        top(footer, *lines),
        markup,
        charset="koi8_r",
        declared="koi8-r",
        encoding="base64",
        text=text.text,
        signature=footer.signature,
    )


@shape("yandex", ("none", "none", "none"))
def yandex(reply: Reply, variant: int) -> Mail:
    text = greeting(reply, variant, "Добрый день,")
    lines = ['02.03.2026, 13:05, "Judge" <judge@pbem.test>:', *prefixed(HISTORY)]
    return Mail(
        "yandex",
        top(text, *lines),
        charset="cp1251",
        declared="windows-1251",
        encoding="8bit",
        text=text.text,
    )


# --- Emacs and Unix clients ------------------------------------------------------------------


@shape("gnus", ("dashes", "none", "none"))
def gnus(reply: Reply, variant: int) -> Mail:
    return Mail(
        "gnus",
        "\n".join(["Judge <judge@pbem.test> writes:", "", *prefixed(HISTORY), "", *reply.signed])
        + "\n",
        headers={"User-Agent": "Gnus/5.13 (Gnus v5.13)"},
    )


@shape("gnus-supercite", ("none", "dashes", "none"))
def gnus_supercite(reply: Reply, variant: int) -> Mail:
    lines = ['>>>>> "J" == Judge  <judge@pbem.test> writes:', "", *prefixed(HISTORY, "J> ")]
    return Mail("gnus-supercite", "\n".join([*lines, "", *reply.signed]) + "\n")


@shape("gnus-whimsical", ("none", "dashes", "none"))
def gnus_whimsical(reply: Reply, variant: int) -> Mail:
    attributions = ["Judge spake thus:", "Judge scribbled:", "The honourable Judge opined:"]
    lines = [attributions[variant], *prefixed(HISTORY, "judge> ")]
    return Mail("gnus-whimsical", top(reply, *lines))


@shape("mew", ("none", "none", "dashes"))
def mew(reply: Reply, variant: int) -> Mail:
    # Mew writes the quoted mail's From and Date above its quote, and the answer below.
    body = [
        "From: Judge <judge@pbem.test>",
        "Subject: [gw1] Orders received for round 1",
        "Date: Mon, 02 Mar 2026 13:05:00 +0100",
        "",
        *prefixed(HISTORY),
        "",
        *reply.signed,
    ]
    return Mail(
        "mew",
        "\n".join(body) + "\n",
        charset="iso2022_jp",
        declared="ISO-2022-JP",
        encoding="7bit",
        headers={"X-Mailer": "Mew version 6.8 on Emacs 29.4"},
    )


@shape("wanderlust", ("none", "dashes", "none"))
def wanderlust(reply: Reply, variant: int) -> Mail:
    body = [
        "At Mon, 02 Mar 2026 13:05:00 +0100,",
        "Judge wrote:",
        *prefixed(HISTORY),
        "",
        *reply.signed,
    ]
    return Mail(
        "wanderlust",
        "\n".join(body) + "\n",
        headers={"User-Agent": "Wanderlust/2.15.9 (Almost Unreal) Emacs/29.4"},
    )


@shape("mu4e", ("dashes", "none", "valediction"))
def mu4e(reply: Reply, variant: int) -> Mail:
    return Mail(
        "mu4e", top(reply, "Judge <judge@pbem.test> writes:", "", *prefixed(HISTORY)), flowed=True
    )


@shape("sup", ("none", "dashes", "none"))
def sup(reply: Reply, variant: int) -> Mail:
    return Mail(
        "sup",
        top(
            reply, "Excerpts from Judge's message of 2026-03-02 13:05:00 +0100:", *prefixed(HISTORY)
        ),
        headers={"User-Agent": "Sup/1.1"},
    )


@shape("mutt", ("dashes", "none", "none"))
def mutt(reply: Reply, variant: int) -> Mail:
    attribution = [
        "* Judge <judge@pbem.test> [2026-03-02 13:05 +0100]:",
        "On Mon, Mar 02, 2026 at 01:05:00PM +0100, Judge wrote:",
        "* Judge <judge@pbem.test> wrote:",
    ][variant]
    return Mail(
        "mutt",
        top(reply, attribution, *prefixed(HISTORY)),
        encoding="8bit",
        headers={"User-Agent": "Mutt/2.2.13 (2024-03-09)"},
    )


@shape("alpine", ("none", "dashes", "none"))
def alpine(reply: Reply, variant: int) -> Mail:
    return Mail(
        "alpine",
        top(reply, "On Mon, 2 Mar 2026, Judge wrote:", "", *prefixed(HISTORY)),
        charset="us-ascii",
        declared="US-ASCII",
        encoding="7bit",
        headers={"User-Agent": "Alpine 2.26 (DEB 649 2022-06-02)"},
    )


@shape("mailx", ("none", "none", "none"))
def mailx(reply: Reply, variant: int) -> Mail:
    return Mail(
        "mailx",
        top(reply, "Judge <judge@pbem.test> wrote:", "", *prefixed(HISTORY)),
        charset="us-ascii",
        encoding="7bit",
        headers={"MIME-Version": "", "User-Agent": "s-nail v14.9.24"},
    )


@shape("eudora", ("none", "none", "dashes"))
def eudora(reply: Reply, variant: int) -> Mail:
    attribution = [
        "At 13:05 02.03.2026, you wrote:",
        "At 01:05 PM 3/2/2026, Judge wrote:",
        "At 13:05 02.03.2026, you wrote:",
    ][variant]
    return Mail(
        "eudora",
        top(reply, attribution, *prefixed(HISTORY, ">")),
        charset="iso8859_1",
        declared="iso-8859-1",
        headers={"X-Mailer": "QUALCOMM Windows Eudora Version 7.1.0.9"},
    )


@shape("eudora-two-line", ("none", "none", "none"))
def eudora_two_line(reply: Reply, variant: int) -> Mail:
    return Mail(
        "eudora-two-line",
        top(reply, "At 13:05 02.03.2026,", "Judge wrote:", *prefixed(HISTORY, ">")),
    )


@shape("supercite-initials", ("none", "dashes", "none"))
def supercite(reply: Reply, variant: int) -> Mail:
    prefix = ["J> ", "JU> ", "Judge> "][variant]
    return Mail("supercite-initials", top(reply, "Judge wrote:", "", *prefixed(HISTORY, prefix)))


# --- Signed mail, SMS gateways, disclaimers --------------------------------------------------


@shape("pgp-mime", ("dashes", "none", "none"))
def pgp_mime(reply: Reply, variant: int) -> Mail:
    return Mail(
        "pgp-mime",
        top(reply, "On 02/03/2026 13:05, Judge wrote:", *prefixed(HISTORY)),
        signed="pgp",
        encoding="quoted-printable",
    )


@shape("smime", ("company", "none", "regards"))
def smime(reply: Reply, variant: int) -> Mail:
    lines = [
        "From: Judge <judge@pbem.test> ",
        "Sent: Monday, 2 March 2026 13:05",
        "To: Alice Example <alice@example.org>",
        "Subject: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    return Mail("smime", top(reply, *lines), signed="smime")


@shape("pgp-inline", ("none", "dashes", "none"))
def pgp_inline(reply: Reply, variant: int) -> Mail:
    escaped = [
        ("- " + line) if line.startswith("-") else line
        for line in [*reply.text, *(["", *list(reply.signature)] if reply.signature else [])]
    ]
    body = [
        "-----BEGIN PGP SIGNED MESSAGE-----",
        "Hash: SHA256",
        "",
        *escaped,
        "",
        "On 02/03/2026 13:05, Judge wrote:",
        *[("- " + line) if line.startswith("-") else line for line in prefixed(HISTORY)],
        "-----BEGIN PGP SIGNATURE-----",
        "",
        "iQEzBAEBCAAdFiEEexampleexampleexampleexample",
        "=abcd",
        "-----END PGP SIGNATURE-----",
    ]
    armour = (
        "-----BEGIN PGP SIGNED MESSAGE-----",
        "Hash: SHA256",
        *reply.signature,
        "-----BEGIN PGP SIGNATURE-----",
        "iQEzBAEBCAAdFiEEexampleexampleexampleexample",
        "=abcd",
        "-----END PGP SIGNATURE-----",
    )
    return Mail(
        "pgp-inline",
        "\n".join(body) + "\n",
        charset="us-ascii" if variant != 2 else "utf-8",
        encoding="7bit" if variant != 2 else "quoted-printable",
        signature=armour,
    )


@shape("sms-gateway", ("none", "none", "none"))
def sms_gateway(reply: Reply, variant: int) -> Mail:
    footers = [
        ("This message was sent via the SMS gateway of Example Telecom. Reply STOP to opt out.",),
        (
            "Sent by text message from +1 555 010 1234",
            "Msg&data rates may apply. Reply HELP for help, STOP to cancel.",
        ),
        ("--", "Sent using SMS-to-email. Reply to this email to text the sender back."),
    ]
    footer = Reply(reply.text, reply.orders, footers[variant])
    return Mail(
        "sms-gateway",
        "\n".join(footer.signed) + "\n",
        charset="us-ascii",
        encoding="7bit",
        headers={"X-Mailer": "SMS Gateway 3.2"},
        signature=footers[variant],
        history=False,
    )


@shape("exchange-banner", ("none", "company", "disclaimer"))
def exchange_banner(reply: Reply, variant: int) -> Mail:
    banner = "CAUTION: This email originated from outside of the organization. Do not click links or open attachments unless you recognize the sender and know the content is safe."
    lines = [
        "________________________________",
        "From: Judge <judge@pbem.test>",
        "Sent: Monday, March 2, 2026 1:05 PM",
        "To: Alice Example <alice@example.org>",
        "Subject: [gw1] Orders received for round 1",
        "",
        *HISTORY,
    ]
    body = "\n".join([banner, "", *reply.signed, "", *lines]) + "\n"
    return Mail("exchange-banner", body, signature=(banner, *reply.signature))


def _non_blank(lines: tuple[str, ...]) -> list[str]:
    """Lines as a reader gives them: invisible marks gone, spaces trimmed, blanks dropped."""
    cleaned = (line.replace("\u2063", "").strip() for line in lines)
    return [line for line in cleaned if line]


def build() -> dict[str, dict[str, object]]:
    expected: dict[str, dict[str, object]] = {}
    for client, function, signatures in SHAPES:
        for variant in range(3):
            reply = _reply(variant, signatures[variant])
            mail = function(reply, variant)
            name = f"{client}-{variant}"
            (HERE / f"{name}.eml").write_bytes(render(mail, name))
            expected[name] = {
                "client": client,
                "text": _non_blank(mail.text if mail.text is not None else reply.text),
                "orders": list(reply.orders),
                "signature": _non_blank(
                    mail.signature if mail.signature is not None else reply.signature
                ),
                "quoted": QUOTED_ORDERS if mail.history else [],
            }
    for name, case in last_mile.build().items():
        (HERE / f"{name}.eml").write_bytes(render(case.mail, name))
        expected[name] = {
            "client": case.client,
            "text": _non_blank(case.text),
            "orders": list(case.orders),
            "signature": _non_blank(case.signature),
            "quoted": list(case.quoted),
        }
    return expected


def main() -> None:
    for old in HERE.glob("*.eml"):
        old.unlink()
    expected = build()
    (HERE / "expected.json").write_text(
        json.dumps(expected, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8"
    )
    print(f"{len(expected)} mails from {len(SHAPES) + len(last_mile.SHAPES)} client formats")


if __name__ == "__main__":
    main()
