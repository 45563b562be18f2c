"""Webhooks: how fast the service posts to a receiver, and how soon after a round closes its
result reaches a webhook, beside the same result by mail.

Run: .venv/bin/python bench/webhooks.py [--posts 400] [--games 30]

Both receivers are real servers on loopback, allowed by the ``[webhooks]`` table: an HTTP
server (``http.server`` in a thread) for the webhook and an SMTP server (aiosmtpd) for the mail.

- ``posts_per_second``: ``--posts`` webhook notices waiting in the outbox's webhook lane,
  delivered by one pass of its sender (each resolved, checked, pinned, signed, posted, its
  answer read, recorded).
- ``close_to_post``: ``--games`` Giveaway games of 3 players with a webhook, every order in by
  mail; each game's round is closed, its results queued (``App.report``), then both lanes are
  drained at once, as ``serve`` does. The delay from the start of the close to the arrival of
  the game's ``round.result`` post at the receiver, and to the arrival of the first of its
  result mails at the SMTP server: median and p99 in milliseconds.

The last line is a JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime
from email import message_from_bytes
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from sqlmodel import select

from adjudicator.base.config import Config, ServiceConfig, SmtpConfig, WebhooksConfig
from adjudicator.core.game import Setup
from adjudicator.notify.notice import Notice
from adjudicator.notify.outbox import send_due
from adjudicator.notify.queue import queue_notice
from adjudicator.notify.webhook import WebhookChannel
from adjudicator.serve.runner import make_senders
from adjudicator.service.app import App, make_app
from adjudicator.service.closing import close_and_adjudicate
from adjudicator.service.creation import NewGame, set_up_game
from adjudicator.service.games import PlayerSpec, find_game
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OrderSet, Seat

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
TRIO = ("alice", "bob", "carol")


class Arrivals:
    """When each thing arrived (``time.perf_counter``), by a name."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.first: dict[str, float] = {}
        self.count = 0

    def note(self, name: str) -> None:
        with self.lock:
            self.count += 1
            self.first.setdefault(name, time.perf_counter())


def http_receiver(arrivals: Arrivals) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            event = json.loads(body)
            arrivals.note(f"{event['game']['name']}:{event['event']}")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class SmtpHandler:
    def __init__(self, arrivals: Arrivals) -> None:
        self.arrivals = arrivals

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        subject = str(message_from_bytes(envelope.content)["Subject"] or "")
        game = subject.split("]", maxsplit=1)[0].lstrip("[")
        self.arrivals.note(f"{game}:mail")
        return "250 OK"


def drain(app: App, channel: WebhookChannel) -> int:
    """One pass over each lane at once, mail and webhook, as ``serve`` drains them."""

    async def run() -> int:
        mail, hook = make_senders(app), channel.sender()
        try:
            sent = await asyncio.gather(
                send_due(app.engine, mail, bounce_address="judge@pbem.test", now=lambda: NOW),
                send_due(
                    app.engine,
                    hook,
                    bounce_address="judge@pbem.test",
                    now=lambda: NOW,
                    channel="webhook",
                    give_up=channel.give_up_after,
                ),
            )
            return sum(sent)
        finally:
            await mail.close()
            await hook.close()

    return asyncio.run(run())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def throughput(app: App, channel: WebhookChannel, url: str, posts: int) -> float:
    """Posts per second: one pass over a lane of ``posts`` notices."""
    with session_scope(app.engine) as session:
        for n in range(posts):
            event = {
                "event": "round.opened",
                "game": {"name": f"load{n}", "kind": "giveaway", "time_zone": "UTC"},
                "round": 1,
                "time": NOW.isoformat(),
                "payload": {"deadline": None, "deadline_local": None},
            }
            notice = Notice(
                "webhook",
                url,
                {"event": event, "format": "json", "secret": "bench-secret"},
                key=f"bench:{n}",
                channel="webhook",
            )
            queue_notice(session, notice, ctx=app.ctx, now=NOW)
    started = time.perf_counter()
    sent = drain(app, channel)
    spent = time.perf_counter() - started
    assert sent == posts, f"{sent} of {posts} posted"
    return posts / spent


