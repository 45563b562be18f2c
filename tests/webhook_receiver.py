"""A real HTTP server on loopback that takes webhook posts, for the tests: it keeps each post
(its headers and body) and answers with the codes it is told, one per post, then 200."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from adjudicator.notify.outbox import send_due
from adjudicator.notify.webhook import WebhookChannel
from adjudicator.service.app import App


@dataclass
class Post:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    port: int = 0
    posts: list[Post] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)  # the next posts' codes, then 200
    delay: float = 0.0  # seconds each answer waits (posts stay in flight longer)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"


@contextmanager
def receiving(receiver: Receiver) -> Iterator[Receiver]:
    """Serve ``receiver`` on 127.0.0.1 (its port, or a free one) until the block ends."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if receiver.delay:
                time.sleep(receiver.delay)
            with receiver.lock:
                receiver.posts.append(Post(self.path, dict(self.headers.items()), body))
                code = receiver.answers.pop(0) if receiver.answers else 200
            try:
                self.send_response(code)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the poster went away (a service killed mid-post): the post is kept

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", receiver.port), Handler)
    receiver.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def deliver_webhooks(app: App, channel: WebhookChannel | None = None) -> int:
    """One pass of ``serve`` over the webhook lane, with the app's webhook channel (or
    ``channel``); how many posts were made."""
    if channel is None:
        (channel,) = app.ctx.channels
        assert isinstance(channel, WebhookChannel)
    poster = channel

    async def run() -> int:
        sender = poster.sender()
        try:
            return await send_due(
                app.engine,
                sender,
                bounce_address="judge@pbem.test",
                now=app.clock,
                channel="webhook",
                give_up=poster.give_up_after,
                on_refused=app.tell_refused,
            )
        finally:
            await sender.close()

    return asyncio.run(run())
