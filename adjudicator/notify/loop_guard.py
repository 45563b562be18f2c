"""The loop guard: a program that answers every mail (a vacation notice without auto-reply
headers, another service) must not mail with the service for ever, and a person must never be
taken for one.

Only mail that looks automatic counts (:func:`looks_automatic`): a reply to one of our mails
that writes no order and no command, and has no text of its own, or an auto-responder's words,
or came within seconds of our mail. A person's mail, however quick, names orders or commands:
a player of a quick game against the computer, replying to each confirmation with his next
move, a STATUS or a RESIGN, is answered every time, whether he writes from his registered
address or to his reply address. Which mail looked automatic is kept with it
(``Submission.automatic``); after ``LOOP_ANSWERS`` of them from one sender in ``LOOP_WINDOW``
the answers to the next ones are held back (:func:`held_back`), and the address is told once
(``queue.queue_notice``), with when answers resume.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session

from adjudicator.core.text import counted
from adjudicator.mail.compose import Identity, message_id
from adjudicator.mail.orderlike import reads_as_order
from adjudicator.mail.parse import InboundMail
from adjudicator.storage import queries

LOOP_WINDOW = timedelta(minutes=10)
LOOP_ANSWERS = 5
"""Mails that looked automatic from one sender in ``LOOP_WINDOW`` after which the answers to
the next ones are held back: a robot answering our answers (a loop)."""
ROBOT_DELAY = timedelta(seconds=10)
"""A reply this soon after the mail of ours it answers was not written by a person: the mail
had to reach him, be read and be answered."""
_AUTO_WORDING = re.compile(
    r"\b(?:out of (?:the )?office|on (?:vacation|holiday|leave)\b|away (?:from|until|till)\b"
    r"|(?:i am|i'm|i will be|currently) (?:away|out|absent)\b"
    r"|automatic(?:ally)? (?:reply|response|generated)|auto-?(?:reply|respon[sd]e|responder)"
    r"|thank you for your (?:e-?mail|mail|message)"
    r"|(?:your|this) (?:e-?mail|mail|message) (?:has been|was) received"
    r"|limited access to (?:e-?mail|my mail)|(?:do not|don't) reply to this)",
    re.IGNORECASE,
)
"""What auto-responders write that people replying to a game's mail do not."""


@dataclass(frozen=True)
class Held:
    """Answers held back as a loop: why the mail looked automatic, how many such mails came
    from its sender in ``LOOP_WINDOW``, and when answers resume if no other comes."""

    why: str
    count: int
    resume_at: datetime

    @property
    def note(self) -> str:
        return (
            f"not answered: a loop ({self.count} mails that look automatic in "
            f"{LOOP_WINDOW}; {self.why})"
        )


def answers_ours(mail: InboundMail, domain: str) -> bool:
    """Whether the mail replies to a mail of ours (its In-Reply-To or References name one)."""
    ours = f"@{domain.lower()}>"
    cited = [mail.in_reply_to or "", *mail.references]
    return any(ref.lower().endswith(ours) for ref in cited)


def looks_automatic(
    session: Session, mail: InboundMail, *, identity: Identity, now: datetime
) -> str | None:
    """Why ``mail`` looks sent by a program answering our mail rather than by a person, or
    None. A mail with a line that reads as an order or a command is a person's."""
    if not answers_ours(mail, identity.domain):
        return None
    own = [line.strip() for line in mail.lines if line.strip()]
    if any(reads_as_order(line) for line in own):
        return None
    if not own:
        return "it replies to our mail with no text of its own"
    if _AUTO_WORDING.search(" ".join(own)):
        return "it replies to our mail in an auto-responder's words"
    sent = _our_mail_sent(session, mail, identity=identity, now=now)
    if sent is not None and now - sent <= ROBOT_DELAY:
        seconds = max(0, round((now - sent).total_seconds()))
        return f"it replied to our mail {counted(seconds, 'second')} after we sent it"
    return None


def held_back(
    session: Session, mail: InboundMail, *, identity: Identity, now: datetime
) -> Held | None:
    """Whether the answers to ``mail`` are held back as a loop (see the module docstring)."""
    why = looks_automatic(session, mail, identity=identity, now=now)
    if why is None or not mail.sender:
        return None
    earlier = queries.automatic_mails_from(session, mail.sender, since=now - LOOP_WINDOW)
    if earlier < LOOP_ANSWERS:
        return None
    return Held(why, earlier + 1, now + LOOP_WINDOW)


def stored(automatic: str | None, held: Held | None) -> str | None:
    """What ``Submission.automatic`` keeps of a mail: why it looked automatic, and whether its
    answers were held back."""
    if held is not None:
        return f"{queries.HELD_BACK}{held.why}"
    return automatic


def notice_due(session: Session, *, to: str, sender: str, now: datetime) -> bool:
    """Whether ``to`` is to be told that answers to ``sender``'s mail are held back: once a
    spell of holding back, which began after the last mail of his that looked automatic and
    was answered all the same."""
    since = queries.last_answered_automatic(session, sender) or now - timedelta(days=3650)
    return queries.mails_to_since(session, kind="held_back", recipient=to, since=since) == 0


def _our_mail_sent(
    session: Session, mail: InboundMail, *, identity: Identity, now: datetime
) -> datetime | None:
    """When the mail of ours that ``mail`` replies to was sent (queued, if not yet sent), if
    it went to the sender lately."""
    if not mail.in_reply_to or not mail.sender:
        return None
    wanted = mail.in_reply_to.strip().lower()
    for key, created, sent in queries.mails_to_recently(
        session, mail.sender, since=now - LOOP_WINDOW
    ):
        if message_id(key, identity).lower() == wanted:
            return sent or created
    return None
