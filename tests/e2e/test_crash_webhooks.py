"""kill -9 of ``adjudicate serve`` at random moments while rounds close and their webhook posts
go out, then a restart: no delivery is lost (issue 42, section 1).

The service runs as a real process (``adjudicate serve``, as installed) with ``[webhooks]``
allowing ``127.0.0.1`` over plain http, against a real SQLite file, a real SMTP receiver and a
real HTTP receiver on loopback that answers slowly (posts are in flight when the kills fall).
Several games whose first round's deadline has passed are closed by the service; each game's
webhook is told each round's result and what follows it. No hook in the service: the kills
fall wherever the process happens to be. At the end:

* every webhook notice the outbox holds was delivered, and reached the receiver at least once;
* every closed round's ``round.result`` arrived, and each game's next step (``round.opened``,
  ``turn`` or ``game.over``);
* a delivery id is one event: every copy of it carries the same body and event header, and no
  two delivery ids carry the same event of the same game and round (a copy only by a retry).
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from mailservers import SmtpSink
from sqlalchemy.engine import Engine
from sqlmodel import Session, select
from webhook_receiver import Receiver, receiving

from adjudicator.base.config import load_config
from adjudicator.service.app import make_app
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, OutboxMail, OutboxStatus, Round, RoundState

pytestmark = pytest.mark.slow

GAMES = 8
KILLS = 8
BOUND = 180  # seconds: a bound on a wait, not a timing claim (a loaded machine is slow)
EVENT = "X-Adjudicator-Event"
DELIVERY = "X-Adjudicator-Delivery"


def write_config(path: Path, *, data: Path, sink: SmtpSink) -> Path:
    path.write_text(
        f'[service]\ndata_dir = "{data}"\naddress = "judge@pbem.test"\n'
        f'[smtp]\nhost = "{sink.host}"\nport = {sink.port}\n'
        '[webhooks]\nallow_hosts = ["127.0.0.1"]\nallow_http = true\nper_host_per_minute = 0\n',
        encoding="utf-8",
    )
    return path


def start(config: Path, log: Path) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-c",
        "from adjudicator.cli.main import main; main()",
        "--config",
        str(config),
        "serve",
    ]
    with log.open("ab") as output:
        return subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)


def webhook_rows(engine: Engine) -> list[OutboxMail]:
    with Session(engine) as session:
        return list(session.exec(select(OutboxMail).where(OutboxMail.channel == "webhook")))


def closed_rounds(engine: Engine) -> dict[str, list[int]]:
    """The rounds each game has closed and reported, by game name."""
    found: dict[str, list[int]] = defaultdict(list)
    with Session(engine) as session:
        for game, round_ in session.exec(
            select(Game, Round).where(Round.game_id == Game.id)  # type: ignore[arg-type]
        ):
            if round_.state == RoundState.REPORTED:
                found[game.name].append(round_.number)
    return found


def done(engine: Engine) -> bool:
    rows = webhook_rows(engine)
    closed = closed_rounds(engine)
    return len(closed) == GAMES and bool(rows) and all(r.status == OutboxStatus.SENT for r in rows)


def seed(config: Path, url: str) -> Engine:
    """The games, each with its webhook at ``url``, round 1 opened two hours ago with a
    deadline of an hour: due to close as soon as the service starts. The engine."""
    app = make_app(load_config(config))
    opened = datetime.now(UTC) - timedelta(hours=2)
    with session_scope(app.engine) as session:
        for number in range(GAMES):
            game, _ = create_game(
                session,
                name=f"hook{number}",
                kind="giveaway",
                players=[PlayerSpec(p, f"{p}{number}@example.org") for p in ("ann", "ben", "cat")],
                options={},
                schedule="1h",
                settings={"reminders": [], "webhook": url, "webhook_secret": "s3"},
                now=opened,
            )
            start_game(session, game, now=opened)
    return app.engine


def kill_at_random(config: Path, log: Path, engine: Engine, receiver: Receiver) -> int:
    """Start ``serve`` and SIGKILL it at a random moment, :data:`KILLS` times; how many kills
    fell before the work was done."""
    rng = random.Random(20261128)
    interrupted = 0
    for kill in range(KILLS):
        before = len(receiver.posts)
        process = start(config, log)
        if kill % 2 == 0:
            time.sleep(rng.uniform(0.3, 3.0))  # anywhere: start-up, closing, posting
        else:  # a random moment after a post arrived
            deadline = time.monotonic() + BOUND
            while len(receiver.posts) == before and time.monotonic() < deadline:
                assert process.poll() is None, log.read_text()[-3000:]
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.2))
        process.send_signal(signal.SIGKILL)
        process.wait()
        interrupted += not done(engine)
    return interrupted


def finish(config: Path, log: Path, engine: Engine) -> None:
    """A last start, left to finish the work (a bounded poll), then stopped."""
    process = start(config, log)
    try:
        deadline = time.monotonic() + BOUND
        while not done(engine):
            assert process.poll() is None, f"the service exited:\n{log.read_text()[-3000:]}"
            if time.monotonic() > deadline:
                pytest.fail(f"not done in {BOUND} s:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


def test_kill_9_at_random_moments_loses_no_webhook_delivery(
    tmp_path: Path, smtp_sink: SmtpSink
) -> None:
    config = write_config(tmp_path / "adjudicator.toml", data=tmp_path / "data", sink=smtp_sink)
    log = tmp_path / "service.log"
    with receiving(Receiver(delay=0.05)) as receiver:
        engine = seed(config, receiver.url)
        interrupted = kill_at_random(config, log, engine, receiver)
        finish(config, log, engine)
        posts = list(receiver.posts)

    rows = webhook_rows(engine)
    closed = closed_rounds(engine)
    engine.dispose()
    assert interrupted, "no kill interrupted any work: the test proved nothing"
    # A delivery id is one event: every copy the same body and event header.
    copies: dict[str, set[tuple[str, bytes]]] = defaultdict(set)
    for post in posts:
        copies[post.headers[DELIVERY]].add((post.headers[EVENT], post.body))
    assert all(len(bodies) == 1 for bodies in copies.values()), "a delivery id with two bodies"
    events = {delivery: json.loads(next(iter(bodies))[1]) for delivery, bodies in copies.items()}
    # No event told twice under two ids: a copy comes only from a retry of one delivery.
    told = [(e["game"]["name"], e["event"], e["round"]) for e in events.values()]
    assert len(told) == len(set(told)), "an event was queued twice"

    # Nothing lost: every notice the outbox holds was delivered and reached the receiver.
    assert {r.status for r in rows} == {OutboxStatus.SENT}
    received = {post.headers[DELIVERY] for post in posts}
    queued = {json.loads(r.message)["delivery"] for r in rows}
    assert queued == received

    # And the outbox holds every event the closed rounds mean.
    assert sorted(closed) == [f"hook{n}" for n in range(GAMES)]
    for name, numbers in closed.items():
        for number in numbers:
            assert (name, "round.result", number) in told
        last = max(numbers)
        follows = {(name, "round.opened", last + 1), (name, "turn", last + 1)}
        assert follows & set(told) or (name, "game.over", last) in told
    repeats = len(posts) - len(received)
    print(f"{len(received)} deliveries, {repeats} copies, {interrupted} kills interrupted work")
