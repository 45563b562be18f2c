"""Every mail about a game is answerable (``test_every_mail_answerable.py``): the mails of
webhooks given up, to the game master (the game's webhook) and to a player (his own), replied
to, are read as the game master's and the seat's."""

from __future__ import annotations

from answering import ALICE, GM, Replies, reply, welcomed_game
from playing import close_open_round, newest_to
from webhook_receiver import Receiver, deliver_webhooks, receiving

from adjudicator.base.config import WebhooksConfig
from adjudicator.notify.webhook import WebhookChannel
from adjudicator.service.app import App

WEBHOOKS = {"webhook_gave_up", "gm:webhook_gave_up"}


def test_replies_to_the_mails_of_webhooks_given_up(app: App) -> None:
    with receiving(Receiver(answers=[404] * 20)) as receiver:
        welcomed_game(app, "gw1")
        reply(app, newest_to(app, GM), f"WEBHOOK {receiver.url}", sender=GM)
        reply(app, newest_to(app, ALICE), f"SET WEBHOOK {receiver.url}/alice", sender=ALICE)
        reply(app, newest_to(app, ALICE), "GIVE 3 TO bob", sender=ALICE)
        close_open_round(app, "gw1")
        # The app's configuration allows no loopback: this channel, made for the pass, does.
        loopback = WebhookChannel(WebhooksConfig(allow_hosts=("127.0.0.1",), allow_http=True))
        deliver_webhooks(app, loopback)
        assert {post.path for post in receiver.posts} == {"/hook", "/hook/alice"}
    replies = Replies(app)
    replies.answer_new()
    assert replies.kinds() >= {"webhook_gave_up"}
    assert replies.kinds(gm=True) >= {"gm:webhook_gave_up"}
