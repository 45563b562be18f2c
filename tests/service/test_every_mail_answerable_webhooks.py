"""Every mail about a game is answerable (``test_every_mail_answerable.py``): the mails of
webhooks given up, to the game master (the game's webhook) and to a player (his own), replied
to, are read as the game master's and the seat's."""

from __future__ import annotations

import asyncio

from answering import ALICE, GM, Replies, reply, welcomed_game
from playing import close_open_round, newest_to
from webhook_receiver import Receiver, receiving

from adjudicator.base.config import WebhooksConfig
from adjudicator.notify.outbox import send_due
from adjudicator.notify.webhook import WebhookChannel
from adjudicator.service.app import App

WEBHOOKS = {"webhook_gave_up", "gm:webhook_gave_up"}


def deliver(app: App) -> None:
    channel = WebhookChannel(WebhooksConfig(allow_hosts=("127.0.0.1",), allow_http=True))

    async def run() -> None:
        sender = channel.sender()
        try:
            await send_due(
                app.engine,
                sender,
                bounce_address="judge@pbem.test",
                now=app.clock,
                channel="webhook",
                give_up=channel.give_up_after,
                on_refused=app.tell_refused,
            )
        finally:
            await sender.close()

    asyncio.run(run())


def test_replies_to_the_mails_of_webhooks_given_up(app: App) -> None:
    with receiving(Receiver(answers=[404] * 20)) as receiver:
        welcomed_game(app, "gw1")
        reply(app, newest_to(app, GM), f"WEBHOOK {receiver.url}", sender=GM)
        reply(app, newest_to(app, ALICE), f"SET WEBHOOK {receiver.url}/alice", sender=ALICE)
        reply(app, newest_to(app, ALICE), "GIVE 3 TO bob", sender=ALICE)
        close_open_round(app, "gw1")
        deliver(app)
        assert {post.path for post in receiver.posts} == {"/hook", "/hook/alice"}
    replies = Replies(app)
    replies.answer_new()
    assert replies.kinds() >= {"webhook_gave_up"}
    assert replies.kinds(gm=True) >= {"gm:webhook_gave_up"}
