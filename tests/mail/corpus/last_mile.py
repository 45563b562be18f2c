"""The corpus's last mile: replies whose quote, footer or signature is not the common kind.

Written to the shapes that real mail takes and that reply parsers (Discourse's receiver,
email_reply_trimmer, talon) are known to handle (docs/reading-mail.md):

* quote headers that are not "On ... wrote:": Outlook Express's ``----- Original Message -----``
  block (also joined onto one line by a client's wrapping), a dashed rule joined to ``From:``,
  Lotus Notes' banner and header blocks in the writer's language (with or without colons),
  Outlook's blocks in Spanish, Portuguese, Swedish, Polish, Japanese, Chinese and Russian, with
  the original below them pasted without ``>`` and re-wrapped, so that fragments of its
  sentences stand alone on lines;
* HTML-only replies whose quote is a container (``divRplyFwdMsg``, ``OLK_SRC_BODY_SECTION``,
  ``yahoo_quoted``, ``moz-cite-prefix``, a ``WordSection1`` rule with a top border);
* mailing-list footers (Mailman 2 and 3, Google Groups), Microsoft 365 "external" banners;
* text-message gateways' blocks between dashed rules, "Sent from my ..." in many languages,
  carriers' and companies' notices below a dashed rule.

Each client shape is built four times (as the player would send it: plain, with a password,
with a signature, and in a second form of the same client), and the orders of the five games
are spread over them. What a correct reader finds is written down from the parts put in.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from mime_parts import Mail, html_blockquote, html_lines, prefixed


@dataclass(frozen=True)
class Game:
    """One game's reply: what the player writes (``text``, ``orders`` among it) and the old
    orders of the service's confirmation the reply quotes."""

    name: str
    text: tuple[str, ...]
    orders: tuple[str, ...]
    old: tuple[str, ...]

    @property
    def subject(self) -> str:
        return f"[{self.name}] Orders received for round 1"

    @property
    def original(self) -> list[str]:
        """The service's mail as its writer sent it (lines up to 79 characters)."""
        return [
            "Hello alice,",
            "",
            f"your orders for game {self.name}, round 1, are stored as:",
            "",
            *(f"    {order}" for order in self.old),
            "",
            "You may send new orders any number of times before the deadline; the last",
            "valid set counts. Deadline: Thursday 05 March 2026, 12:00 GMT (Europe/London).",
            "",
            "The server moves to a new disk tonight: its inode table was full, and mail may",
            "wait an hour. Is there a better time for you? Tell me if so. Can you live with",
            "that?",
        ]


GAMES = (
    Game(
        "gw1",
        ("Hi Judge,", "", "GIVE 2 TO bob", "GIVE 1 TO carol"),
        ("GIVE 2 TO bob", "GIVE 1 TO carol"),
        ("GIVE 9 TO mallory", "GIVE 5 TO carol"),
    ),
    Game("rsp3", ("Rock forward, then we see.", "", "A5-B5"), ("A5-B5",), ("I8-H8",)),
    Game("sf2", ("TEAM red", "", "Sorry Bob, nothing personal."), ("TEAM red",), ("SOLO black",)),
    Game("sc4", ("SHIELD",), ("SHIELD",), ("FIRE",)),
    Game("tm5", ("MOVE e5 e4", "", "Your move, Cardinal."), ("MOVE e5 e4",), ("a1-a2", "b1-a1")),
)
PASSWORD = "PASSWORD tiger7"
FRAGMENTS = ("may", "with", "that?")
"""What re-wrapping the original at 72 columns leaves alone on lines."""


def rewrapped(lines: list[str], width: int = 72) -> list[str]:
    """``lines`` as a client re-wraps a pasted original: each line broken on its own."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
        else:
            out += textwrap.wrap(line, width, break_on_hyphens=False)
    return out


@dataclass(frozen=True)
class Reply:
    """What the player writes above the quote, and what a reader must find."""

    lines: tuple[str, ...]
    text: tuple[str, ...]
    orders: tuple[str, ...]
    signature: tuple[str, ...] = ()


def reply_for(game: Game, variant: int, signature: tuple[str, ...]) -> Reply:
    """Variant 0 the orders alone, 1 with a password first, 2 with ``signature``, 3 alone."""
    if variant == 1:
        text = (PASSWORD, "", *game.text)
        return Reply(text, text, (PASSWORD, *game.orders))
    if variant == 2 and signature:
        return Reply((*game.text, "", *signature), game.text, game.orders, signature)
    return Reply(game.text, game.text, game.orders)


@dataclass(frozen=True)
class Built:
    """A mail of the last mile, with what a correct reader finds in it."""

    client: str
    mail: Mail
    text: tuple[str, ...]
    orders: tuple[str, ...]
    signature: tuple[str, ...]
    quoted: tuple[str, ...]


@dataclass(frozen=True)
class Shaped:
    """What a client's shape gives: the mail, the signature a reader finds in it (the
    player's, with the client's or list's footers), and lines that must end up in the quote."""

    mail: Mail
    signature: tuple[str, ...]
    quoted: tuple[str, ...]


Shape = Callable[[Game, Reply, int], Shaped]
SHAPES: list[tuple[str, Shape, tuple[str, ...]]] = []


def shape(client: str, signature: tuple[str, ...] = ()) -> Callable[[Shape], Shape]:
    """Register a client's shape; ``signature`` is the player's in variant 2."""

    def register(function: Shape) -> Shape:
        SHAPES.append((client, function, signature))
        return function

    return register


