"""Splitting a reply into what the sender wrote, the quoted history and the signature.

Two steps, in the manner of Discourse's email_reply_trimmer: every line is first given a class
on its own (:func:`classify_lines`: empty, quoted, attribution, header block, separator,
signature delimiter, client footer, disclaimer, valediction, contact detail, text), then the
sequence of classes decides (:func:`split_reply`):

* a quoted line (``>``, ``|``, Supercite's ``LK>`` and ``name>``) is quote, wherever it is,
  so that inline and bottom-posted answers between quotes are read;
* an opener (an attribution, a quoted header block, a separator line) right above quoted lines
  only introduces them; above anything else it starts a quote that was re-wrapped without
  ``>`` (Outlook, Notes, forwarded mail), and everything from it on is quote;
* ``-- `` starts the signature; below the sender's last text, a valediction (``Best regards,``)
  with the few lines after it, or a last paragraph of contact details (phone, address, web,
  company), is a signature too, and a paragraph of legal or banner text is a disclaimer;
* a mail client's own line (``Sent from my iPhone``, an SMS gateway's footer, a mailing list's
  footer, or any line naming the list the mail came through) is dropped, and so is a rule
  (``-----``, ``_____``) with such a footer or a disclaimer below it to the end of the text.

A line that reads as an order of any game (or a service command) is never put into a signature
or a disclaimer by a guess; only a quote takes it, because orders in a quote are old orders.
Removed lines in the middle become blank, so line numbers stay those of the body.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from adjudicator.mail.orderlike import reads_as_order

MAX_ATTRIBUTION = 400  # characters: longer lines are the sender's text (and cheap to test)
MAX_LINES = 5000
"""More body lines than any order mail needs; the rest is cut (rule ``too-long``)."""
MAX_FOOTER = 200  # characters of a mail client's or gateway's own line
MAX_VALEDICTION = 50
MAX_SEPARATOR = 200
MAX_CONTACT = 100
MAX_SIGNATURE = 15
"""Lines after a valediction that may still be a signature; more is the sender's text."""


@dataclass(frozen=True)
class Cut:
    """Lines removed from the body, for the logs: which rule, where, how many, the first one."""

    rule: str
    line: int  # 1-based line number in the body
    count: int
    first: str


class Line(StrEnum):
    """The class of one body line, seen alone (or with the few lines around it)."""

    EMPTY = "e"
    QUOTED = "q"
    ATTRIBUTION = "a"  # "On <date>, <name> wrote:" and kin, with a date or an address
    WEAK_ATTRIBUTION = "w"  # "Bob wrote:": an opener only right above quoted lines
    HEADER = "h"  # the first line of a quoted header block (From:/Sent:/To:/Subject:)
    HEADER_MORE = "m"  # the other lines of that block
    SEPARATOR = "s"  # "-----Original Message-----", "Begin forwarded message:", ...
    DELIMITER = "d"  # "-- "
    FOOTER = "f"  # "Sent from my iPhone", an SMS gateway's line
    DISCLAIMER = "x"  # legal or banner text
    VALEDICTION = "v"  # "Best regards,"
    ARMOUR = "p"  # OpenPGP clear-signing armour: its header lines and the signature block
    TEXT = "t"


@dataclass
class Split:
    """A body split three ways, line for line: each list is as long as the body, with the lines
    that belong elsewhere blank. ``cuts`` say what was removed from the text, for the logs."""

    text: list[str]
    quote: list[str]
    signature: list[str]
    cuts: list[Cut] = field(default_factory=list)
    classes: str = ""  # one letter per line (:class:`Line`), for tests and the logs


# Zero-width and invisible marks, the soft hyphen and U+2061-2064 (BlueMail's U+2063 before
# "Sent from BlueMail").
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063"))
_INVISIBLE |= dict.fromkeys(map(ord, "\u2064\ufeff\u00ad"))
_SPACES = re.compile(r"[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\t]")


def clean_line(line: str) -> str:
    """A body line with non-breaking and other Unicode spaces as spaces, invisible marks removed
    and trailing white space trimmed."""
    if line.isascii() and "\t" not in line:  # most lines: nothing to replace
        return line.rstrip()
    return _SPACES.sub(" ", line.translate(_INVISIBLE)).rstrip()


def body_lines(text: str) -> list[str]:
    """The text split into cleaned lines (CRLF, CR and LF all end a line)."""
    return [clean_line(line) for line in text.splitlines()]


# ---------------------------------------------------------------------------------------------
# Line classes

