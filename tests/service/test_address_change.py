"""After a seat moves to a new address, the old mailbox proves nothing.

A player changes address (``SET ADDRESS`` with the code mailed to the new one, or the game
master's ``adjudicate player address``) most often because the old mailbox is given up: a
job left, a provider closed, a mailbox lost. Whoever reads it next finds the welcome mail
(the seat's personal reply address) and every later mail (each with a reply address of the
seat): none of them may place an order any more. The player keeps the seat: the password
from the new address, and the reply address of mails sent there, still count."""

from __future__ import annotations

from collections.abc import Callable
from email import message_from_bytes

import pytest
from sqlmodel import Session, col, select
from test_intake import creds, make_mail, stored_orders

from adjudicator.base.security import address_code
from adjudicator.service.app import App
from adjudicator.service.games import Credentials, find_game
from adjudicator.service.gm import change_address
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OutboxMail, SubmissionStatus

__all__ = ["creds"]

OLD, NEW = "alice@example.org", "alice@new.example"


def reply_addresses(app: App, recipient: str) -> list[str]:
    """The Reply-To of every mail queued to ``recipient``, oldest first."""
    with Session(app.engine) as session:
        mails = session.exec(
            select(OutboxMail).where(OutboxMail.recipient == recipient).order_by(col(OutboxMail.id))
        ).all()
    found = (message_from_bytes(m.message)["Reply-To"] for m in mails)
    return [str(r).strip("<> ") for r in found if r]


def by_set_address(app: App, creds: dict[str, Credentials]) -> None:
    code = address_code(app.ctx.receipt_key, OLD, NEW)
    raw = make_mail(f"PASSWORD {creds['alice'].secret}\nSET ADDRESS {NEW} {code}")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED


def by_game_master(app: App, _creds: dict[str, Credentials]) -> None:
    with session_scope(app.engine) as session:
        change_address(
            session, find_game(session, "gw1"), "alice", NEW, ctx=app.ctx, now=app.clock()
        )


@pytest.mark.parametrize("move", [by_set_address, by_game_master], ids=["set-address", "gm"])
def test_the_old_mailbox_cannot_order_after_an_address_change(
    app: App, creds: dict[str, Credentials], move: Callable[[App, dict[str, Credentials]], None]
) -> None:
    """Before the fix the welcome's token address and the reply address of a mail sent to the
    old address still placed orders from anywhere after the seat had moved."""
    status = make_mail(f"PASSWORD {creds['alice'].secret}\nSTATUS")
    assert app.ingest(status, channel="pipe") == SubmissionStatus.ACCEPTED
    [old_reply] = reply_addresses(app, OLD)
    move(app, creds)
    token = f"judge+{creds['alice'].reply_token}@pbem.test"
    for to in (token, old_reply):
        raw = make_mail("GIVE 3 TO bob", sender="finder@old-provider.example", to=to)
        assert app.ingest(raw, channel="pipe") == SubmissionStatus.REJECTED, to
    from_old = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob", subject="[gw1] x")
    assert app.ingest(from_old, channel="pipe") == SubmissionStatus.REJECTED
    assert stored_orders(app) == []
    # The player keeps the seat, from the new address.
    from_new = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO carol", sender=NEW)
    assert app.ingest(from_new, channel="pipe") == SubmissionStatus.ACCEPTED
    [*_, new_reply] = reply_addresses(app, NEW)
    assert new_reply != old_reply
    replied = make_mail("GIVE 3 TO bob", sender=NEW, to=new_reply)
    assert app.ingest(replied, channel="pipe") == SubmissionStatus.ACCEPTED
    assert stored_orders(app) == [["GIVE 3 TO carol"], ["GIVE 3 TO bob"]]


def test_an_address_change_by_the_game_master_is_told_at_both_addresses(
    app: App, creds: dict[str, Credentials]
) -> None:
    """Issue 40, finding 17: the player hears of the move at the old address (a seat moved
    behind his back is noticed there, with no reply address that proves the seat) and at
    the new one (with the seat's new reply address, which places orders)."""
    by_game_master(app, creds)
    with Session(app.engine) as session:
        mails = session.exec(select(OutboxMail).where(OutboxMail.kind == "address_changed")).all()
    told = {m.recipient: message_from_bytes(m.message) for m in mails}
    assert set(told) == {OLD, NEW}
    old, new = told[OLD], told[NEW]
    old_text = " ".join(str(old.get_payload(0).get_payload(decode=True), "utf-8").split())
    assert f"from this address, {OLD}, to {NEW}" in old_text
    assert "the service's operator (this game has no game master) at once" in old_text
    assert "has moved to another address" in str(old["Subject"])
    assert not str(old.get("Reply-To", "")).startswith("judge+r")
    reply = str(new["Reply-To"]).strip("<> ")
    assert reply.startswith("judge+r")
    replied = make_mail("GIVE 3 TO bob", sender=NEW, to=reply)
    assert app.ingest(replied, channel="pipe") == SubmissionStatus.ACCEPTED