def set_up_games(app: App, url: str, games: int) -> None:
    """``games`` games with a webhook, every order of round 1 stored."""
    for g in range(games):
        new = NewGame(
            name=f"wh{g}",
            kind="giveaway",
            players=[PlayerSpec(p, f"{p}@example.org") for p in TRIO],
            schedule="72h",
            settings={"webhook": url, "webhook_secret": "bench-secret", "reminders": []},
            setup=Setup(),
        )
        with session_scope(app.engine) as session:
            set_up_game(session, new, ctx=app.ctx, now=NOW, start=True, welcome=False)
            game = find_game(session, f"wh{g}")
            round_ = open_round_of(session, game)
            assert round_ is not None
            assert round_.id is not None
            for i, handle in enumerate(TRIO):
                seat = session.exec(
                    select(Seat).where(Seat.game_id == game.id, Seat.handle == handle)
                ).one()
                assert seat.id is not None
                lines = [f"GIVE 3 TO {TRIO[(i + 1) % 3]}"]
                session.add(
                    OrderSet(
                        round_id=round_.id,
                        seat_id=seat.id,
                        lines=lines,
                        receipt="r",
                        created_at=NOW,
                    )
                )


def close_to_post(
    app: App, channel: WebhookChannel, arrivals: Arrivals, games: int
) -> tuple[list[float], list[float]]:
    """Per game: seconds from the start of its round's close to its result's webhook post,
    and to its first result mail, both lanes drained at once."""
    hook_delays: list[float] = []
    mail_delays: list[float] = []
    for g in range(games):
        name = f"wh{g}"
        started = time.perf_counter()
        with session_scope(app.engine) as session:
            round_ = open_round_of(session, find_game(session, name))
            assert round_ is not None
            assert round_.id is not None
            close_and_adjudicate(session, round_.id, ctx=app.ctx, now=NOW, force=True)
        app.report()
        drain(app, channel)
        hook_delays.append(arrivals.first[f"{name}:round.result"] - started)
        mail_delays.append(arrivals.first[f"{name}:mail"] - started)
    return hook_delays, mail_delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--posts", type=int, default=400)
    parser.add_argument("--games", type=int, default=30)
    args = parser.parse_args()
    arrivals = Arrivals()
    receiver = http_receiver(arrivals)
    smtp = Controller(SmtpHandler(arrivals), hostname="127.0.0.1", port=free_port())
    smtp.start()
    url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
    figures: dict[str, Any] = {"posts": args.posts, "games": args.games}
    with tempfile.TemporaryDirectory() as folder:
        config = Config(
            service=ServiceConfig(data_dir=str(Path(folder) / "data"), address="judge@pbem.test"),
            smtp=SmtpConfig(host="127.0.0.1", port=smtp.port, connections=2),
            webhooks=WebhooksConfig(
                allow_hosts=("127.0.0.1",), allow_http=True, per_host_per_minute=0
            ),
        )
        app = make_app(config)
        app.clock = lambda: NOW
        (channel,) = app.ctx.channels
        assert isinstance(channel, WebhookChannel)
        figures["posts_per_second"] = round(throughput(app, channel, url, args.posts), 1)
        print(f"{args.posts} posts: {figures['posts_per_second']} posts/s")
        set_up_games(app, url, args.games)
        drain(app, channel)  # the round-opened posts and the welcome news, untimed
        hook_delays, mail_delays = close_to_post(app, channel, arrivals, args.games)
        for what, delays in (("webhook", hook_delays), ("mail", mail_delays)):
            figures[f"close_to_{what}_median_ms"] = round(1000 * statistics.median(delays), 1)
            figures[f"close_to_{what}_p99_ms"] = round(1000 * percentile(delays, 0.99), 1)
            print(
                f"close to {what:7}: median {figures[f'close_to_{what}_median_ms']} ms, "
                f"p99 {figures[f'close_to_{what}_p99_ms']} ms over {args.games} games"
            )
        app.engine.dispose()
    smtp.stop()
    receiver.shutdown()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
