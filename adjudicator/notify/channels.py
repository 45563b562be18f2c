"""The channels a notice may go by: mail, and those the service was given besides
(``ServiceContext.channels``; what a channel is: ``context.Channel``)."""

from __future__ import annotations

from adjudicator.notify.context import Channel, ServiceContext
from adjudicator.notify.mail import MailChannel

MAIL = MailChannel()
"""The first channel, always there."""


class UnknownChannel(LookupError):
    """A notice for a channel the service was not given."""


def channel_named(ctx: ServiceContext, name: str) -> Channel:
    """The channel called ``name``: mail, or one of ``ctx.channels``."""
    for channel in (MAIL, *ctx.channels):
        if channel.name == name:
            return channel
    raise UnknownChannel(
        f"no channel {name!r}: the service knows {MAIL.name!r}"
        + "".join(f", {c.name!r}" for c in ctx.channels)
    )
