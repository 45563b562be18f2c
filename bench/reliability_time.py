"""Time, for ``bench/reliability.py``: deadlines across daylight-saving changes and leap days in
several zones, and a service stopped across a deadline.

1. Each case is a game in a zone whose round 1 opens just before a clock change (or a 29
   February) and whose deadline falls on it. The expected instant and the wall-clock time the
   player is told are written out by hand from the zone's rules (README.md, Schedules: a
   calendar time that does not exist on the day, in the spring-forward gap, is the same time
   after the change, 02:30 becoming 03:30; one that exists twice, in the fall-back overlap,
   is the first of the two; a duration is real hours). Through the service, on the tests' clock: the
   round's deadline, the time the scheduler plans, the time a player's STATUS gives, and the
   sweeper (the scheduler's safety net) leaving the round open one second before and closing
   it at the instant.
2. ``adjudicate serve`` (a real process on a SQLite file) starts three hours after a round's
   deadline passed while it was stopped: the round closes at once, not at the next sweep, the
   game master gets the notice that it closed late, and a round whose deadline is still ahead
   stays open.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

from sqlmodel import Session, col, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service.app import App, make_app
from adjudicator.service.closing import sweep, wake_plan
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OutboxMail, Round, RoundState

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from playing import Clock

SERVICE = "judge@pbem.test"
PLAYERS = ("alice", "bob", "carol")
ADJUDICATE = Path(sys.executable).parent / "adjudicate"


def _utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


@dataclass(frozen=True)
class Case:
    what: str
    zone: str
    schedule: str
    opened: datetime
    deadline: datetime  # by hand, from the zone's rules
    told: str  # the deadline as the player reads it, by hand


CASES = (
    Case(
        "London, spring forward: 01:30 does not exist",
        "Europe/London",
        "daily 01:30",
        _utc(2027, 3, 27, 12),
        _utc(2027, 3, 28, 1, 30),
        "Sunday 28 March 2027, 02:30 BST",
    ),
    Case(
        "London, fall back: 01:30 twice, the first",
        "Europe/London",
        "daily 01:30",
        _utc(2027, 10, 30, 12),
        _utc(2027, 10, 31, 0, 30),
        "Sunday 31 October 2027, 01:30 BST",
    ),
    Case(
        "London, 24 h across spring forward",
        "Europe/London",
        "24h",
        _utc(2027, 3, 27, 12),
        _utc(2027, 3, 28, 12),
        "Sunday 28 March 2027, 13:00 BST",
    ),
    Case(
        "London, 29 February",
        "Europe/London",
        "tue 21:00",
        _utc(2028, 2, 26, 12),
        _utc(2028, 2, 29, 21),
        "Tuesday 29 February 2028, 21:00 GMT",
    ),
    Case(
        "New York, spring forward: 02:30 does not exist",
        "America/New_York",
        "daily 02:30",
        _utc(2027, 3, 13, 17),
        _utc(2027, 3, 14, 7, 30),
        "Sunday 14 March 2027, 03:30 EDT",
    ),
    Case(
        "New York, fall back: 01:30 twice, the first",
        "America/New_York",
        "daily 01:30",
        _utc(2027, 11, 6, 17),
        _utc(2027, 11, 7, 5, 30),
        "Sunday 07 November 2027, 01:30 EDT",
    ),
    Case(
        "New York, 29 February (1 March in UTC)",
        "America/New_York",
        "tue 21:00",
        _utc(2028, 2, 26, 12),
        _utc(2028, 3, 1, 2),
        "Tuesday 29 February 2028, 21:00 EST",
    ),
    Case(
        "Lord Howe, half-hour spring forward: 02:15 does not exist",
        "Australia/Lord_Howe",
        "daily 02:15",
        _utc(2027, 10, 2, 1),
        _utc(2027, 10, 2, 15, 45),
        "Sunday 03 October 2027, 02:45 +11",
    ),
    Case(
        "Lord Howe, half-hour fall back: 01:45 twice, the first",
        "Australia/Lord_Howe",
        "daily 01:45",
        _utc(2027, 4, 3, 1),
        _utc(2027, 4, 3, 14, 45),
        "Sunday 04 April 2027, 01:45 +11",
    ),
    Case(
        "Auckland, spring forward in September: 02:30 does not exist",
        "Pacific/Auckland",
        "daily 02:30",
        _utc(2027, 9, 25),
        _utc(2027, 9, 25, 14, 30),
        "Sunday 26 September 2027, 03:30 NZDT",
    ),
    Case(
        "Kolkata (+05:30, no DST), 29 February",
        "Asia/Kolkata",
        "daily 21:00",
        _utc(2028, 2, 29, 6),
        _utc(2028, 2, 29, 15, 30),
        "Tuesday 29 February 2028, 21:00 IST",
    ),
    Case(
        "Kolkata, 72 h across 29 February",
        "Asia/Kolkata",
        "72h",
        _utc(2028, 2, 27, 12),
        _utc(2028, 3, 1, 12),
        "Wednesday 01 March 2028, 17:30 IST",
    ),
)


def check_case(app: App, clock: Clock, case: Case, *, name: str) -> list[str]:
    """What went wrong with one case (game ``name``): empty when the deadline is right
    everywhere. The clock only moves forward: cases come in the order they open."""
    clock.now = case.opened
    wrong: list[str] = []
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name=name,
            kind="giveaway",
            schedule=case.schedule,
            time_zone=case.zone,
            settings={"early_close": False},
            players=[PlayerSpec(p, f"{p}@example.org") for p in PLAYERS],
            options={},
            now=clock(),
        )
        round_ = start_game(session, game, now=clock())
        round_id = round_.id
        if round_.deadline != case.deadline:
            wrong.append(f"deadline {round_.deadline}, not {case.deadline}")
        planned = [t for r, times in wake_plan(session) if r == round_id for t in times]
        if case.deadline not in planned:
            wrong.append(f"planned {planned}, not {case.deadline}")
    assert round_id is not None
    told = _status_deadline(app, name, credentials[0].secret)
    if case.told not in told:
        wrong.append(f"told {told!r}, not {case.told!r}")
    clock.now = case.deadline - timedelta(seconds=1)
    sweep(app.engine, ctx=app.ctx, now=clock())
    if _state(app, round_id) != RoundState.OPEN:
        wrong.append("closed before its deadline")
    clock.now = case.deadline
    sweep(app.engine, ctx=app.ctx, now=clock())
    if _state(app, round_id) == RoundState.OPEN:
        wrong.append("still open at its deadline")
    return wrong


def _status_deadline(app: App, game: str, secret: str) -> str:
    """The Deadline line of the answer to a player's STATUS about ``game``."""
    message = EmailMessage()
    message["From"], message["To"] = "alice@example.org", SERVICE
    message["Subject"] = f"[{game}] status?"
    message["Message-ID"] = f"<status-{game}@example.org>"
    message["Date"] = format_datetime(app.clock())
    message.set_content(f"PASSWORD {secret}\nSTATUS\n")
    app.ingest(message.as_bytes(), channel="bench")
    with Session(app.engine) as session:
        answer = session.exec(
            select(OutboxMail)
            .where(OutboxMail.kind == "answer")
            .order_by(col(OutboxMail.id).desc())
        ).first()
    if answer is None:
        return "no answer"
    message = message_from_bytes(answer.message, policy=policy.default)
    body = message.get_body(preferencelist=("plain",))
    text = str(body.get_content()) if body is not None else ""
    return next((line.strip() for line in text.splitlines() if "Deadline" in line), text[:200])


