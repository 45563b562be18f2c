"""The operator's care of the outbox (``adjudicate outbox``): list the mails waiting or failed,
show one, send one (or every failed one) again, give one up.

A mail the SMTP server refused for good stays ``failed`` (``notify/outbox.py``); after its cause is
mended (the recipient's server takes mail again) it is sent again by putting it back in the
queue, due at once, with its attempts counted afresh. A mail given up is ``dropped``: kept, for
the record, and never sent. Two kinds of failed mail cannot be sent again, and the refusal says
what to do instead: a welcome (or seat hand-over) mail, whose body held the player's password
and was dropped from the outbox once it failed, and a mail cancelled by a rollback.

Nothing here shows a secret: a mail that holds a player's password is shown by its header
fields only, without its personal Reply-To (``outbox.header_section``).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from sqlmodel import Session, col, select

from adjudicator.notify.outbox import DROPPED, SECRET_KINDS, header_section
from adjudicator.service import ServiceError
from adjudicator.service.games import find_game
from adjudicator.storage.db import aware
from adjudicator.storage.models import Game, OutboxMail, OutboxStatus, Round

STATUSES = tuple(status.value for status in OutboxStatus)
LISTED = (OutboxStatus.PENDING, OutboxStatus.FAILED)
"""What ``outbox list`` shows unless told: the mails that still concern somebody."""
CANCELLED = "cancelled:"
"""How a rollback marks the unsent mails of the rounds it discards (``gm.rollback``)."""
NO_MAIL = 3  # the CLI's exit code for "no such game, round or player"


@dataclass(frozen=True)
class Listed:
    """One mail of the outbox as ``outbox list`` shows it."""

    mail: OutboxMail
    game: str | None
    round: int | None

    def line(self) -> str:
        mail = self.mail
        error = _printable(mail.last_error or "")[:70]
        where = f"{self.game or '-'}" + (f"/{self.round}" if self.round is not None else "")
        return (
            f"{mail.id:>6}  {mail.status:<8} {mail.kind:<18} {where:<14} "
            f"{_printable(mail.recipient):<32} {mail.attempts:>3}  {error}"
        ).rstrip()


HEADING = (
    f"{'ID':>6}  {'STATUS':<8} {'KIND':<18} {'GAME/ROUND':<14} {'RECIPIENT':<32} {'TRY'}  ERROR"
)


def listed_mails(
    session: Session, *, statuses: tuple[str, ...], game: str | None, limit: int
) -> tuple[list[Listed], int]:
    """The mails in these statuses (of this game), oldest first, at most ``limit``; and how
    many there are in all."""
    unknown = [s for s in statuses if s not in STATUSES]
    if unknown:
        raise ServiceError(
            f"no outbox status {unknown[0]!r}: give one of {', '.join(STATUSES)}", exit_code=2
        )
    query = select(OutboxMail, Game.name, Round.number).where(col(OutboxMail.status).in_(statuses))
    query = query.join(Game, col(Game.id) == col(OutboxMail.game_id), isouter=True)
    query = query.join(Round, col(Round.id) == col(OutboxMail.round_id), isouter=True)
    if game is not None:
        query = query.where(OutboxMail.game_id == find_game(session, game).id)
    rows = session.exec(query.order_by(col(OutboxMail.id))).all()
    return [Listed(m, g, r) for m, g, r in rows[:limit]], len(rows)


def find_mail(session: Session, mail_id: int) -> OutboxMail:
    mail = session.get(OutboxMail, mail_id)
    if mail is None:
        raise ServiceError(
            f"no mail {mail_id} in the outbox: `adjudicate outbox list` shows the ids",
            exit_code=NO_MAIL,
        )
    return mail


def mail_lines(session: Session, mail_id: int, *, body: bool) -> list[str]:
    """What ``outbox show`` says of one mail: its state, its header fields and, when asked
    and not secret, its text."""
    mail = find_mail(session, mail_id)
    game = session.get(Game, mail.game_id) if mail.game_id is not None else None
    round_ = session.get(Round, mail.round_id) if mail.round_id is not None else None
    where = f"game {game.name}" if game else "no game"
    where += f", round {round_.number}" if round_ else ""

    def moment(value: datetime | None) -> str:
        return aware(value).strftime("%Y-%m-%d %H:%M:%S UTC") if value else "-"

    lines = [
        f"mail {mail.id}: {mail.status}",
        f"  kind:        {mail.kind} ({where})",
        f"  recipient:   {_printable(mail.recipient)}",
        f"  attempts:    {mail.attempts}",
        f"  queued:      {moment(mail.created_at)}",
        f"  next try:    {moment(mail.next_attempt_at) if mail.status == 'pending' else '-'}",
        f"  sent:        {moment(mail.sent_at)}",
        f"  last error:  {_printable(mail.last_error or '-')}",
        "header fields:",
    ]
    secret = mail.kind in SECRET_KINDS
    message = _parsed(header_section(mail.message) if secret else mail.message)
    lines += [f"  {name}: {_printable(str(value))}" for name, value in message.items()]
    lines.append(_body(mail, message, body=body, secret=secret))
    return lines


def _body(mail: OutboxMail, message: EmailMessage, *, body: bool, secret: bool) -> str:
    if secret and mail.message.endswith(DROPPED):
        return "text: dropped once the mail was sent or failed (it held the player's password)"
    if secret:
        return "text: not shown (it holds the player's password)"
    if not body:
        return "text: not shown (add --body to see it)"
    part = message.get_body(preferencelist=("plain",))
    text = part.get_content() if isinstance(part, EmailMessage) else ""
    return "text:\n" + "\n".join(f"  {_printable(line)}" for line in str(text).splitlines())


def retry(session: Session, mail: OutboxMail, *, now: datetime) -> None:
    """Put ``mail`` back in the queue, due now, with its attempts counted afresh; refused
    with the reason (and what to do instead) when it cannot be sent again."""
    if mail.status == OutboxStatus.SENT:
        raise ServiceError(f"mail {mail.id} was sent at {mail.sent_at}: nothing to send again")
    if mail.kind in SECRET_KINDS and mail.message.endswith(DROPPED):
        raise ServiceError(
            f"mail {mail.id} is a {mail.kind} mail: its text held the player's password and was "
            "dropped when it failed, so it cannot be sent again; give the seat a new password "
            "and welcome mail with `adjudicate player replace GAME HANDLE ADDRESS`"
        )
    if (mail.last_error or "").startswith(CANCELLED):
        raise ServiceError(
            f"mail {mail.id} was {mail.last_error}: the round it spoke of was discarded, and "
            "its new result is mailed when the round closes again"
        )
    mail.status, mail.attempts, mail.next_attempt_at = OutboxStatus.PENDING, 0, now
    session.add(mail)


def retry_failed(session: Session, *, game: str | None, now: datetime) -> tuple[int, list[str]]:
    """Every failed mail (of ``game``) that can be sent again, back in the queue; how many,
    and why each other one was left."""
    failed, _ = listed_mails(session, statuses=("failed",), game=game, limit=10**9)
    retried, left = 0, []
    for listed in failed:
        try:
            retry(session, listed.mail, now=now)
        except ServiceError as why:
            left.append(str(why))
        else:
            retried += 1
    return retried, left


def drop(session: Session, mail: OutboxMail, *, now: datetime) -> None:
    """Give ``mail`` up: it stays in the outbox as ``dropped``, with when, and is never sent."""
    if mail.status == OutboxStatus.SENT:
        raise ServiceError(f"mail {mail.id} was sent at {mail.sent_at}: nothing to drop")
    before = f"; it had failed: {mail.last_error}" if mail.last_error else ""
    mail.status = OutboxStatus.DROPPED
    mail.last_error = f"dropped by the operator at {now:%Y-%m-%d %H:%M} UTC{before}"
    session.add(mail)


def _parsed(message: bytes) -> EmailMessage:
    parsed = BytesParser(policy=policy.default).parsebytes(message)
    assert isinstance(parsed, EmailMessage)
    return parsed


def _printable(text: str) -> str:
    """Text for a terminal: control characters (escape sequences a mail might carry) as ?."""
    return "".join(
        "?" if unicodedata.category(c).startswith("C") and c != "\t" else c for c in text
    )
