"""``adjudicate --round N --dry-run``: the result mails a round would bring, in words, with
nothing stored and nothing mailed.

The round is closed and adjudicated by the same use-case as at its deadline
(``closing.close_and_adjudicate``) and its result mails rendered by the same code and templates
as the real ones (``round_result_mails``), all in a session the caller rolls back: what
the dry run shows is what the players would get, not a second description of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from email import message_from_bytes, policy
from email.message import EmailMessage

from sqlmodel import Session

from adjudicator.notify.context import ServiceContext
from adjudicator.service import ServiceError
from adjudicator.service.closing import close_and_adjudicate
from adjudicator.service.reporting import adjudicated_round
from adjudicator.service.round_results import round_result_mails
from adjudicator.service.rounds import Adjudicated
from adjudicator.storage.models import Round, RoundState, Seat


@dataclass(frozen=True)
class ShownMail:
    """One player's result mail as text: who gets it, its subject and its plain part."""

    handle: str
    address: str
    subject: str
    text: str
    private: bool  # the player's mail holds a private report or orders of theirs not applied


def result_mails_in_words(
    session: Session, round_: Round, *, ctx: ServiceContext, now: datetime
) -> list[ShownMail]:
    """Every active player's result mail of ``round_``: adjudicated here when it is open (the
    caller rolls ``session`` back), as stored when it was adjudicated before."""
    assert round_.id is not None
    if round_.state in (RoundState.OPEN, RoundState.CLOSING):
        closed = close_and_adjudicate(session, round_.id, ctx=ctx, now=now, force=True)
        if closed is None or closed.adjudicated is None:
            why = closed.error if closed else "another process is closing it"
            raise ServiceError(f"round {round_.number} could not be adjudicated: {why}")
        adjudicated: Adjudicated | None = closed.adjudicated
    else:
        adjudicated = adjudicated_round(session, round_.id)
    if adjudicated is None:
        raise ServiceError(f"round {round_.number} has no stored result")
    result = adjudicated.result
    private = result.report.get("private", {})
    shown = []
    for mail in round_result_mails(session, ctx=ctx, adjudicated=adjudicated, now=now):
        seat = session.get(Seat, int(mail.key.rsplit(":", 1)[1]))  # key: result:<round>:<seat>
        assert seat is not None
        message = message_from_bytes(mail.message, policy=policy.default)
        assert isinstance(message, EmailMessage)
        body = message.get_body(preferencelist=("plain",))
        assert body is not None
        mine = bool(private.get(seat.handle)) or any(
            r.get("player") == seat.handle for r in result.rejected
        )
        shown.append(
            ShownMail(
                seat.handle, mail.recipient, str(message["Subject"]), body.get_content(), mine
            )
        )
    return shown


def worth_showing(mails: list[ShownMail]) -> list[ShownMail]:
    """The first player's mail (the public report as a player reads it), and each other
    player's whose mail holds something of their own."""
    return [mail for index, mail in enumerate(mails) if index == 0 or mail.private]
