"""A round's pictures as PNG: made once, outside every database transaction, then kept.

Converting an SVG takes tens of milliseconds; a database transaction (SQLite's single write
lock above all) must not wait for it. So the PNGs of a position are made by :func:`make_pngs`
with no session open, stored by :func:`keep_pngs` in the transaction that queues the mails, and
read back by :func:`pngs_for` whenever a mail shows the pictures (the round's results, a report
asked for later, a history). Reading never converts: a picture whose PNG was never made (its
converter failed) goes out as text in the plain part only.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime

from sqlmodel import Session

from adjudicator.mail.images import picture_digest
from adjudicator.notify.context import ServiceContext
from adjudicator.pictures import Picture
from adjudicator.storage import queries
from adjudicator.storage.db import insert_new, inserts_held
from adjudicator.storage.models import PicturePng

log = logging.getLogger(__name__)


def pngs_for(
    session: Session, ctx: ServiceContext, pictures: Sequence[Picture]
) -> dict[str, bytes]:
    """The PNGs made of ``pictures``, by digest: from the service's memory, else the table."""
    found: dict[str, bytes] = {}
    wanted = []
    for picture in pictures:
        digest = picture_digest(picture.svg)
        png = ctx.pngs.get(digest)
        if png is None:
            wanted.append(digest)
        else:
            found[digest] = png
    if wanted:
        for digest, png in queries.stored_pngs(session, wanted).items():
            ctx.pngs.put(digest, png)
            found[digest] = png
    return found


def missing_pngs(
    session: Session, ctx: ServiceContext, pictures: Sequence[Picture]
) -> list[Picture]:
    """The pictures whose PNG has not been made yet (a read: no write lock taken)."""
    have = pngs_for(session, ctx, pictures)
    return [p for p in pictures if picture_digest(p.svg) not in have]


def make_pngs(ctx: ServiceContext, pictures: Sequence[Picture]) -> dict[str, bytes]:
    """Convert ``pictures`` with the service's converter. Call it with no transaction open.

    A picture that cannot be made is left out, whatever the converter raised: the result mails
    go out without its image (the plain part has its text) rather than not at all."""
    made = {}
    for picture in pictures:
        try:
            png = ctx.converter.to_png(picture.svg)
        except Exception:
            log.exception("the picture %r could not be made", picture.name)
            continue
        if png is not None:
            digest = picture_digest(picture.svg)
            made[digest] = png
            ctx.pngs.put(digest, png)
    return made


def keep_pngs(session: Session, pngs: Mapping[str, bytes], *, now: datetime) -> None:
    """Store PNGs made outside the transaction; another instance may have stored the same.
    One statement for a round's pictures (``inserts_held``), not one a picture."""
    with inserts_held(session, PicturePng, key="digest"):
        for digest, png in pngs.items():
            insert_new(
                session, PicturePng, {"digest": digest, "png": png, "created_at": now}, key="digest"
            )
