"""Mail, the first channel: a notice rendered into a whole message, threaded, with the
envelope sender and the reply address its recipient's answer needs.

The words are in ``templates/mail``; each text template sets ``subject`` at its top level; see
:mod:`adjudicator.mail.compose` for the HTML part.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlmodel import Session

from adjudicator.base.security import bounce_address, gm_reply_address, seat_reply_address
from adjudicator.mail.compose import Attachment, Inline, compose, thread_root
from adjudicator.mail.images import InlineImage
from adjudicator.mail.parse import InboundMail
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice, Threading
from adjudicator.notify.outbox import BatchSender, PendingMail
from adjudicator.storage import queries
from adjudicator.storage.models import Game, Seat


class MailChannel:
    """Notices as mail (``templates/mail/<kind>.txt.j2`` and its HTML part), sent over the
    connections ``senders`` makes: the service's SMTP connections, made from its
    configuration (``serve.runner.make_senders``); ``channels.MAIL``, which only renders,
    has none."""

    name = "mail"

    def __init__(self, *, senders: Callable[[], BatchSender] | None = None) -> None:
        self.senders = senders

    def sender(self) -> BatchSender:
        if self.senders is None:
            raise LookupError("mail is sent over the connections the service makes (serve)")
        return self.senders()

    def prepare(
        self, session: Session, notice: Notice, *, ctx: ServiceContext, now: datetime
    ) -> PendingMail:
        """The whole message of ``notice``; reads only. Mail to a seat (``seat_id``) goes out
        with the seat's own bounce address as its envelope sender, and a reply to it goes to
        the seat's reply address, so that answering any mail just works. Mail about a game to
        an address that is one of its seats' or its game master's is answerable as theirs
        too, whoever queued it (:func:`_answerable`)."""
        game = session.get(Game, notice.game_id) if notice.game_id is not None else None
        threading = _threading(ctx, notice, game)
        seat_id, context = notice.seat_id, notice.context
        if game is not None and seat_id is None and threading.reply_to is None:
            seat_id, threading = _answerable(
                session, ctx, game=game, to=notice.recipient, threading=threading
            )
        if (
            game is not None
            and "game_master" not in context
            and not _is_game_master(game, notice.recipient)
        ):
            # Every footer names who to write to for anything else (``_game_master.txt.j2``).
            context = {**context, "game_master": game.gm_address or ""}
        if seat_id is not None and threading.reply_to is None:
            seat = session.get(Seat, seat_id)
            if seat is not None:
                address = seat_reply_address(
                    ctx.receipt_key, ctx.identity.address, seat_id, seat.reply_token
                )
                threading = replace(threading, reply_to=address)
        message = render_mail(
            ctx,
            template=mail_template(ctx, game.kind if game else None, notice.kind),
            context=context,
            to=notice.recipient,
            key=notice.key,
            now=now,
            threading=threading,
            attachments=notice.attachments,
            images=notice.images,
        )
        return PendingMail(
            key=notice.key,
            kind=notice.filed_as,
            recipient=notice.recipient,
            message=message,
            game_id=notice.game_id,
            round_id=notice.round_id,
            envelope_sender=None if seat_id is None else seat_return_path(ctx, seat_id),
        )


def mail_template(ctx: ServiceContext, game_kind: str | None, kind: str) -> str:
    """The game's own template of a kind of mail (its result), or the shared one."""
    own = f"{game_kind}/{kind}"
    return own if game_kind and ctx.renderer.exists(f"mail/{own}.txt.j2") else kind


def render_mail(
    ctx: ServiceContext,
    *,
    template: str,
    context: Mapping[str, Any],
    to: str,
    key: str,
    now: datetime,
    threading: Threading,
    attachments: Sequence[Attachment] = (),
    images: Sequence[InlineImage] = (),
) -> bytes:
    """The whole message: ``templates/mail/<template>.txt.j2`` and its HTML part, the inline
    ``images`` the HTML part shows and the ``attachments``."""
    rendered = ctx.renderer.mail(template, context)
    return compose(
        identity=ctx.identity,
        to=to,
        subject=rendered.subject,
        text=rendered.text,
        html=rendered.html,
        key=key,
        now=now,
        auto=threading.auto,
        in_reply_to=threading.in_reply_to,
        references=threading.references,
        reply_to=threading.reply_to,
        attachments=attachments,
        inline=[Inline(i.filename, i.png, i.content_id) for i in images],
    )


def _threading(ctx: ServiceContext, notice: Notice, game: Game | None) -> Threading:
    """The notice's own threading; or, for an answer, under the mail it answers (and its
    game), marked ``auto-replied``; or under its game's one root."""
    if notice.threading is not None:
        threading = notice.threading
    elif notice.answers is not None:
        threading = answer_threading(notice.answers, game.name if game else None, ctx)
    elif game is not None:
        root = thread_root(game.name, ctx.identity)
        threading = Threading(in_reply_to=root, references=(root,))
    else:
        threading = Threading()
    return replace(threading, reply_to=notice.reply_to) if notice.reply_to else threading


def answer_threading(mail: InboundMail, game: str | None, ctx: ServiceContext) -> Threading:
    """An answer to ``mail``: threaded under it and under its ``game``, ``auto-replied``."""
    references = [*mail.references, mail.message_id] if mail.message_id else [*mail.references]
    if game is not None:
        root = thread_root(game, ctx.identity)
        references = [root, *(r for r in references if r != root)]
    return Threading(in_reply_to=mail.message_id, references=tuple(references), auto="auto-replied")


def seat_return_path(ctx: ServiceContext, seat_id: int) -> str:
    """The envelope sender of mail to a seat: a bounce names the seat (VERP with a MAC)."""
    return bounce_address(ctx.receipt_key, ctx.identity.address, seat_id)


def _answerable(
    session: Session, ctx: ServiceContext, *, game: Game, to: str, threading: Threading
) -> tuple[int | None, Threading]:
    """The seat of ``game`` registered at ``to``, or, for its game master's address, the
    threading with the game master's reply address: a reply to any mail about a game reaches
    the seat or the game master it went to (issue 40: the answer to ``HELP game``, the game
    master's copy of an absence notice, the answer to APPROVE had none)."""
    seat = queries.seat_at_address(session, game.id, to)
    if seat is not None:
        return seat.id, threading
    if not _is_game_master(game, to):
        return None, threading
    assert game.id is not None
    address = gm_reply_address(ctx.receipt_key, ctx.identity.address, game.id, game.gm_token)
    return None, replace(threading, reply_to=address)


def _is_game_master(game: Game, address: str) -> bool:
    return (game.gm_address or "").lower() == address.strip().lower() != ""
