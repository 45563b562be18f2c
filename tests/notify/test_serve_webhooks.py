"""``adjudicate serve`` posts a game's webhook notices from the configuration's
``[webhooks]`` table: to a real HTTP server on loopback (allowed by ``allow_hosts``), and a
receiver that refuses for good is given up with the game master told by mail."""

from __future__ import annotations

import asyncio
from pathlib import Path

from playing import Clock, new_game, queued
from sqlmodel import Session, select
from webhook_receiver import Receiver, receiving

from adjudicator.base.config import Config, ServiceConfig, WebhooksConfig
from adjudicator.serve.runner import Service
from adjudicator.service.app import App, make_app
from adjudicator.storage.models import OutboxMail, OutboxStatus


def app_for(tmp_path: Path, allow: tuple[str, ...]) -> App:
    config = Config(
        service=ServiceConfig(data_dir=str(tmp_path), address="judge@pbem.test", workers=1),
        webhooks=WebhooksConfig(allow_hosts=allow, allow_http=True),
    )
    app = make_app(config)
    app.clock = Clock()
    return app


def webhook_rows(app: App) -> list[OutboxMail]:
    with Session(app.engine) as session:
        return list(session.exec(select(OutboxMail).where(OutboxMail.channel == "webhook")))


def test_serve_posts_the_games_webhook(tmp_path: Path) -> None:
    app = app_for(tmp_path, ("127.0.0.1",))
    try:
        with receiving(Receiver()) as receiver:
            new_game(app, ["ann", "ben", "cat"], settings={"webhook": receiver.url}, welcome=True)
            asyncio.run(Service(app).run(once=True))
            (post,) = receiver.posts
            assert post.headers["X-Adjudicator-Event"] == "round.opened"
        assert [r.status for r in webhook_rows(app)] == [OutboxStatus.SENT]
    finally:
        app.engine.dispose()


def test_serve_refuses_loopback_unless_the_operator_allows_it(tmp_path: Path) -> None:
    app = app_for(tmp_path, ())
    try:
        with receiving(Receiver()) as receiver:
            new_game(
                app,
                ["ann", "ben", "cat"],
                settings={"webhook": receiver.url},
                gm_address="gm@example.org",
                welcome=True,
            )
            asyncio.run(Service(app).run(once=True))
            assert receiver.posts == []
        (row,) = webhook_rows(app)
        assert row.status == OutboxStatus.FAILED
        assert "loopback" in (row.last_error or "")
        (told,) = queued(app, "gm:webhook_gave_up")
        assert told["To"] == "gm@example.org"
    finally:
        app.engine.dispose()