def build() -> dict[str, Built]:
    """Every shape four times, the games spread over them."""
    built: dict[str, Built] = {}
    for number, (client, function, signature) in enumerate(SHAPES):
        for variant in range(4):
            game = GAMES[(number + variant) % len(GAMES)]
            reply = reply_for(game, variant, signature)
            shaped = function(game, reply, variant)
            shaped.mail.headers.setdefault("Subject", f"Re: {game.subject}")
            built[f"{client}-{variant}"] = Built(
                client, shaped.mail, reply.text, reply.orders, shaped.signature, shaped.quoted
            )
    return built


def body(*parts: list[str] | tuple[str, ...]) -> str:
    """Parts of a plain body, a blank line between them."""
    lines: list[str] = []
    for part in parts:
        if part:
            lines += [*([""] if lines else []), *part]
    return "\n".join(lines) + "\n"


def quoted_lines(game: Game, *, wrapped: bool) -> tuple[str, ...]:
    """Lines of the original that must be quote: its old orders, a line of its text, and the
    fragments that re-wrapping left alone on lines."""
    fragments = [line for line in rewrapped(game.original) if line not in game.original]
    return (*game.old, "inode table was full", *(fragments if wrapped else ()))


def original(game: Game, *, wrapped: bool) -> list[str]:
    """The service's mail below a header: pasted and re-wrapped, or quoted with ``>``."""
    return rewrapped(game.original) if wrapped else prefixed(game.original)


LABELS = {"iso8859_1": "ISO-8859-1", "iso8859_2": "ISO-8859-2", "iso8859_15": "ISO-8859-15",
          "cp1252": "windows-1252", "koi8_r": "KOI8-R", "iso2022_jp": "ISO-2022-JP",
          "gb2312": "GB2312", "utf-8": "UTF-8"}  # fmt: skip
"""The charset names mail programs write, for the codecs the bytes are written in."""


def mail_of(client: str, plain: str | None, **kwargs: object) -> Mail:
    """A client's mail, its charset labelled as mail programs label it."""
    mail = Mail(client, plain, **kwargs)  # type: ignore[arg-type]
    mail.declared = mail.declared or LABELS[mail.charset]
    return mail


REGARDS = ("Best regards,", "Alice Example")
COMPANY = (
    "Alice Example",
    "ACME Widgets GmbH | Musterstraße 12, 10115 Berlin",
    "Tel: +49 30 1234 5678",
)
SENT = "Monday, March 02, 2026 1:05 PM"


# --- Outlook Express, Outlook 2003, web mail's dashed From ------------------------------------


def _oe_block(game: Game) -> list[str]:
    return [
        "----- Original Message -----",
        'From: "Judge" <judge@pbem.test>',
        'To: "Alice Example" <alice@example.org>',
        "Cc: <gm@pbem.test>",
        f"Sent: {SENT}",
        f"Subject: {game.subject}",
    ]


@shape("outlook-express", REGARDS)
def outlook_express(game: Game, reply: Reply, variant: int) -> Shaped:
    # OE 6 quotes with ">" by default; with quoting turned off the original is pasted plain.
    wrapped = variant == 3
    mail = mail_of(
        "outlook-express",
        body(reply.lines, _oe_block(game), original(game, wrapped=wrapped)),
        charset="cp1252",
        declared="windows-1252",
        headers={"X-Mailer": "Microsoft Outlook Express 6.00.2900.5512"},
    )
    return Shaped(mail, reply.signature, quoted_lines(game, wrapped=wrapped))


@shape("outlook-express-joined", COMPANY)
def outlook_express_joined(game: Game, reply: Reply, variant: int) -> Shaped:
    # A client that re-wraps the mail it answers joins the header block's lines: all of them
    # into one paragraph (variants 0, 2), or only the first two (variants 1, 3).
    block = _oe_block(game)
    if variant in (0, 2):
        header = textwrap.wrap(" ".join(block), 76, break_on_hyphens=False)
    else:
        header = [f"{block[0]} {block[1]}", *block[2:]]
    mail = mail_of(
        "outlook-express-joined",
        body(reply.lines, header, original(game, wrapped=True)),
        charset="iso8859_1",
        declared="iso-8859-1",
        headers={"X-Mailer": "Microsoft Outlook Express 6.00.2800.1158"},
    )
    return Shaped(mail, reply.signature, quoted_lines(game, wrapped=True))


@shape("webmail-dashed-from", REGARDS)
def webmail_dashed_from(game: Game, reply: Reply, variant: int) -> Shaped:
    header = [
        f'{"-" * 41}From: "Judge" judge@pbem.test',
        "To: alice@example.org",
        f"Sent: {SENT}",
        f"Subject: {game.subject}",
    ]
    wrapped = variant != 1
    mail = mail_of(
        "webmail-dashed-from",
        body(reply.lines, header, original(game, wrapped=wrapped)),
        encoding="base64" if variant == 3 else "quoted-printable",
        headers={"X-Mailer": "Atmail PHP 6.2"},
    )
    return Shaped(mail, reply.signature, quoted_lines(game, wrapped=wrapped))


@shape("outlook-2003-cc", COMPANY)
def outlook_2003_cc(game: Game, reply: Reply, variant: int) -> Shaped:
    header = [
        "-----Original Message-----",
        "From: Judge [mailto:judge@pbem.test] ",
        f"Sent: {SENT}",
        "To: Alice Example",
        "Cc: Game Master; Bob Builder",
        f"Subject: {game.subject}",
    ]
    mail = mail_of(
        "outlook-2003-cc",
        body(reply.lines, header, original(game, wrapped=True)),
        charset="cp1252",
        declared="iso-8859-1" if variant == 3 else "windows-1252",
        encoding="8bit" if variant == 3 else "quoted-printable",
        headers={"X-Mailer": "Microsoft Office Outlook 11"},
    )
    return Shaped(mail, reply.signature, quoted_lines(game, wrapped=True))