def _state(app: App, round_id: int) -> RoundState | None:
    with Session(app.engine) as session:
        round_ = session.get(Round, round_id)
        return None if round_ is None else RoundState(round_.state)


def deadlines() -> dict[str, object]:
    folder = Path(tempfile.mkdtemp(prefix="reliability-time-"))
    clock = Clock()
    app = make_app(Config(service=ServiceConfig(data_dir=str(folder), address=SERVICE)))
    app.clock = clock
    try:
        cases = sorted(CASES, key=lambda case: case.opened)
        found = {
            case.what: check_case(app, clock, case, name=f"t{n}") for n, case in enumerate(cases)
        }
    finally:
        app.engine.dispose()
        shutil.rmtree(folder, ignore_errors=True)
    wrong = {what: problems for what, problems in found.items() if problems}
    return {
        "cases": len(CASES),
        "zones": len({case.zone for case in CASES}),
        "wrong": len(wrong),
        "wrong_cases": wrong,
    }


# ---------------------------------------------------------------------------------------------


def stopped_service(*, late_hours: float = 3.0, wait_seconds: float = 300.0) -> dict[str, object]:
    """``serve`` started ``late_hours`` after the deadline of game ``late`` passed (the real
    clock: a real process), with game ``ahead``'s deadline an hour away; until ``late`` is
    closed and the game master's notice written (at most ``wait_seconds``), then SIGTERM."""
    folder = Path(tempfile.mkdtemp(prefix="reliability-stopped-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ADJUDICATOR_", "NOTIFY_"))}
    env |= {"ADJUDICATOR_DATA_DIR": str(folder), "ADJUDICATOR_ADDRESS": SERVICE}
    app = make_app(Config(service=ServiceConfig(data_dir=str(folder), address=SERVICE)))
    now = datetime.now(UTC)
    with session_scope(app.engine) as session:
        for name, opened in (
            ("late", now - timedelta(hours=72 + late_hours)),
            ("ahead", now - timedelta(hours=71)),
        ):
            game, _ = create_game(
                session,
                name=name,
                kind="giveaway",
                schedule="72h",
                settings={"early_close": False},
                players=[PlayerSpec(p, f"{p}@example.org") for p in PLAYERS],
                options={},
                now=opened,
                gm_address="gm@example.org",
            )
            start_game(session, game, now=opened)
    app.engine.dispose()
    database, outbox = folder / "adjudicator.db", folder / "outbox-maildir" / "new"
    began = time.monotonic()
    log = (folder / "serve.log").open("wb")
    process = subprocess.Popen(
        [str(ADJUDICATE), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=log
    )
    closed_after, notice = None, None
    try:
        while time.monotonic() - began < wait_seconds and notice is None:
            if closed_after is None and _closed(database, "late"):
                closed_after = round(time.monotonic() - began, 1)
            notice = _gm_notice(outbox)
            time.sleep(0.2)
        ahead_open = not _closed(database, "ahead")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            stopped = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            stopped = process.wait()
        log.close()
        serving = _serving_seconds((folder / "serve.log").read_text(errors="replace"))
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "late_hours": late_hours,
        "closed_seconds_after_start": closed_after,
        "closed_seconds_after_serving": serving,  # the process's own start-up left out
        "gm_notice_subject": notice,
        "round_ahead_still_open": ahead_open,
        "serve_exit_on_sigterm": stopped,
    }


