"""How many answers one address may get: the intake answers mail, and anyone can write mail in
anyone's name. Without a limit a forger makes the service mail a victim without end (400 of 400
forged mails were answered). A robot that answers every mail is the loop guard's
(``loop_guard.py``).

Every answer to a mail that proved no seat (``queue.queue_notice``) asks
:func:`answer_refused` first; a refused answer is not queued, and the submission's note says
why. An address has one budget, which every answer to it counts towards
(``queries.ANSWER_KEYS``): refusals, answers to commands such as HELP, reports asked for, and
the answers to a proven seat too. Those (confirmations, rejections of its orders) cannot be
forged in bulk and are never held back; neither are results, reminders and other mail the game
sends on its own.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session

from adjudicator.mail.parse import InboundMail
from adjudicator.storage import queries

HOUR = timedelta(hours=1)
ANSWERS_PER_HOUR = 30
"""Answers one address gets in an hour: a player fixing orders in a hurry stays far below.
Above the reports' own limit (``reports.ANSWERS_PER_HOUR``), whose last answer says so."""
STRANGER_ANSWERS_PER_HOUR = 3
"""Answers in an hour to an address the service does not know (no seat in any game, now or
before, not an observer, not standing by, not asking to join: ``queries.address_is_known``),
answers to its commands included (HELP, LIST and JOIN are three): forged senders,
backscatter. The codes that OBSERVE, STANDBY and JOIN mail make the address known once it
answers with them."""
STRANGERS_PER_HOUR = 100
"""Answers in an hour to all such addresses together (forged mails from many addresses)."""


def answer_refused(
    session: Session, *, to: str, mail: InboundMail, domain: str, now: datetime
) -> str | None:
    """Why an answer to ``to`` must not be sent now, or None when it may."""
    recent = queries.answers_to(session, to, since=now - HOUR)
    if recent >= ANSWERS_PER_HOUR:
        return f"not answered: {recent} answers to {to} in the last hour"
    if not queries.address_is_known(session, to):
        # Counted as a stranger's only: the answers a moved address got while it played do
        # not count (``as_stranger``).
        strange = queries.answers_to(session, to, since=now - HOUR, as_stranger=True)
        if strange >= STRANGER_ANSWERS_PER_HOUR:
            return (
                f"not answered: {strange} answers to {to}, who has no seat (and observes no game),"
                " in the last hour"
            )
        strangers = queries.answers_to_strangers(session, since=now - HOUR)
        if strangers >= STRANGERS_PER_HOUR:
            return f"not answered: {strangers} answers to addresses without a seat this hour"
    return None