# --- Lotus Notes: a banner, and a header block in the writer's language ----------------------


def _notes_block(
    labels: tuple[str, str, str, str], colons: str, game: Game, date: str = "02.03.2026 13:05"
) -> list[str]:
    """Notes' header table as text: a label, a tab, the value; ``colons`` says which labels
    have their colon ("1010": the first and the third)."""
    values = ('"Judge" <judge@pbem.test>', "alice@example.org", date, game.subject)
    return [
        f"{label}{':' if colon == '1' else ''}\t{value}"
        for label, colon, value in zip(labels, colons, values, strict=True)
    ]


def _notes(
    client: str,
    labels: tuple[str, str, str, str],
    charset: str,
    *,
    date: str = "02.03.2026 13:05",
    encoding: str = "quoted-printable",
) -> Callable[[Game, Reply, int], Shaped]:
    """Notes in a language: variant 0 the banner and the block with colons, 1 some colons, 2
    the block alone without colons, 3 the banner alone (base64)."""

    def notes(game: Game, reply: Reply, variant: int) -> Shaped:
        banner = [f"Judge via Team --- {game.subject} [Ticket#4711] ---"]
        block = _notes_block(labels, ("1111", "1010", "0000", "1111")[variant], game, date)
        header = [*(banner if variant in (0, 1, 3) else []), *(block if variant != 3 else [])]
        mail = mail_of(
            client,
            body(reply.lines, header, original(game, wrapped=True)),
            charset=charset,
            encoding="base64" if variant == 3 else encoding,
            headers={"X-Mailer": "Lotus Notes Release 9.0.1FP10 SHF383 January 08, 2019"},
        )
        return Shaped(mail, reply.signature, quoted_lines(game, wrapped=True))

    return notes


shape("notes-german", ("Mit freundlichen Grüßen", "Alice Example"))(
    _notes("notes-german", ("Von", "An", "Datum", "Betreff"), "iso8859_1")
)
shape("notes-french", ("Cordialement,", "Alice"))(
    _notes("notes-french", ("De ", "À ", "Envoyé ", "Objet "), "iso8859_15")
)
shape("notes-italian", ("Cordiali saluti,", "Alice"))(
    _notes("notes-italian", ("Da", "A", "Inviato", "Oggetto"), "iso8859_1")
)
shape("notes-dutch", ("Met vriendelijke groet,", "Alice"))(
    _notes("notes-dutch", ("Van", "Aan", "Verzonden", "Onderwerp"), "iso8859_1")
)


# --- Outlook in other languages ----------------------------------------------------------------


def _outlook(
    client: str,
    lines: tuple[str, str, str, str],
    *,
    charset: str,
    declared: str | None = None,
    separator: str = "",
    encoding: str = "quoted-printable",
) -> Callable[[Game, Reply, int], Shaped]:
    """Outlook in a language: its header block (with its separator line in variant 1), the
    original pasted below it; quoted with ``>`` in variant 2 (a user's setting)."""

    def outlook(game: Game, reply: Reply, variant: int) -> Shaped:
        header = [*lines[:3], f"{lines[3]}{game.subject}"]
        if variant == 1 and separator:
            header = [separator, *header]
        wrapped = variant != 2
        mail = mail_of(
            client,
            body(reply.lines, header, original(game, wrapped=wrapped)),
            charset=charset,
            declared=declared,
            encoding="base64" if variant == 3 else encoding,
            headers={"X-Mailer": "Microsoft Outlook 16.0"},
        )
        return Shaped(mail, reply.signature, quoted_lines(game, wrapped=wrapped))

    return outlook


shape("outlook-spanish", ("Saludos,", "Alicia"))(
    _outlook(
        "outlook-spanish",
        (
            "De: Judge <judge@pbem.test>",
            "Enviado el: lunes, 2 de marzo de 2026 13:05",
            "Para: Alicia Ejemplo <alice@example.org>",
            "Asunto: ",
        ),
        charset="iso8859_1",
        declared="iso-8859-1",
        separator="-----Mensaje original-----",
    )
)
shape("outlook-portuguese", ("Atenciosamente,", "Alice"))(
    _outlook(
        "outlook-portuguese",
        (
            "De: Judge <judge@pbem.test>",
            "Enviada em: segunda-feira, 2 de março de 2026 13:05",
            "Para: Alice Exemplo <alice@example.org>",
            "Assunto: ",
        ),
        charset="cp1252",
        declared="windows-1252",
        separator="-----Mensagem original-----",
    )
)
shape("outlook-swedish", ("Med vänliga hälsningar", "Alice"))(
    _outlook(
        "outlook-swedish",
        (
            "Från: Judge <judge@pbem.test>",
            "Skickat: den 2 mars 2026 13:05",
            "Till: Alice Exempel <alice@example.org>",
            "Ämne: ",
        ),
        charset="iso8859_1",
        separator="-----Ursprungligt meddelande-----",
    )
)
shape("outlook-polish", ("Pozdrawiam,", "Alicja"))(
    _outlook(
        "outlook-polish",
        (
            "Od: Judge <judge@pbem.test>",
            "Wysłano: poniedziałek, 2 marca 2026 13:05",
            "Do: Alicja Przykład <alice@example.org>",
            "Temat: ",
        ),
        charset="iso8859_2",
        separator="-----Oryginalna wiadomość-----",
    )
)
shape("outlook-japanese", ("よろしくお願いします。",))(
    _outlook(
        "outlook-japanese",
        (
            "差出人: Judge <judge@pbem.test>",
            "送信日時: 2026年3月2日 13:05",
            "宛先: Alice Example <alice@example.org>",
            "件名: ",
        ),
        charset="iso2022_jp",
        declared="ISO-2022-JP",
        encoding="7bit",
        separator="-----Original Message-----",
    )
)
shape("foxmail-chinese", ("谢谢",))(
    _outlook(
        "foxmail-chinese",
        (
            "发件人：Judge<judge@pbem.test>",
            "发送时间：2026年3月2日(星期一) 下午1:05",
            "收件人：Alice<alice@example.org>",
            "主题：",
        ),
        charset="gb2312",
        declared="gb2312",
        encoding="base64",
        separator="------------------ 原始邮件 ------------------",
    )
)
shape("outlook-russian", ("С уважением,", "Алиса"))(
    _outlook(
        "outlook-russian",
        (
            "От: Judge [mailto:judge@pbem.test]",
            "Отправлено: 2 марта 2026 г. 13:05",
            "Кому: Алиса <alice@example.org>",
            "Тема: ",
        ),
        charset="koi8_r",
        declared="koi8-r",
        separator="-----Исходное сообщение-----",
    )
)