_QUOTED = re.compile(r"\s*(?:>|\|(?:\s|\Z)|[A-Za-z][\w.-]{0,11}>+(?:\s|\Z))")
_DELIMITER = re.compile(r"--\s*\Z")
_SEPARATOR_WORDS = (
    r"original(?:\s+message)?|forwarded|forwarding|forward|reply\s+message|message\s+d'origine"
    r"|mail\s+original|message\s+transf[ée]r[ée]|ursprüngliche\s+nachricht|weitergeleitet\w*"
    r"|originalnachricht|mensaje\s+original|mensaje\s+reenviado|messaggio\s+originale"
    r"|messaggio\s+inoltrato|oorspronkelijk\s+bericht|doorgestuurd\s+bericht"
    r"|mensagem\s+original|mensagem\s+encaminhada|originalmeddelande|vidarebefordrat"
    r"|oprindelig\s+meddelelse|videresendt|alkuperäinen\s+viesti|oryginalna\s+wiadomość"
    r"|původní\s+zpráva|eredeti\s+üzenet|orijinal\s+mesaj|исходное\s+сообщение"
    r"|пересылаемое\s+сообщение|пересланное\s+сообщение|原始邮件|原始郵件|转发邮件|轉寄郵件"
    r"|元のメッセージ|転送メッセージ|원본\s*메시지|전달된\s*메시지|reply\s+separator"
    r"|ursprungligt\s+meddelande|opprinnelig\s+melding|wiadomość\s+oryginalna"
    r"|quoted\s+mail"
)
_ATTRIBUTION_VERBS_SHORT = r"wrote|schrieb|a\s+écrit|escribió|ha\s+scritto|schreef|escreveu|skrev"
_FRAME = r"(?=[-_ ]*?-{3})[-_ ]*+\s*"
"""A separator's frame before its words: dashes, underscores and spaces, three dashes among
them. Taken whole (possessive) and checked by a lookahead, never backtracked into: a line of
dashes costs time in its length, not in its square."""
_UNDASHED_SEPARATORS = (
    re.compile(
        r"(?:begin\s+forwarded\s+message|anfang\s+der\s+weitergeleiteten\s+nachricht"
        r"|début\s+du\s+message\s+réexpédié|inicio\s+del\s+mensaje\s+reenviado)\s*:",
        re.IGNORECASE,
    ),
    # Notes 8.5's section title: "Inactive hide details for Bob---03/02/2026 10:00---Hi".
    re.compile(r"(?:inactive\s+)?hide\s+details\s+for\s+.*", re.IGNORECASE),
)
"""Separators without two dashes in a row; every other one has them (a cheap test first)."""
_SEPARATORS = (
    *_UNDASHED_SEPARATORS,
    # Framed words: "-----Original Message-----", "----- Mail original -----", QQMail's
    # "------------------ 原始邮件 ------------------", Notes' "----- Forwarded by X on ... -----".
    re.compile(rf"{_FRAME}(?:{_SEPARATOR_WORDS})\b.{{0,80}}?-{{3,}}+", re.IGNORECASE),
    re.compile(rf"(?:{_SEPARATOR_WORDS})\s*-{{3,}}", re.IGNORECASE),
    re.compile(
        rf"-{{2,}}+\s*.{{0,200}}?\b(?:{_ATTRIBUTION_VERBS_SHORT})\s*-{{2,}}+", re.IGNORECASE
    ),
    re.compile(r".{1,80}?-{3}\d{1,4}[./-]\d{1,2}[./-]\d{1,4}.{0,40}-{3}.*"),
    # Notes' banner over a mail from a team's inbox: "Bob via Team --- Subject [Ticket#7] ---"
    # (its "via": a writer's own "Round 3 --- my orders ---" is no banner).
    re.compile(r"[^-]{1,80}? via [^-]{1,80}? -{3} .{1,200} -{3}", re.IGNORECASE),
    # The framed words and the block's first field on one line, as a client that re-wraps the
    # mail it answers joins them: "----- Original Message ----- From: "Tony" <t@x.example>".
    re.compile(
        rf"{_FRAME}(?:{_SEPARATOR_WORDS})\s*-{{3,}}+\s*[^\W\d_][^:：]{{0,30}}[:：].*",
        re.IGNORECASE,
    ),
)
_WHIMSICAL_VERBS = r"said|says|scribbled|spake|spoke|dixit|opined|mused|typed|penned|quoth"
"""Gnus users' attributions: openers only right above quoted lines, never by themselves."""
_ATTRIBUTION_VERBS = (
    r"wrote|writes|pisze|napisał(?:a)?|đã\s+viết|viết"
    r"|schrieb|schreibt|a\s+écrit|écrivait|escribió|escribio|ha\s+scritto|scrisse"
    r"|schreef|escreveu|skrev|skriver|kirjoitti|napsal(?:a)?|írta|yazdı"
    r"|написал(?:а|\(а\))?|пишет|έγραψε|a\s+scris|写道|寫道|写到|書きました|書いています"
    r"|님이\s*작성"
)
_WHIMSICAL = re.compile(
    rf".*(?:\b|\s|^)(?:{_WHIMSICAL_VERBS})(?:\s.{{0,100}})?\s*[:：]\s*\Z", re.IGNORECASE
)
_RULE = re.compile(r"[_\u2014\u2500]{10,}|-{10,}")
"""Outlook's rule above its quoted header block; alone it is the writer's divider."""
_RULE_STARTS = "_\u2014\u2500-"
_FOOTER_RULE = re.compile(r"-{4,}|_{4,}|={4,}|[\u2014\u2500]{4,}")
"""A rule above a footer or a disclaimer: shorter ones too (``-----`` over ``Sent from my
T-Mobile 5G Device``), and ``=`` rules (a gateway's block between two ``=====``)."""
_FOOTER_RULE_STARTS = "_\u2014\u2500-="
_ATTRIBUTION = re.compile(
    rf".*(?:\b|\s|^)(?:{_ATTRIBUTION_VERBS})(?:\s.{{0,100}})?\s*[:：]\s*\Z", re.IGNORECASE
)
_EXCERPTS = re.compile(r"(?:excerpts?|auszüge?)\s+(?:from|aus)\s+.{3,}[:：]\s*\Z", re.IGNORECASE)
_CHINESE_ATTRIBUTION = re.compile(r"(?:在|於|于).{4,}(?:写道|寫道|写到)\s*[:：]?\s*\Z")
_DATE_OR_TIME = re.compile(r"\d{1,4}[./\-年月]\d{1,2}|\b(?:19|20)\d\d\b|\b\d{1,2}:\d{2}\b")
_HEADER_LABEL = re.compile(
    r"[-*\s]*\*{0,2}([^\W\d_][^\W\d_ ]{0,14}(?: [^\W\d_]{1,10}){0,2}?)\*{0,2}\s?"
    r"(?:[:]\*{0,2}(?:\s|\Z)|：)"
)
_FROM_LABELS = {"from", "von", "de", "da", "van", "от", "od", "från", "fra", "lähettäjä",
                "feladó", "kimden", "差出人", "发件人", "寄件者", "發件人", "보낸 사람",
                "expéditeur", "remitente", "mittente", "afzender", "remetente",
                "absender"}  # fmt: skip