def _serving_seconds(log: str) -> float | None:
    """From the log line saying the service serves to the one saying round 1 of ``late`` was
    adjudicated: how soon a deadline missed while stopped is taken up once the service runs."""
    stamps: dict[str, str] = {}
    for line in log.splitlines():
        if "adjudicator serving" in line:
            stamps.setdefault("serving", line.split()[0])
        elif "round.adjudicated" in line and "game=late" in line:
            stamps.setdefault("closed", line.split()[0])
    if len(stamps) < 2:
        return None
    began, closed = (datetime.fromisoformat(stamps[k]) for k in ("serving", "closed"))
    return round((closed - began).total_seconds(), 1)


def _closed(database: Path, game: str) -> bool:
    with sqlite3.connect(database, timeout=60) as connection:
        row = connection.execute(
            "SELECT round.adjudicated_at FROM round JOIN game ON game.id = round.game_id "
            "WHERE game.name = ? AND round.number = 1",
            (game,),
        ).fetchone()
    return row is not None and row[0] is not None


def _gm_notice(outbox: Path) -> str | None:
    """The subject of the mail to the game master that names a late round, if one is out."""
    if not outbox.exists():
        return None
    for path in outbox.iterdir():
        message = message_from_bytes(path.read_bytes(), policy=policy.default)
        subject = str(message["Subject"] or "")
        if str(message["To"]) == "gm@example.org" and " late" in subject:
            return subject
    return None