# --- Mailing lists and banners -----------------------------------------------------------------

_LIST_HEADERS = {
    "List-Id": "Players of gw1 <gw1-players.lists.example.org>",
    "List-Post": "<mailto:gw1-players@lists.example.org>",
    "List-Help": "<mailto:gw1-players-request@lists.example.org?subject=help>",
    "List-Subscribe": "<mailto:gw1-players-join@lists.example.org>",
    "List-Unsubscribe": "<mailto:gw1-players-leave@lists.example.org>",
}


def _list_quote(game: Game, variant: int) -> tuple[list[str], tuple[str, ...]]:
    """A list post answers the previous post, quoted with ``>`` (variants 0 and 2)."""
    if variant in (0, 2):
        lines = ["On 02/03/2026 13:05, Judge wrote:", *prefixed(game.original)]
        return lines, quoted_lines(game, wrapped=False)
    return [], ()


@shape("mailman-3", REGARDS)
def mailman_3(game: Game, reply: Reply, variant: int) -> Shaped:
    footer = (
        "_" * 47,
        "Gw1-players mailing list -- gw1-players@lists.example.org",
        "To unsubscribe send an email to gw1-players-leave@lists.example.org",
    )
    quote, quoted = _list_quote(game, variant)
    headers = _LIST_HEADERS if variant != 3 else {}  # 3: a copy without the list's fields
    plain = body(reply.lines, quote, footer)
    mail = mail_of("mailman-3", plain, encoding="7bit" if variant else "8bit", headers=headers)
    return Shaped(mail, (*reply.signature, *footer), quoted)


@shape("mailman-2", COMPANY)
def mailman_2(game: Game, reply: Reply, variant: int) -> Shaped:
    footer = (
        "_" * 47,
        "Gw1-players mailing list",
        "Gw1-players@lists.example.org",
        "https://lists.example.org/mailman/listinfo/gw1-players",
    )
    quote, quoted = _list_quote(game, variant)
    headers = {**_LIST_HEADERS, "Precedence": "list"} if variant != 3 else {}
    mail = mail_of("mailman-2", body(reply.lines, quote, footer), headers=headers)
    return Shaped(mail, (*reply.signature, *footer), quoted)


@shape("google-groups", ("Thanks,", "Alice"))
def google_groups(game: Game, reply: Reply, variant: int) -> Shaped:
    footer = (
        *(("--",) if variant in (0, 2) else ()),
        'You received this message because you are subscribed to the Google Groups "gw1'
        ' players" group.',
        "To unsubscribe from this group and stop receiving emails from it, send an email to"
        " gw1-players+unsubscribe@googlegroups.com.",
        "To view this discussion visit"
        " https://groups.google.com/d/msgid/gw1-players/abc123%40mail.example.org.",
    )
    quote, quoted = _list_quote(game, variant)
    headers = {
        "Mailing-list": "list gw1-players@googlegroups.com; contact gw1-players+owners@googlegroups.com",
        "Precedence": "list",
        "List-ID": "<gw1-players.googlegroups.com>",
        "List-Post": "<https://groups.google.com/group/gw1-players/post>, <mailto:gw1-players@googlegroups.com>",
        "List-Unsubscribe": "<mailto:googlegroups-manage+1+unsubscribe@googlegroups.com>",
    }
    mail = mail_of("google-groups", body(reply.lines, quote, footer), headers=headers)
    return Shaped(mail, (*reply.signature, *footer), quoted)


_BANNERS = (
    "You don't often get email from judge@pbem.test. Learn why this is important"
    "<https://aka.ms/LearnAboutSenderIdentification>",
    "[EXTERNAL EMAIL] DO NOT CLICK links or attachments unless you recognize the sender and"
    " know the content is safe.",
    "External email: use caution when opening links or attachments.",
    "ATTENTION: This email was sent from outside the company. Do not click links or open"
    " attachments unless you trust the sender.",
)


@shape("m365-external-banner", ("Thanks,", "Alice"))
def m365_external_banner(game: Game, reply: Reply, variant: int) -> Shaped:
    banner = _BANNERS[variant]
    header = [
        "________________________________",
        "From: Judge <judge@pbem.test>",
        "Sent: Monday, March 2, 2026 1:05 PM",
        "To: Alice Example <alice@example.org>",
        f"Subject: {game.subject}",
    ]
    plain = body([banner], reply.lines, header, original(game, wrapped=True))
    mail = mail_of("m365-external-banner", plain, headers={"X-MS-Exchange-Organization-SCL": "1"})
    return Shaped(mail, (banner, *reply.signature), quoted_lines(game, wrapped=True))


# --- Gateways and devices ----------------------------------------------------------------------

