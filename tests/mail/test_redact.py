"""Passwords taken out of a stored mail once it is processed (mail/redact.py): wherever the
secret stands in the bytes, and wherever a transfer encoding hides it, the decoded mail no
longer holds it; the rest of the mail is left as it was."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from adjudicator.mail.redact import own_tags, redact

SECRET = "Kv7wQ2pZ"


def _texts(raw: bytes) -> list[str]:
    """Every leaf part of the mail, decoded, as its reader sees it."""
    message = message_from_bytes(raw, policy=policy.default)
    found = []
    for part in message.walk():
        if not part.is_multipart():
            found.append(str(part.get_content()))
    return found


def _mail(plain: str, html: str | None = None, *, cte: str = "7bit") -> bytes:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message["To"] = "judge@pbem.test"
    message["Subject"] = "[gw1] orders"
    message.set_content(plain, cte=cte)
    if html is not None:
        message.add_alternative(html, subtype="html", cte="base64")
    return message.as_bytes()


def test_a_password_in_plain_text_is_starred_in_place() -> None:
    raw = _mail(f"PASSWORD {SECRET}\nGIVE 3 TO bob\n")
    done = redact(raw, [SECRET])
    assert SECRET.encode() not in done
    assert len(done) == len(raw)  # the same bytes but the secret's: lines and size kept
    assert _texts(done) == ["PASSWORD ********\nGIVE 3 TO bob\n"]


def test_a_password_hidden_by_base64_is_taken_out_of_the_decoded_part() -> None:
    raw = _mail(f"PASSWORD {SECRET}\nGIVE 3 TO bob\n", f"<p>PASSWORD {SECRET}</p><p>GIVE</p>")
    assert SECRET.encode() in raw  # the plain part shows it; the HTML part hides it in base64
    done = redact(raw, [SECRET])
    texts = _texts(done)
    assert all(SECRET not in text for text in texts)
    assert "<p>PASSWORD ********</p><p>GIVE</p>" in texts[1]
    assert "GIVE 3 TO bob" in texts[0]


def test_a_password_cut_by_a_quoted_printable_soft_break_is_taken_out() -> None:
    # A long line: quoted-printable breaks it every 76 characters, here inside the password.
    line = "x" * 62 + f" PASSWORD {SECRET} and then some more words to read"
    raw = _mail(line + "\n", cte="quoted-printable")
    assert SECRET.encode() not in raw  # broken by "=\n" in the bytes
    assert SECRET in _texts(raw)[0]
    done = redact(raw, [SECRET])
    assert SECRET not in _texts(done)[0]
    assert "and then some more words to read" in _texts(done)[0]


def test_every_secret_given_goes_and_short_words_stay() -> None:
    raw = _mail(f"PASSWORD {SECRET}\nSET PASSWORD correct-horse\nGIVE 3 TO bob\n")
    done = redact(raw, [SECRET, "correct-horse", "bob"])  # "bob": too short to take out
    text = _texts(done)[0]
    assert SECRET not in text
    assert "correct-horse" not in text
    assert "GIVE 3 TO bob" in text


def test_a_mail_without_secrets_is_left_byte_for_byte() -> None:
    raw = _mail("GIVE 3 TO bob\n", "<p>GIVE 3 TO bob</p>")
    assert redact(raw, []) is raw
    assert redact(raw, [SECRET]) == raw


def test_the_tags_of_our_own_addresses_are_secrets_and_no_others() -> None:
    recipients = [
        "judge+r12-0123456789abcdef@pbem.test",  # a seat's reply address
        "<Judge+AbCd1234@PBEM.test>",
        "judge@pbem.test",  # no tag
        "bob+games@example.org",  # someone else's tag: an ordinary word of the mail
        "judge+x@elsewhere.example",  # another domain
    ]
    assert own_tags(recipients, {"judge@pbem.test"}) == ["r12-0123456789abcdef", "AbCd1234"]
