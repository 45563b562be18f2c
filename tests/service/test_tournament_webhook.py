"""A tournament's round told to a player's own webhook (issue 44: "one mail per round of the
tournament with their pairing and the standings, or a webhook post where they chose one"):
the player who set a webhook (SET WEBHOOK) gets, beside his mail of the round, the post
``tournament.round`` with his pairing and the standings, signed with his secret, at a real HTTP
server on loopback; the players without one and the game master's copy post nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playing import Clock, queued
from test_tournaments import FLAGS, _address
from webhook_receiver import Receiver, deliver_webhooks, receiving

from adjudicator.base.config import Config, ServiceConfig, WebhooksConfig
from adjudicator.notify.webhook import signature
from adjudicator.service.app import App, make_app
from adjudicator.service.games import PlayerSpec
from adjudicator.service.tournaments import create_tournament, start_tournament
from adjudicator.storage import persons
from adjudicator.storage.db import session_scope

SECRET = "the-players-own-secret"


@pytest.fixture
def hooked(tmp_path: Path) -> Iterator[App]:
    config = Config(
        service=ServiceConfig(data_dir=str(tmp_path / "data"), address="judge@pbem.test"),
        webhooks=WebhooksConfig(allow_hosts=("127.0.0.1",), allow_http=True),
    )
    application = make_app(config)
    application.clock = Clock()
    yield application
    application.engine.dispose()


def test_a_player_with_a_webhook_gets_the_tournaments_round_posted(hooked: App) -> None:
    app = hooked
    with receiving(Receiver()) as own:
        with session_scope(app.engine) as session:
            persons.set_webhook(session, _address("a"), url=own.url, secret=SECRET, now=app.clock())
            tournament = create_tournament(
                session,
                name="hooks",
                kind="rock-scissors-paper",
                format="swiss",
                rounds=2,
                players=[PlayerSpec(p, _address(p)) for p in "abcd"],
                setup=FLAGS,
                schedule="72h",
                gm_address="gm@example.org",
                now=app.clock(),
            )
            start_tournament(session, tournament, ctx=app.ctx, now=app.clock())
        mails = queued(app, "tournament")
        assert _address("a") in {str(m["To"]) for m in mails}  # the mail goes as ever
        deliver_webhooks(app)
        (post,) = own.posts
        assert post.headers["X-Adjudicator-Event"] == "tournament.round"
        event = post.json
        assert event["event"] == "tournament.round"
        assert event["game"]["name"] == "hooks"
        assert event["round"] == 1
        payload = event["payload"]
        assert payload["player"] == "a"
        assert payload["final"] is False
        # Swiss in seed order: a meets b, one game with each side (as his mail says).
        assert [p["opponents"] for p in payload["pairing"]] == [["b"], ["b"]]
        assert sorted(p["side"] for p in payload["pairing"]) == ["Black", "White"]
        assert all(p["game"] and not p["bye"] for p in payload["pairing"])
        assert sorted(line["player"] for line in payload["standings"]) == list("abcd")
        stamp = post.headers["X-Adjudicator-Signature"].split(",")[0].removeprefix("t=")
        assert post.headers["X-Adjudicator-Signature"] == signature(
            SECRET, post.body, at=int(stamp)
        )
        assert "@" not in post.body.decode()  # no address, nobody's