_GATEWAYS = (
    ("Envoyé par le service de messagerie texte de Fido",),
    (
        "Ce message a été envoyé par le service de messagerie texte de Bell.",
        "This message was sent by Bell's text messaging service.",
    ),
    ("Sent by the text messaging service of Rogers",),
    ("Mensaje enviado desde el servicio de mensajería de texto de Movistar",),
)


@shape("sms-gateway-dashed")
def sms_gateway_dashed(game: Game, reply: Reply, variant: int) -> Shaped:
    rule = "-" * 44
    footer = (rule, *_GATEWAYS[variant], rule)
    mail = mail_of(
        "sms-gateway-dashed",
        body(reply.lines, footer),
        charset="iso8859_1",
        encoding="8bit",
        headers={"X-Mailer": "SMS-to-Mail Gateway"},
    )
    return Shaped(mail, footer, ())


_DEVICES = (
    ("Envoyé de mon iPhone", "Le 2 mars 2026 à 13:05, Judge <judge@pbem.test> a écrit :"),
    ("Verstuurd vanaf mijn iPhone", "Op 2 mrt 2026 om 13:05 heeft Judge <judge@pbem.test> het volgende geschreven:"),
    ("Skickat från min iPhone", "2 mars 2026 kl. 13:05 skrev Judge <judge@pbem.test>:"),
    ("Отправлено с iPhone", "2 марта 2026 г., в 13:05, Judge <judge@pbem.test> написал(а):"),
)  # fmt: skip
_DEVICES_MORE = (
    ("Enviado do meu iPhone", "Em 2 de mar. de 2026, à(s) 13:05, Judge <judge@pbem.test> escreveu:"),
    ("Wysłane z iPhone'a", "Wiadomość napisana przez Judge <judge@pbem.test> w dniu 02.03.2026, o godz. 13:05:"),
    ("iPhoneから送信", "2026/03/02 13:05、Judge <judge@pbem.test>のメール:"),
    ("Inviato da iPhone", "Il giorno 2 mar 2026, alle ore 13:05, Judge <judge@pbem.test> ha scritto:"),
)  # fmt: skip


def _ios(client: str, devices: tuple[tuple[str, str], ...]) -> Shape:
    def ios(game: Game, reply: Reply, variant: int) -> Shaped:
        footer, attribution = devices[variant]
        quote = prefixed([attribution, "", *game.original])
        mail = mail_of(client, body(reply.lines, [footer], quote), flowed=True)
        return Shaped(mail, (*reply.signature, footer), quoted_lines(game, wrapped=False))

    return ios


shape("ios-languages", REGARDS)(_ios("ios-languages", _DEVICES))
shape("ios-languages-more", REGARDS)(_ios("ios-languages-more", _DEVICES_MORE))

_NOTICES = (
    ("Sent via the Samsung Galaxy S24 Ultra, an AT&T 5G Evolution capable smartphone",),
    ("-" * 40, "Get Outlook for Android<https://aka.ms/AAb9ysg>"),
    (
        "-" * 72,
        "Diese E-Mail enthält vertrauliche Informationen. Wenn Sie nicht der richtige",
        "Adressat sind, informieren Sie bitte sofort den Absender und vernichten Sie",
        "diese Mail.",
    ),
    (
        "_" * 60,
        "Este mensaje y sus adjuntos se dirigen exclusivamente a su destinatario y",
        "pueden contener información confidencial. Si no es usted el destinatario,",
        "le rogamos que lo borre.",
    ),
)


@shape("carrier-notice", REGARDS)
def carrier_notice(game: Game, reply: Reply, variant: int) -> Shaped:
    notice = _NOTICES[variant]
    mail = mail_of(
        "carrier-notice",
        body(reply.lines, notice),
        charset="iso8859_1" if variant != 2 else "utf-8",
        encoding="quoted-printable",
    )
    return Shaped(mail, (*reply.signature, *notice), ())


# --- HTML-only replies: the quote is a container ------------------------------------------------


def _html_original(game: Game) -> str:
    return html_lines(game.original)


def _html_header(labels: tuple[str, str, str, str], game: Game) -> str:
    values = ("Judge &lt;judge@pbem.test&gt;", "Monday, March 2, 2026 13:05",
              "Alice Example &lt;alice@example.org&gt;", html.escape(game.subject))  # fmt: skip
    return "<br>".join(
        f"<b>{label}</b> {value}" for label, value in zip(labels, values, strict=True)
    )


@shape("html-quote-containers", REGARDS)
def html_quote_containers(game: Game, reply: Reply, variant: int) -> Shaped:
    mine = html_lines(list(reply.lines))
    if variant == 0:  # new Outlook on the web, in Greek: divRplyFwdMsg
        header = _html_header(("Από:", "Στάλθηκε:", "Προς:", "Θέμα:"), game)
        markup = (
            f'<html><body><div dir="ltr">{mine}</div><div id="appendonsend"></div>'
            f'<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri">{header}</font>'
            f'<div>&nbsp;</div></div><div class="BodyFragment">{_html_original(game)}</div>'
            "</body></html>"
        )
    elif variant == 1:  # Outlook for Mac, in Romanian: OLK_SRC_BODY_SECTION
        header = _html_header(("De la:", "Data:", "Către:", "Subiect:"), game)
        markup = (
            f"<html><body>{mine}<div><br></div>"
            '<div id="mail-editor-reference-message-container"><div class="ocpArialStyle">'
            '<div style="border:none;border-top:solid #B5C4DF 1.0pt;padding:3.0pt 0in 0in 0in">'
            f'<span id="OLK_SRC_BODY_SECTION">{header}</span></div>'
            f"<br>{_html_original(game)}</div></div></body></html>"
        )
    elif variant == 2:  # Yahoo Mail: yahoo_quoted, the original not in a blockquote
        markup = (
            f'<html><body><div class="yahoo-style-wrap">{mine}</div><div><br></div>'
            '<div id="yahoo_quoted_1234" class="yahoo_quoted"><div style="font-size:13px;">'
            "<div>On Monday, March 2, 2026, 01:05:00 PM GMT+1, Judge "
            "&lt;judge@pbem.test&gt; wrote:</div><div><br></div>"
            f'<div><div dir="ltr">{_html_original(game)}</div></div></div></div></body></html>'
        )
    else:  # Outlook 2016 for Windows, HTML only: a WordSection1 rule with a top border
        header = _html_header(("Feladó:", "Elküldve:", "Címzett:", "Tárgy:"), game)
        markup = (
            f"<html><body lang=HU><div class=WordSection1>{mine}"
            "<p class=MsoNormal>&nbsp;</p>"
            "<div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'>"
            f"<p class=MsoNormal>{header}</p></div><p class=MsoNormal>&nbsp;</p>"
            f"{_html_original(game)}</div></body></html>"
        )
    mail = mail_of("html-quote-containers", None, html_body=markup)
    return Shaped(mail, reply.signature, quoted_lines(game, wrapped=False))