_DATE_LABELS = {"sent", "date", "gesendet", "datum", "envoyé", "enviado", "inviato", "verzonden",
                "отправлено", "дата", "data", "fecha", "skickat", "sendt", "lähetetty",
                "elküldve", "gönderildi", "wysłano", "odesláno", "送信日時", "日付", "发送时间",
                "時間", "日期", "傳送時間", "发送日期", "보낸 날짜", "날짜", "sent at",
                "enviado el", "enviada em", "envoyé le", "date d'envoi"}  # fmt: skip
_OTHER_LABELS = {"to", "cc", "bcc", "subject", "an", "betreff", "à", "objet", "para", "asunto",
                 "a", "oggetto", "aan", "onderwerp", "кому", "тема", "копия", "till", "ämne",
                 "til", "emne", "vastaanottaja", "aihe", "címzett", "tárgy", "kime", "konu",
                 "do", "temat", "komu", "předmět", "宛先", "件名", "收件人", "主题", "收件者",
                 "主旨", "抄送", "받는 사람", "제목", "reply to", "reply-to", "assunto",
                 "kopie", "cc-empfänger", "thema"}  # fmt: skip
_HEADER_LABELS = _FROM_LABELS | _DATE_LABELS | _OTHER_LABELS
_SUBJECT_LABELS = {"subject", "betreff", "thema", "objet", "oggetto", "onderwerp", "asunto",
                   "assunto", "ämne", "emne", "temat", "тема", "件名", "主题", "主旨", "aihe",
                   "tárgy", "konu", "předmět", "제목"}  # fmt: skip
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\[mailto:|/[A-Z][\w ]*@")
_FOOTERS = re.compile(
    r"(?:sent|envoyé|enviado|inviato|verzonden|gesendet|skickat|sendt|wysłano|отправлено)"
    r"\s+(?:from|with|via|using|de|desde|da|vanaf|von|från|fra|z|из|с|от)\s+.{2,80}"
    r"|(?:get|download)\s+outlook\s+for\s+\w+.*|von\s+meinem\s+.{2,40}\s+gesendet"
    r"|envoyé\s+de\s+mon\s+.{2,40}|enviado\s+desde\s+mi\s+.{2,40}|inviato\s+da\s+.{2,40}"
    r"|verstuurd\s+vanaf\s+mijn\s+.{2,40}|发自我的.{1,30}|發自我的.{1,30}|.{1,30}から送信"
    r"|sent\s+from\s+\w+\s+mail.*|sent\s+from\s+yahoo.*|yahoo\s+mail\s+on\s+\w+.*"
    r"|this\s+(?:message|text)\s+was\s+sent\s+(?:by|via|from|using)\s+.*"
    r"|.{0,60}\b(?:reply|text|txt)\s+stop\s+to\s+(?:end|stop|opt\s+out|unsubscribe|cancel).*"
    r"|.{0,40}\bmsg\s*&\s*data\s+rates\s+may\s+apply.*|sms\s+(?:sent\s+)?(?:via|by|from)\s+.*"
    r"|sent\s+by\s+(?:sms|text(?:\s+message)?)\s+from\s+.*|.{0,30}\bfrom\s+my\s+(?:iphone|ipad|android).*"
    r"|enviado\s+do\s+meu\s+.{2,40}|wysłan[eo]\s+z\s+.{2,40}|odesláno\s+z\s+.{2,40}"
    r"|lähetetty\s+\S.{1,40}|.{2,30}(?:['’]\w{1,4}dan|den|dan)\s+gönderildi|.{2,30}에서\s*보냄"
    r"|gesendet\s+mit\s+.{2,50}|von\s+meine[mr]?(?:/meine[mr]?)?\s+.{2,40}\s+gesendet"
    r"|envoyé\s+depuis\s+.{2,40}|inviato\s+dal(?:la|lo|l['’])?\s*.{2,40}",
    re.IGNORECASE,
)
_OUTLOOK_APP = re.compile(
    r".{0,40}outlook.{0,40}(?:android|ios).{0,40}|.{0,40}(?:android|ios).{0,40}outlook.{0,40}",
    re.IGNORECASE,
)
"""Outlook's mobile apps' line in any language: "Obter o Outlook para Android", "iOS版Outlookを
入手"; looked for only on a line that names Outlook."""
_LIST_AND_GATEWAY_FOOTERS = re.compile(
    # A text-message gateway's line: "Envoyé par le service de messagerie texte de Fido".
    r".{0,40}\b(?:service\s+de\s+messagerie\s+texte|text\s+messaging\s+service"
    r"|servicio\s+de\s+mensajer[íi]a\s+de\s+texto)\b.*"
    r"|this\s+mobile\s+text\s+message\s+is\s+brought\s+to\s+you\s+by\s+.*"
    # Mailing lists' footers (Mailman 2 and 3, Google Groups) and Microsoft 365's banner.
    r"|\S.{0,60}\smailing\s+list(?:\s+--\s+\S+@\S+)?"
    r"|to\s+unsubscribe\s+(?:from\s+this\s+(?:group|list)|send\s+an?\s+e-?mail\s+to)\b.*"
    r"|you\s+received\s+this\s+(?:message|e-?mail)\s+because\s+you\s+are\s+subscribed\b.*"
    r"|to\s+view\s+this\s+discussion\b.*|https?://\S+/mailman/listinfo/\S*"
    r"|(?:some\s+people\s+who\s+received\s+this\s+message\s+|you\s+)don['’]t\s+often\s+get"
    r"\s+e-?mail\s+from\b.*"
    # Its first-contact tip in other languages, and any line with the tip's link.
    r"|(?:sie\s+erhalten\s+nicht\s+(?:oft|häufig)\s+(?:eine\s+)?e-?mails?\s+von"
    r"|vous\s+n['’]obtenez\s+pas\s+souvent\s+d['’]e-?mails?|no\s+suele\s+recibir\s+correo"
    r"|non\s+ricevi\s+spesso|u\s+ontvangt\s+niet\s+vaak\s+e-?mail"
    r"|você\s+não\s+costuma\s+receber\s+e-?mails?)\b.*"
    r"|.{0,200}\baka\.ms/learnaboutsenderidentification\b.*",
    re.IGNORECASE,
)
_LIST_AND_GATEWAY_STEMS = ("messag", "mensajer", "mailing", "unsubscribe", "subscribed",
                           "discussion", "listinfo", "often get", "nicht oft", "nicht häufig",
                           "souvent", "suele", "spesso", "niet vaak", "costuma",
                           "learnaboutsender")  # fmt: skip
"""Words one of which every :data:`_LIST_AND_GATEWAY_FOOTERS` match holds."""
_DISCLAIMER = re.compile(
    r"confidential|intended\s+(?:solely\s+)?(?:only\s+)?for\s+the|intended\s+recipient"
    r"|privileged|disclaimer|unauthori[sz]ed|please\s+(?:notify|delete|consider\s+the\s+environ)"
    r"|before\s+printing|this\s+e-?mail\s+(?:and|has|is|message|may|was)|virus"
    r"|caution:\s+(?:this|external)|external\s+(?:e-?mail|sender)"
    r"|originated\s+(?:from\s+)?outside"
    r"|vertraulich|empfänger|destinataire|riservat|vertrouwelijk|confidencial|конфиденциальн"
    r"|legal\s+notice|registered\s+(?:office|in)|company\s+registration|handelsregister"
    r"|amtsgericht|geschäftsführer:",
    re.IGNORECASE,
)
_DISCLAIMER_STEMS = ("confiden", "intended", "privileg", "disclaim", "unauthori", "please",
                     "printing", "this e", "virus", "caution", "external", "outside",
                     "vertraulich", "empfänger", "destinataire", "riservat", "vertrouwelijk",
                     "конфиденциальн", "legal", "registered", "registration", "handelsregister",
                     "amtsgericht", "geschäftsführer")  # fmt: skip
"""Words one of which every :data:`_DISCLAIMER` match holds: a cheap test before the pattern."""
_VALEDICTION = re.compile(
    r"(?:best|kind|warm|many|with)?\s*(?:regards|wishes|thanks|greetings)[,.!]?"
    r"|thanks?(?:\s+(?:you|again|a\s+lot))?[,.!]*|thx[,.!]?|cheers[,.!]?|cordially[,.!]?"
    r"|sincerely(?:\s+yours)?[,.!]?|yours(?:\s+(?:truly|sincerely|faithfully))?[,.!]?"
    r"|best[,.!]?|all\s+the\s+best[,.!]?|take\s+care[,.!]?|ciao[,.!]?|bye[,.!]?"
    r"|(?:mit\s+)?(?:freundlichen|besten|herzlichen|lieben|viele)\s+grüßen?[,.!]?"
    r"|(?:viele\s+)?grüße[,.!]?|lg[,.!]?|vg[,.!]?|mfg[,.!]?|gruß[,.!]?"
    r"|cordialement[,.!]?|bien\s+à\s+vous[,.!]?|amitiés[,.!]?|bises[,.!]?"
    r"|saludos(?:\s+cordiales)?[,.!]?|un\s+saludo[,.!]?|atentamente[,.!]?"
    r"|cordiali\s+saluti[,.!]?|saluti[,.!]?|met\s+vriendelijke\s+groet(?:en)?[,.!]?"
    r"|groeten[,.!]?|atenciosamente[,.!]?|abraços[,.!]?|med\s+vänliga\s+hälsningar[,.!]?"
    r"|hälsningar[,.!]?|mvh[,.!]?|с\s+уважением[,.!]?|спасибо[,.!]?|pozdrawiam[,.!]?"
    r"|s\s+pozdravem[,.!]?|よろしくお願いします。?|よろしくお願いいたします。?|谢谢[。！!]?|此致|敬礼"
    r"|감사합니다\.?",
    re.IGNORECASE,
)
_CONTACT = re.compile(
    r"(?:tel|phone|fon|telefon|téléphone|mobile?|mob|cell|fax|handy|portable|t|m|f|p|ph|o|w)"
    r"\.?\s*[:.]?\s*\(?\+?\d[\d\s().\-/]{5,}\d"
    r"|\+\d[\d\s().\-/]{7,}\d|\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}"
    r"|(?:https?://|www\.)\S+|\S+@\S+\.\w+\Z|linkedin|twitter\.com|skype\s*:"
    r"|\b\d{1,5}\s+\w+(?:\s+\w+)?\s+(?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|drive"
    r"|suite|way|place|square)\b\.?|\b\w+(?:straße|strasse|str\.|weg|platz|gasse|allee)\s+\d+"
    r"|\b(?:rue|avenue|boulevard|calle|avenida|rua|plaza)\s+\w+|\b\d{4,5}\s+[A-Z]\w+\Z"
    r"|\b(?:suite|floor|building|p\.?o\.?\s+box|postfach)\b",
    re.IGNORECASE,
)


def classify_lines(lines: Sequence[str]) -> list[Line]:
    """The class of every line (see :class:`Line`); header blocks and two-line attributions
    are found with the lines that follow."""
    lines = [clean_line(line) for line in lines]  # invisible marks (U+2063) do not hide a class
    classes: list[Line] = []
    armour = _armour(lines)
    index = 0
    while index < len(lines):
        if index in armour:
            classes.append(Line.ARMOUR)
            index += 1
            continue
        span, kind = _opener(lines, index)
        if span:
            extra = Line.HEADER_MORE if kind is Line.HEADER else kind
            classes += [kind, *[extra] * (span - 1)]
            index += span
            continue
        classes.append(_alone(lines[index]))
        index += 1
    return classes


_ARMOUR_START = "-----BEGIN PGP SIGNED MESSAGE-----"
_ARMOUR_SIGNATURE = "-----BEGIN PGP SIGNATURE-----"
_ARMOUR_END = "-----END PGP SIGNATURE-----"


def _armour(lines: Sequence[str]) -> set[int]:
    """The lines of OpenPGP clear-signing armour (RFC 4880 7): the header and its ``Hash:``
    lines, and the signature block."""
    found: set[int] = set()
    inside = heading = False
    for index, line in enumerate(lines):
        text = line.strip()
        if text == _ARMOUR_START:
            found.add(index)
            heading = True
        elif heading:
            heading = bool(text)
            if heading:
                found.add(index)
        elif text == _ARMOUR_SIGNATURE:
            inside = True
        if inside:
            found.add(index)
            inside = text != _ARMOUR_END
    return found


def unescape_dashes(lines: Sequence[str]) -> list[str]:
    """Clear-signed text escapes a line starting with ``-`` as ``- -``; undo it between the
    armour's header and its signature (RFC 4880 7.1)."""
    out, signed = [], False
    for line in lines:
        if line.strip() == _ARMOUR_START:
            signed = True
        elif line.strip() == _ARMOUR_SIGNATURE:
            signed = False
        out.append(line[2:] if signed and line.startswith("- ") else line)
    return out


def _alone(line: str) -> Line:
    """The class of a line that opens nothing."""
    text = line.strip()
    if not text:
        return Line.EMPTY
    if _QUOTED.match(line):
        return Line.QUOTED
    if _DELIMITER.fullmatch(text) or text in ("--", "-- "):
        return Line.DELIMITER
    if len(text) > MAX_ATTRIBUTION:
        return Line.TEXT
    # Length gates keep hostile lines cheap: footers and sign-offs are short.
    lowered = text.lower()
    if len(text) <= MAX_FOOTER and (
        _FOOTERS.fullmatch(text)
        or (
            any(stem in lowered for stem in _LIST_AND_GATEWAY_STEMS)
            and _LIST_AND_GATEWAY_FOOTERS.fullmatch(text)
        )
        or ("outlook" in lowered and _OUTLOOK_APP.fullmatch(text))
    ):
        return Line.FOOTER
    if len(text) <= MAX_VALEDICTION and _VALEDICTION.fullmatch(text):
        return Line.VALEDICTION
    if any(stem in lowered for stem in _DISCLAIMER_STEMS) and _DISCLAIMER.search(text):
        return Line.DISCLAIMER
    return Line.TEXT  # contact details are looked for only where a signature may be


def _opener(lines: Sequence[str], index: int) -> tuple[int, Line]:
    """(lines taken, class) of an attribution, header block or separator starting at ``index``;
    (0, TEXT) when none does."""
    text = lines[index].strip()
    if not text or len(text) > MAX_ATTRIBUTION or _QUOTED.match(lines[index]):
        return 0, Line.TEXT
    separators = _SEPARATORS if "--" in text else _UNDASHED_SEPARATORS
    if len(text) <= MAX_SEPARATOR and any(pattern.fullmatch(text) for pattern in separators):
        return 1, Line.SEPARATOR
    if text[0] in _RULE_STARTS and _RULE.fullmatch(text) and _header_follows(lines, index + 1):
        return 1, Line.SEPARATOR
    header = _header_block(lines, index)
    if not header and ("@" in text or (index + 1 < len(lines) and "@" in lines[index + 1])):
        header = _memo_block(lines, index)  # its sender's address on this line or the next
    if header:
        return header, Line.HEADER
    alone = _attribution(text)
    if index + 1 < len(lines) and (alone is None or alone is Line.WEAK_ATTRIBUTION):
        # An attribution wrapped over two lines ("... <a@b>" / "wrote:").
        following = lines[index + 1].strip()
        joined = _attribution(f"{text} {following}") if following else None
        if (
            joined is Line.ATTRIBUTION
            and not _QUOTED.match(lines[index + 1])
            and _label(text) is None
            and (_DATE_OR_TIME.search(text) or "@" in text)
            and not _DATE_OR_TIME.search(following)
        ):
            return 2, joined
    if alone is not None:
        return 1, alone
    if text.endswith((":", "：")) and "@" in text and any(c.isdigit() for c in text):
        return 1, Line.WEAK_ATTRIBUTION  # some other language's attribution, above a quote
    return 0, Line.TEXT


def _header_follows(lines: Sequence[str], index: int) -> bool:
    """Whether a quoted header block starts at the first non-empty line from ``index``."""
    for position in range(index, min(index + 3, len(lines))):
        if lines[position].strip():
            return _header_block(lines, position) > 0
    return False


def _attribution(text: str) -> Line | None:
    if len(text) > MAX_ATTRIBUTION:
        return None
    if _CHINESE_ATTRIBUTION.fullmatch(text):
        return Line.ATTRIBUTION
    if not text.endswith((":", "：")):  # every other attribution ends so; cheap to test first
        return None
    if not (_ATTRIBUTION.fullmatch(text) or _EXCERPTS.fullmatch(text)):
        return Line.WEAK_ATTRIBUTION if _WHIMSICAL.fullmatch(text) else None
    strong = _DATE_OR_TIME.search(text) or "@" in text or _EXCERPTS.fullmatch(text)
    return Line.ATTRIBUTION if strong else Line.WEAK_ATTRIBUTION


def _header_block(lines: Sequence[str], index: int) -> int:
    """How many lines a quoted header block starting at ``index`` takes (0: none starts here).

    A block is header lines within six lines (blank lines allowed) with a From label and a
    Sent/Date label, or two other labels, or one other label when the From line holds an
    address (Chinese clients write only From and Subject, Atmail writes ``-----From:``).
    """
    first = _label(lines[index])
    if first is None and (bare_first := _bare_label(lines[index])) in _FROM_LABELS:
        first = bare_first  # a table without colons starts with its sender
    if first not in _HEADER_LABELS:
        return 0
    labels: list[str] = []
    last = index
    has_address = bare = False
    for position in range(index, min(index + 6, len(lines))):
        label = _label(lines[position])
        if label is None and (label := _bare_label(lines[position])) is not None:
            bare = True
        if label in _HEADER_LABELS:
            labels.append(label)
            last = position
            has_address |= label in _FROM_LABELS and bool(_ADDRESS.search(lines[position]))
        elif lines[position].strip() and position > index:
            break
    found = set(labels)
    if not found & _FROM_LABELS:
        return 0
    others = len(found & _OTHER_LABELS)
    if bare:  # labels without colons: only a whole block, a sender's address in it
        return last - index + 1 if has_address and found & _DATE_LABELS and others else 0
    if found & _DATE_LABELS or others >= 2 or (has_address and others >= 1):
        return last - index + 1
    return 0


MEMO_REACH = 10
"""Lines below a Notes memo's sender within which its date and labels stand."""


def _memo_block(lines: Sequence[str], index: int) -> int:
    """How many lines Lotus Notes' memo header takes from ``index`` (0: none starts here).

    Notes' memo (its table, as HTML reads or as Notes writes it in plain text, in columns)
    puts the sender on a line with an address or right above one, the date below, then each
    label alone on its line without a colon, its value near it: ``"Bob" <bob@example.org>`` /
    ``02.03.2026 13:05`` / ``An`` / ``alice@example.org`` / ``Kopie`` / ``Thema`` / ``Re:
    orders``. Taken only with the sender's address, a date and two labels standing alone, one
    of them the subject's.
    """
    text = lines[index].strip()
    if len(text) > MAX_CONTACT or text.endswith((":", "：")):
        return 0
    if not ("@" in text and _ADDRESS.search(text)):  # "@": a cheap test first
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if len(text) > 60 or len(following) > MAX_CONTACT or "@" not in following:
            return 0
        if not _ADDRESS.search(following):
            return 0
    labels: set[str] = set()
    dated, last = False, index
    for position in range(index + 1, min(index + 1 + MEMO_REACH, len(lines))):
        text = lines[position].strip()
        if text.rstrip(":：").lower() in _OTHER_LABELS:
            labels.add(text.rstrip(":：").lower())
            last = position
        elif len(text) <= MAX_CONTACT and _DATE_OR_TIME.search(text):
            dated = True
    if dated and len(labels) >= 2 and labels & _SUBJECT_LABELS:
        return last - index + 1
    return 0


def _label(line: str) -> str | None:
    match = _HEADER_LABEL.match(line.strip())
    return match.group(1).strip().lower() if match else None


def _bare_label(line: str) -> str | None:
    """A header label without its colon, as Notes writes its header table (``Von  Bob <b@x>``,
    ``An  alice@example.org``): a known label, then a value."""
    words = line.split(None, 2)
    if len(words) < 2 or len(words[0]) > 15:
        return None
    two = f"{words[0]} {words[1]}".lower()
    if len(words) == 3 and two in _HEADER_LABELS:
        return two
    one = words[0].lower()
    return one if one in _HEADER_LABELS else None


# ---------------------------------------------------------------------------------------------
# Deciding on the pattern of classes

_OPENERS = (Line.ATTRIBUTION, Line.HEADER, Line.SEPARATOR)


@dataclass
class _Reading:
    """The lines, their classes, and who each line belongs to so far (with the rule why)."""

    lines: Sequence[str]
    classes: Sequence[Line]
    guard: Callable[[str], bool]
    owner: list[str] = field(default_factory=list)  # "text", "quote" or "signature"
    rules: list[str] = field(default_factory=list)

    def own(self, indexes: Sequence[int] | range, part: str, rule: str) -> None:
        for index in indexes:
            if self.owner[index] == "text":
                self.owner[index], self.rules[index] = part, rule

    def any_order(self, indexes: Sequence[int] | range) -> bool:
        return any(self.guard(self.lines[index]) for index in indexes)


def split_reply(
    lines: Sequence[str],
    *,
    is_order: Callable[[str], bool] | None = None,
    list_marks: Collection[str] = (),
) -> Split:
    """Split body ``lines`` into text, quote and signature (see the module's documentation).

    ``is_order`` says whether a line reads as an order or a command (by default: of any game,
    :func:`reads_as_order`); such a line is never taken for a signature or a disclaimer by a
    guess. ``list_marks`` are the addresses and id of the mailing list the mail came through
    (its ``List-*`` fields, :func:`list_marks`): a line naming one is the list's footer, in
    whatever language the list writes it.
    """
    if any(line.strip() == _ARMOUR_START for line in lines):
        lines = unescape_dashes(lines)
    classes = classify_lines(lines)
    if list_marks:
        classes = _mark_list_footers(lines, classes, list_marks)
    reading = _Reading(
        lines, classes, is_order or reads_as_order, ["text"] * len(lines), [""] * len(lines)
    )
    following = _next_kinds(classes)
    end = _quote_start(reading, following)
    reading.own(range(end, len(lines)), "quote", "quoted-history")
    for index in range(end):
        kind = classes[index]
        if kind is Line.QUOTED:
            reading.own([index], "quote", "quote")
        elif (
            kind in (*_OPENERS, Line.HEADER_MORE)
            or (kind is Line.WEAK_ATTRIBUTION and following[index] is Line.QUOTED)
        ) and not reading.any_order([index]):
            reading.own([index], "quote", "attribution")
        elif kind is Line.FOOTER and not reading.any_order([index]):
            reading.own([index], "signature", "mail-client-line")
        elif kind is Line.ARMOUR:
            reading.own([index], "signature", "pgp-armour")
    delimiter = next((i for i in range(end) if classes[i] is Line.DELIMITER), None)
    if delimiter is not None:
        below = range(delimiter, end)
        reading.own([i for i in below if not reading.guard(lines[i])], "signature", "signature")
        end = delimiter
    end = _ruled_footer(reading, end)
    _disclaimers(reading, end)
    _undelimited_signature(reading, end)
    _sign_off(reading, end)
    return _result(reading)


def _mark_list_footers(
    lines: Sequence[str], classes: list[Line], marks: Collection[str]
) -> list[Line]:
    """Lines of the sender's that name the mailing list (``To unsubscribe send an email to
    gw1-leave@lists.example.org``, ``Gw1 Mailingliste -- gw1@lists.example.org``) as footers."""
    lowered = [mark.casefold() for mark in marks if len(mark) >= 6]
    return [
        Line.FOOTER
        if kind is Line.TEXT and any(mark in line.casefold() for mark in lowered)
        else kind
        for line, kind in zip(lines, classes, strict=True)
    ]


_LIST_ADDRESS = re.compile(r"mailto:([^\s<>?,;]+@[^\s<>?,;]+)", re.IGNORECASE)
_LIST_ID = re.compile(r"<([^\s<>]+\.[^\s<>]+)>")


def list_marks(fields: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The addresses (``List-Post``, ``List-Unsubscribe``, ...: RFC 2369) and the id
    (``List-Id``: RFC 2919) of the mailing list a mail came through, from its
    ``(name, value)`` header fields."""
    marks: list[str] = []
    for name, value in fields:
        field_name = name.lower()
        if field_name == "list-id":
            marks += _LIST_ID.findall(value)
        elif field_name.startswith("list-"):
            marks += _LIST_ADDRESS.findall(value)
    return tuple(dict.fromkeys(marks))


def _quote_start(reading: _Reading, following: Sequence[Line | None]) -> int:
    """Where the quoted history starts for good: the first opener that is not right above
    quoted lines (it introduces a quote re-wrapped without ``>``); the end when none is. A
    line that reads as an order opens nothing, whatever its shape."""
    for index, kind in enumerate(reading.classes):
        if (
            kind in _OPENERS
            and following[index] is not Line.QUOTED
            and not reading.guard(reading.lines[index])
        ):
            return index
    return len(reading.classes)


_SKIPPED = (Line.EMPTY, Line.HEADER_MORE, Line.ATTRIBUTION, Line.SEPARATOR)


def _next_kinds(classes: Sequence[Line]) -> list[Line | None]:
    """For each line, the class of the first line after it that is not empty nor part of an
    opener (a weak attribution counts as text there); None at the end. One pass from the end,
    so that a run of openers costs no more than its length."""
    found: list[Line | None] = [None] * len(classes)
    upcoming: Line | None = None
    for index in range(len(classes) - 1, -1, -1):
        found[index] = upcoming
        kind = classes[index]
        if kind not in _SKIPPED:
            upcoming = kind if kind is not Line.WEAK_ATTRIBUTION else Line.TEXT
    return found


def _ruled_footer(reading: _Reading, end: int) -> int:
    """A rule (``-----``, ``_____``) with a footer or a disclaimer below it, to the end of the
    sender's text, is that footer: a text-message gateway's block between two rules, a mailing
    list's footer, a carrier's or company's notice. Never over a line that reads as an order.
    Where the sender's text now ends."""
    found = end
    for index in range(end - 1, -1, -1):
        text = reading.lines[index].strip()
        if not text or text[0] not in _FOOTER_RULE_STARTS or reading.owner[index] != "text":
            continue
        if not _FOOTER_RULE.fullmatch(text):
            continue
        block = [i for i in range(index, end) if reading.owner[i] == "text"]
        if len(block) > 2 * MAX_SIGNATURE or reading.any_order(block):
            break
        if any(reading.classes[i] in (Line.FOOTER, Line.DISCLAIMER) for i in range(index, end)):
            found = index
    reading.own(range(found, end), "signature", "footer")
    return found


def _disclaimers(reading: _Reading, end: int) -> None:
    """A paragraph from a disclaimer line on is legal or banner text, when no line of it reads
    as an order."""
    for start, stop in _paragraphs(reading, end):
        first = next((i for i in range(start, stop) if reading.classes[i] is Line.DISCLAIMER), None)
        if first is None:
            continue
        span = [i for i in range(first, stop) if reading.owner[i] == "text"]
        if not reading.any_order(span):
            reading.own(span, "signature", "disclaimer")


def _undelimited_signature(reading: _Reading, end: int) -> None:
    """A signature without ``-- ``: from the last valediction on, or the last paragraph when it
    is contact details; never over a line that reads as an order."""
    classes, owner = reading.classes, reading.owner
    texts = [i for i in range(end) if owner[i] == "text" and classes[i] is not Line.EMPTY]
    valedictions = [i for i in texts if classes[i] is Line.VALEDICTION]
    if valedictions:
        after = [i for i in texts if i >= valedictions[-1]]
        if len(after) <= MAX_SIGNATURE and not reading.any_order(after):
            reading.own(after, "signature", "valediction")
            return
    paragraphs = _paragraphs(reading, end)
    if not paragraphs:
        return
    start, stop = paragraphs[-1]
    block = [i for i in range(start, stop) if owner[i] == "text"]
    if len(block) > MAX_SIGNATURE:
        return
    contact = sum(
        1 for i in block if classes[i] is Line.DISCLAIMER or _is_contact(reading.lines[i])
    )
    if len(block) <= MAX_SIGNATURE and contact * 2 >= len(block) and not reading.any_order(block):
        reading.own(block, "signature", "contact-block")


_SIGNATURE_RULES = ("signature", "footer", "disclaimer", "valediction", "contact-block")
_NAME_WORD = re.compile(r"[^\W\d_][\w'’.-]*,?|[&|/-]")


_COMPANY = re.compile(
    r"\b(?:GmbH|AG|Inc|Ltd|LLC|LLP|S\.A|SARL|S\.p\.A|B\.V|Corp|PLC|KG|Pty|Oy|AB|AS|ApS|SE"
    r"|S\.L|Srl|s\.r\.o|Sp\.\s*z\s*o\.o)\b\.?"
)  # case matters: "As" and "Inc" in a sentence are not companies


def _is_contact(line: str) -> bool:
    text = line.strip()
    return len(text) <= MAX_CONTACT and bool(_CONTACT.search(text) or _COMPANY.search(text))


def _sign_off(reading: _Reading, end: int) -> None:
    """A name alone (one or two short lines) right above a signature or disclaimer, below
    the sender's other text, is the sender signing off."""
    starts = [
        i
        for i in range(end)
        if reading.rules[i] in _SIGNATURE_RULES
        and (i == 0 or reading.rules[i - 1] not in _SIGNATURE_RULES)
    ]
    for first in starts[-3:]:  # the signature is at the end; a few starts are enough
        paragraphs = [p for p in _paragraphs(reading, first) if p[1] <= first]
        if len(paragraphs) < 2:
            continue
        start, stop = paragraphs[-1]
        block = list(range(start, stop))
        names = all(_is_name(reading.lines[i]) for i in block)
        if len(block) <= 2 and names and not reading.any_order(block):
            reading.own(block, "signature", "sign-off")


def _is_name(line: str) -> bool:
    words = line.split()
    return (
        0 < len(words) <= 4
        and len(line.strip()) <= 40
        and all(_NAME_WORD.fullmatch(word) for word in words)
        and words[0][:1].isupper()
        and not line.rstrip().endswith((".", ":", "?", "!"))
    )


def _paragraphs(reading: _Reading, end: int) -> list[tuple[int, int]]:
    """(start, stop) of each run of the sender's non-empty lines before ``end``."""
    found: list[tuple[int, int]] = []
    start = None
    for index in range(end + 1):
        inside = (
            index < end
            and reading.owner[index] == "text"
            and reading.classes[index] is not Line.EMPTY
        )
        if inside and start is None:
            start = index
        elif not inside and start is not None:
            found.append((start, index))
            start = None
    return found


def _result(reading: _Reading) -> Split:
    lines, owner, rules = reading.lines, reading.owner, reading.rules

    def part(name: str) -> list[str]:
        return [line if who == name else "" for line, who in zip(lines, owner, strict=True)]

    split = Split(part("text"), part("quote"), part("signature"), classes="".join(reading.classes))
    index = 0
    while index < len(lines):
        stop = index + 1
        while stop < len(lines) and rules[stop] == rules[index]:
            stop += 1
        if rules[index]:
            split.cuts.append(Cut(rules[index], index + 1, stop - index, _short(lines[index])))
        index = stop
    return split


def cut_reply(
    lines: Sequence[str],
    *,
    is_order: Callable[[str], bool] | None = None,
    list_marks: Collection[str] = (),
) -> tuple[list[str], list[Cut]]:
    """The sender's own lines of ``lines`` (removed lines blank, trailing blanks dropped, at most
    :data:`MAX_LINES`), and what was cut, for the logs (see :func:`split_reply`)."""
    split = split_reply(lines[:MAX_LINES], is_order=is_order, list_marks=list_marks)
    kept, cuts = split.text, split.cuts
    if len(lines) > MAX_LINES:
        cuts.append(
            Cut("too-long", MAX_LINES + 1, len(lines) - MAX_LINES, _short(lines[MAX_LINES]))
        )
    while kept and not kept[-1].strip():
        kept.pop()
    return kept, cuts


def _short(line: str) -> str:
    line = line.strip()
    return line if len(line) <= 80 else line[:77] + "..."