@shape("html-cite-containers", ("Thanks,", "Alice"))
def html_cite_containers(game: Game, reply: Reply, variant: int) -> Shaped:
    mine = html_lines(list(reply.lines))
    if variant in (0, 1):  # Thunderbird, HTML only: moz-cite-prefix above a blockquote
        markup = (
            f"<html><body><p>{'<br>'.join(html.escape(line) for line in reply.lines)}</p>"
            '<div class="moz-cite-prefix">On 02/03/2026 13:05, Judge wrote:<br></div>'
            f'<blockquote type="cite" cite="mid:confirmation.1@pbem.test">{_html_original(game)}'
            "</blockquote></body></html>"
        )
    else:  # Gmail, HTML only: a gmail_quote container, the attribution in Czech
        markup = (
            f'<div dir="ltr">{mine}</div><br><div class="gmail_quote gmail_quote_container">'
            '<div dir="ltr" class="gmail_attr">po 2. 3. 2026 v 13:05 odesílatel Judge '
            "&lt;judge@pbem.test&gt; napsal:<br></div>"
            f"{html_blockquote(game.original, 'class=gmail_quote style=margin:0px')}</div>"
        )
    mail = mail_of("html-cite-containers", None, html_body=markup)
    return Shaped(mail, reply.signature, quoted_lines(game, wrapped=False))


# --- Lotus Notes, HTML only (base64 UTF-8): its header as font tags or its memo table ----------


def _notes_font(line: str, size: int = 2) -> str:
    return f'<font size={size} face="sans-serif">{html.escape(line)}</font>'


def _notes_label(label: str, value: str) -> str:
    """A line of Notes 8.5's and 9's header: the label grey, spaces after it, the value."""
    return (
        f'<br><font size=1 color="#5F5F5F" face="sans-serif">{label} &nbsp; &nbsp; &nbsp;\n'
        f'&nbsp;</font><font size=1 face="sans-serif">{html.escape(value)}</font>\n'
    )


def _notes_memo(labels: tuple[str, str, str], game: Game, date: str) -> str:
    """Notes' memo header: the sender and the date in the left column, the labels without
    colons right-aligned in a table on the right; Notes leaves its cells unclosed."""
    to, cc, subject = labels
    cell = (
        '<tr valign=top>\n<td>\n<div align=right><font size=1 face="sans-serif">{}</font></div>\n'
    )
    return (
        '<table width=100%>\n<tr valign=top>\n<td width=40%><font size=1 face="sans-serif">'
        "<b>&quot;Judge&quot; &lt;judge@pbem.test&gt;</b> </font>\n"
        f'<p><font size=1 face="sans-serif">{date}</font>\n<td width=59%>\n<table width=100%>\n'
        f'{cell.format(to)}<td><font size=1 face="sans-serif">alice@example.org</font>\n'
        f"{cell.format(cc)}<td>\n"
        f'{cell.format(subject)}<td><font size=1 face="sans-serif">{html.escape(game.subject)}'
        "</font></table>\n<br>\n<table>\n<tr valign=top>\n<td>\n<td></table>\n<br></td></tr>"
        "</table>\n<br>\n<br>\n<br>\n"
    )


@shape("notes-html", ("Mit freundlichen Grüßen", "Alice Example"))
def notes_html(game: Game, reply: Reply, variant: int) -> Shaped:
    mine = "".join(f"{_notes_font(line)}<br>\n" if line else "<br>\n" for line in reply.lines)
    original_html = "".join(
        f"<br><tt><font size=2>{html.escape(line)}</font></tt>\n" for line in game.original
    )
    values = ('"Judge" <judge@pbem.test>', "alice@example.org", "02.03.2026 13:05", game.subject)
    rule = '<hr width="100%" size="2" align="left" noshade style="color:#8091A5; ">\n'
    if variant == 0:  # Notes 9, German: the header's lines with colons, a rule
        labels = ("Von:", "An:", "Datum:", "Betreff:")
        header = "<br>\n<br>\n" + "".join(map(_notes_label, labels, values)) + rule
    elif variant == 1:  # Notes 8.5: the "sender---date---first words" line over the header
        line = '"Judge" ---02.03.2026 13:05:00---Hello alice,'
        header = (
            "<br>\n<br>"
            f'<img width=16 height=16 src="cid:1__=0ABB@acme.example" border=0 alt="Inactive '
            f'hide details for {html.escape(line)}"><font size=2 color="#424282" '
            f'face="sans-serif">{html.escape(line)}</font>\n<br>\n<br>\n'
            + "".join(map(_notes_label, ("From:", "To:", "Date:", "Subject:"), values))
            + rule
        )
    elif variant == 2:  # Notes 7's memo, French: labels without colons
        header = "<br>\n<br>\n" + _notes_memo(("A", "cc", "Objet"), game, "02/03/2026 13:05")
    else:  # the memo in Japanese
        header = "<br>\n<br>\n" + _notes_memo(("宛先", "cc", "件名"), game, "2026/03/02 13:05")
    markup = f"<html><body>{mine}{header}{original_html}</body></html>"
    mail = mail_of(
        "notes-html",
        None,
        html_body=markup,
        encoding="base64",
        headers={
            "X-Mailer": "IBM Notes Release 9.0.1FP10 SHF383 January 08, 2019",
            "X-MIMETrack": "Serialize by Router on MAIL01/ACME at 02.03.2026 14:00:00",
        },
    )
    return Shaped(mail, reply.signature, quoted_lines(game, wrapped=False))


# --- Lotus Notes in more languages (registered last, so that the shapes above keep their games)

# The other languages Notes' users write in; Japanese in ISO-2022-JP (7bit), Chinese in
# GB2312 (base64), Russian in KOI8-R, each with the dates its locale writes.
shape("notes-spanish", ("Saludos,", "Alicia"))(
    _notes("notes-spanish", ("De", "Para", "Fecha", "Asunto"), "iso8859_1", date="02/03/2026 13:05")
)
shape("notes-portuguese", ("Atenciosamente,", "Alice"))(
    _notes("notes-portuguese", ("De", "Para", "Data", "Assunto"), "cp1252", date="02/03/2026 13:05")
)
shape("notes-swedish", ("Med vänliga hälsningar", "Alice"))(
    _notes("notes-swedish", ("Från", "Till", "Datum", "Ämne"), "iso8859_1", date="2026-03-02 13:05")
)
shape("notes-polish", ("Pozdrawiam,", "Alicja"))(
    _notes("notes-polish", ("Od", "Do", "Data", "Temat"), "iso8859_2", date="2026-03-02 13:05")
)
shape("notes-japanese", ("よろしくお願いします。",))(
    _notes(
        "notes-japanese",
        ("差出人", "宛先", "日付", "件名"),
        "iso2022_jp",
        date="2026/03/02 13:05",
        encoding="7bit",
    )
)
shape("notes-chinese", ("谢谢",))(
    _notes(
        "notes-chinese",
        ("发件人", "收件人", "日期", "主题"),
        "gb2312",
        date="2026-03-02 13:05",
        encoding="base64",
    )
)
shape("notes-russian", ("С уважением,", "Алиса"))(
    _notes("notes-russian", ("От", "Кому", "Дата", "Тема"), "koi8_r", date="02.03.2026 13:05")
)


# --- Microsoft 365's banners in more wordings (registered last, as above) --------------------

_M365_MORE = (
    "This email originated from outside of the organization. Do not click links or open"
    " attachments unless you recognize the sender and know the content is safe.",
    "Some people who received this message don't often get email from alice@example.org."
    " Learn why this is important<https://aka.ms/LearnAboutSenderIdentification>",
    "Sie erhalten nicht oft eine E-Mail von alice@example.org. Erfahren Sie, warum dies"
    " wichtig ist<https://aka.ms/LearnAboutSenderIdentification>",
    "Vous n'obtenez pas souvent d'e-mail à partir de alice@example.org. Pourquoi c'est important",
)
"""What a Microsoft 365 tenant that the game's address passes through puts at the top of the
mail: the external sender's warning, its first-contact tip (English, German, French)."""


@shape("m365-banner-more", ("Thanks,", "Alice"))
def m365_banner_more(game: Game, reply: Reply, variant: int) -> Shaped:
    banner = _M365_MORE[variant]
    if variant < 3:
        labels = (
            ("From: ", "Sent: ", "To: ", "Subject: ")
            if variant < 2
            else ("Von: ", "Gesendet: ", "An: ", "Betreff: ")
        )
        dates = ("Monday, March 2, 2026 1:05 PM", "Montag, 2. März 2026 13:05")
        values = ("Judge <judge@pbem.test>", dates[variant == 2], "Alice Example", game.subject)
        header = ["_" * 32, *(label + value for label, value in zip(labels, values, strict=True))]
        mail = mail_of(
            "m365-banner-more",
            body([banner], reply.lines, header, original(game, wrapped=True)),
            charset="cp1252" if variant < 2 else "iso8859_1",
            headers={"X-MS-Exchange-Organization-SCL": "1", "X-Mailer": "Microsoft Outlook 16.0"},
        )
        return Shaped(mail, (banner, *reply.signature), quoted_lines(game, wrapped=True))
    tip = (
        "Vous n'obtenez pas souvent d'e-mail à partir de alice@example.org. "
        '<a href="https://aka.ms/LearnAboutSenderIdentification">Pourquoi c\'est important</a>'
    )
    table = (
        '<table border="0" cellspacing="0" cellpadding="0" align="left" width="100%"><tr>'
        '<td style="background:#A6A6A6;padding:5.25pt 1.5pt 5.25pt 1.5pt"></td>'
        '<td width="100%" style="background:#EAEAEA;padding:5.25pt 3.75pt 5.25pt 11.25pt">'
        f'<div><p class="MsoNormal"><span style="font-size:9.0pt;color:#212121">{tip}</span>'
        "</p></div></td></tr></table>"
    )
    mine = "".join(
        f"<p class=MsoNormal>{html.escape(line) if line else '&nbsp;'}</p>" for line in reply.lines
    )
    header = _html_header(("De :", "Envoyé :", "À :", "Objet :"), game)
    markup = (
        f"<html><body lang=FR>{table}<div class=WordSection1>{mine}"
        "<p class=MsoNormal>&nbsp;</p>"
        "<div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'>"
        f"<p class=MsoNormal>{header}</p></div><p class=MsoNormal>&nbsp;</p>"
        f"{_html_original(game)}</div></body></html>"
    )
    mail = mail_of(
        "m365-banner-more",
        None,
        html_body=markup,
        encoding="base64",
        headers={"X-MS-Exchange-Organization-SCL": "1"},
    )
    return Shaped(mail, (banner, *reply.signature), quoted_lines(game, wrapped=False))


# --- Lotus Notes' memo header as Notes writes it in plain text (registered last, as above) ----


def _memo_text(labels: tuple[str, str, str], game: Game, date: str) -> list[str]:
    """Notes' memo table in its plain-text part: columns of 75 characters, the sender and
    the date on the left, each label alone at the right edge, its value in the middle."""
    to, cc, subject = labels

    def at(column: int, *cells: tuple[int, str]) -> str:
        line = ""
        for start, cell in ((column, ""), *cells):
            line = line.ljust(start) + cell
        return line.ljust(75)

    return [
        at(0),
        at(13, (13, '"Judge"')),
        at(13, (13, "<judge@pbem.test>")),
        at(0, (75 - len(to) - 1, to)),
        at(13, (13, date), (39, "alice@example.org")),
        at(0, (75 - len(cc) - 1, cc)),
        at(0),
        at(0, (75 - len(subject) - 1, subject)),
        at(39, (39, game.subject[:35])),
        at(0),
        at(0),
    ]


_MEMOS = (
    (("To", "cc", "Subject"), "03/02/2026 01:05 PM"),
    (("An", "Kopie", "Thema"), "02.03.2026 13:05"),
    (("A", "cc", "Objet"), "02/03/2026 13:05"),
    (("A", "cc", "Oggetto"), "02/03/2026 13.05"),
)


@shape("notes-memo-text", REGARDS)
def notes_memo_text(game: Game, reply: Reply, variant: int) -> Shaped:
    labels, date = _MEMOS[variant]
    memo = _memo_text(labels, game, date)
    plain = body(reply.lines, ["", ""], memo, ["", ""], original(game, wrapped=True))
    markup = None
    if variant == 1:  # Notes sends the memo as HTML too; the plain part is read
        mine = "".join(f"{_notes_font(line)}<br>\n" if line else "<br>\n" for line in reply.lines)
        original_html = "".join(
            f"<br><tt><font size=2>{html.escape(line)}</font></tt>\n" for line in game.original
        )
        markup = (
            f"<html><body>{mine}<br>\n<br>\n{_notes_memo(labels, game, date)}{original_html}"
            "</body></html>"
        )
    mail = mail_of(
        "notes-memo-text",
        plain,
        html_body=markup,
        charset="iso8859_1",
        encoding=("7bit", "quoted-printable", "base64", "quoted-printable")[variant],
        declared=("US-ASCII", None, None, None)[variant],
        headers={"X-Mailer": "Lotus Notes Release 7.0.3 September 26, 2007"},
    )
    return Shaped(mail, reply.signature, quoted_lines(game, wrapped=True))


# --- More device and gateway lines (registered last, as above) --------------------------------


@shape("device-lines-more", REGARDS)
def device_lines_more(game: Game, reply: Reply, variant: int) -> Shaped:
    if variant == 0:  # AT&T's e-mail gateway for a phone's text message: no quote, its line
        footer = ("This mobile text message is brought to you by AT&T",)
        mail = mail_of(
            "device-lines-more", body(reply.lines, footer), encoding="7bit", charset="utf-8"
        )
        return Shaped(mail, (*reply.signature, *footer), ())
    if variant == 1:  # Outlook for Android in Portuguese, its header block below a rule
        footer = ("Obter o Outlook para Android<https://aka.ms/AAb9ysg>",)
        header = [
            "_" * 32,
            "De: Judge <judge@pbem.test>",
            "Enviado: segunda-feira, 2 de março de 2026 13:05",
            "Para: Alice Example <alice@example.org>",
            f"Assunto: {game.subject}",
        ]
        plain = body(reply.lines, footer, header, original(game, wrapped=True))
        mail = mail_of("device-lines-more", plain, charset="iso8859_1")
        return Shaped(mail, (*reply.signature, *footer), quoted_lines(game, wrapped=True))
    if variant == 2:  # Samsung Email in Italian: its separator and header block
        footer = ("Inviato dal mio dispositivo Samsung",)
        header = [
            "-------- Messaggio originale --------",
            "Da: Judge <judge@pbem.test> ",
            "Data: 02/03/26 13:05 (GMT+01:00) ",
            "A: alice@example.org ",
            f"Oggetto: {game.subject} ",
        ]
        plain = body(reply.lines, ["", ""], footer, ["", ""], header, original(game, wrapped=True))
        mail = mail_of("device-lines-more", plain, encoding="base64")
        return Shaped(mail, (*reply.signature, *footer), quoted_lines(game, wrapped=True))
    # Outlook for iOS in Dutch, the quote with ">"
    footer = ("Outlook voor iOS downloaden<https://aka.ms/o0ukef>",)
    header = [
        "_" * 32,
        "Van: Judge <judge@pbem.test>",
        "Verzonden: Monday, March 2, 2026 1:05:00 PM",
        "Aan: Alice Example <alice@example.org>",
        f"Onderwerp: {game.subject}",
    ]
    plain = body(reply.lines, footer, header, original(game, wrapped=False))
    mail = mail_of("device-lines-more", plain, charset="iso8859_1")
    return Shaped(mail, (*reply.signature, *footer), quoted_lines(game, wrapped=False))
