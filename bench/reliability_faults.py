"""Reliability under crashes and outages: the parts of ``bench/reliability.py`` that kill the
service and take its servers away (issue 16).

3. Kills: ``adjudicate serve`` (a real process on a SQLite file, Maildir in, the local outbox
   Maildir out) started and killed with SIGKILL ``kills`` times at random moments (while it
   starts, or up to ``window`` seconds into serving: long enough for due rounds to close)
   while ``mails`` order mails for ``games`` Giveaway games arrive in waves and ``rounds``
   rounds come due: before each start, the deadlines of the next rounds in the plan
   are moved to a random moment of that life (as ``adjudicate game extend`` would), so rounds
   close while the service is killed, in its worker processes or by its start's catch-up. Then
   ``serve --once`` finishes. Figures: orders lost or applied twice; rounds skipped (due and
   not closed, or a gap in a game's numbers) or adjudicated twice (a second result, or a
   stored result that differs from re-adjudicating the round's stored orders); result mails
   and confirmations missing or sent twice (at most one per kill during sending is expected);
   worker processes left running after their service was killed.

4. Outages, each against the real server taken away while ``serve`` runs:

   * IMAP: a real Dovecot stopped for ``imap_seconds`` and started again while ``serve`` reads
     its folder with IDLE; order mails are in the folder before and appended after;
   * SMTP: the aiosmtpd receiver stopped for ``smtp_seconds`` while answers are due; the outbox
     retries with backoff;
   * PostgreSQL: a private cluster (initdb and pg_ctl on a free port, never the machine's shared
     server) stopped for ``pg_seconds`` and started again while order mails arrive, and
     ``adjudicate receive`` piped a mail meanwhile (it must exit 0: it needs the Maildir only,
     and the service takes the mail once the database is back);
   * disk full: the SQLite file on a small tmpfs filled to the last byte while order mails
     arrive and ``adjudicate receive`` is piped one (0 again: the Maildir is on another disk);
     then space is freed (root only).

   Each: did ``serve`` stay up, did it say so in its log and count it in its metrics, how long
   after the server came back until every mail was taken, and was anything lost.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

from deadline_burst import children
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.mail.maildir import deliver
from adjudicator.service.app import make_app
from adjudicator.service.games import Credentials, PlayerSpec, create_game
from adjudicator.service.rerun import rerun_round
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import aware, make_engine, session_scope
from adjudicator.storage.models import (
    Game,
    OrderSet,
    OutboxMail,
    OutboxStatus,
    Round,
    RoundResult,
    RoundState,
    Seat,
    Submission,
    SubmissionStatus,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from mailservers import free_port

SERVICE = "judge@pbem.test"
ADJUDICATE = Path(sys.executable).parent / "adjudicate"


def order_mail(cred: Credentials, game: str, other: str, number: int) -> bytes:
    """An order mail of a seat, dated now (orders dated before their round are not applied)."""
    message = EmailMessage()
    message["From"] = cred.address
    message["To"] = SERVICE
    message["Subject"] = f"[{game}] orders"
    message["Message-ID"] = f"<f{number}-{random.getrandbits(48)}@example.org>"
    message["Date"] = format_datetime(datetime.now(UTC))
    message.set_content(f"PASSWORD {cred.secret}\nGIVE 3 TO {other}\n")
    return message.as_bytes()


def service_env(folder: Path, **extra: str) -> dict[str, str]:
    """The environment of an ``adjudicate`` process on ``folder``, nothing inherited."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ADJUDICATOR_", "NOTIFY_"))}
    return env | {"ADJUDICATOR_DATA_DIR": str(folder), "ADJUDICATOR_ADDRESS": SERVICE, **extra}


Seats = list[tuple[str, Credentials, str]]
"""(game, a seat's credentials, the handle it gives to)"""


def seed_games(config: Config, games: int, prefix: str) -> Seats:
    """``games`` running Giveaway games of three, deadlines 72 h away, no reminders, no early
    close: a round closes only when the harness makes it due."""
    app = make_app(config)
    seats: Seats = []
    try:
        with session_scope(app.engine) as session:
            for g in range(games):
                name = f"{prefix}{g}"
                handles = [f"p{g}x{i}" for i in range(3)]
                game, credentials = create_game(
                    session,
                    name=name,
                    kind="giveaway",
                    schedule="72h",
                    settings={"early_close": False, "reminders": []},
                    players=[PlayerSpec(h, f"{h}@example.org") for h in handles],
                    options={},
                    now=datetime.now(UTC),
                )
                start_game(session, game, now=datetime.now(UTC))
                seats += [(name, c, handles[(i + 1) % 3]) for i, c in enumerate(credentials)]
    finally:
        app.engine.dispose()
    return seats


# ---------------------------------------------------------------------------------------------
# 3. Kills


class Lives:
    """``adjudicate serve`` started and killed again and again on one data folder, its log
    appended to ``serve.log``."""

    def __init__(self, folder: Path, rng: random.Random, window: float) -> None:
        self.env = service_env(folder)
        self.window = window  # seconds of serving a life may last
        self.log_path = folder / "serve.log"
        self.rng = rng
        self.startups = [2.0]  # seconds from start to serving, as seen so far
        self.orphans: list[int] = []  # worker processes of killed services
        self.killed = 0

    @property
    def startup(self) -> float:
        return statistics.median(self.startups)

    def live_and_die(self) -> None:
        """Start ``serve`` and SIGKILL it at a random moment: while it starts (one time in
        five), or in its first ``window`` seconds of serving."""
        started = time.monotonic()
        ready = self.log_path.read_bytes().count(READY) if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            process = subprocess.Popen(
                [str(ADJUDICATE), "serve"], env=self.env, stdout=log, stderr=log
            )
        if self.rng.random() < 0.2:
            time.sleep(self.rng.uniform(0.0, self.startup))
        else:
            wait_until(lambda: self.log_path.read_bytes().count(READY) > ready, timeout=300)
            self.startups.append(time.monotonic() - started)
            time.sleep(self.rng.uniform(0.0, self.window))
        # Its processes, and theirs: the workers are forked by its fork server.
        orphans = children(process.pid)
        process.send_signal(signal.SIGKILL)
        process.wait()
        self.orphans += orphans
        self.killed += 1

    def once(self) -> int:
        """``serve --once``: its exit code."""
        with self.log_path.open("ab") as log:
            done = subprocess.run(
                [str(ADJUDICATE), "serve", "--once"],
                env=self.env,
                stdout=log,
                stderr=log,
                check=False,
            )
        return done.returncode


def kills(  # noqa: PLR0917 (the harness's own figures, named at its one caller)
    count: int, mails: int, games: int, rounds: int, seed: int, window: float = 10.0
) -> dict[str, object]:
    """See the module's docstring (3)."""
    rng = random.Random(seed)
    folder = Path(tempfile.mkdtemp(prefix="reliability-kills-"))
    config = Config(service=ServiceConfig(data_dir=str(folder), address=SERVICE))
    seats = seed_games(config, games, "k")
    engine = make_engine(config.database_url)
    # Closing i is of game i % games: the first pass closes every game's round 1, the next
    # its round 2, and so on; a game whose previous round is still open waits for a later life.
    plan = [f"k{i % games}" for i in range(rounds)]
    per_life = [rounds * (i + 1) // count - rounds * i // count for i in range(count)]
    waves = [list(range(mails))[i :: count + 1] for i in range(count + 1)]
    made_due: Counter[str] = Counter()
    delivered: dict[str, tuple[datetime, str]] = {}  # Message-ID: when it came, for which game
    lives = Lives(folder, rng, window)
    began = time.perf_counter()
    try:
        for life in range(count):
            for n in waves[life]:
                _arrive(config.maildir_path, seats, n, delivered)
            # Deadlines at random moments of the life to come: during its start (closed by the
            # start's catch-up) or while it serves.
            due, plan = plan[: per_life[life]], plan[per_life[life] :]
            within = lives.startup + window / 2
            plan = _make_due(engine, due, made_due, rng=rng, within=within) + plan
            lives.live_and_die()
        for n in waves[-1]:
            _arrive(config.maildir_path, seats, n, delivered)
        closed_during_kills = _closed(engine)
        # What the kills left unplanned (a game whose round stayed open) comes due now.
        for _ in range(rounds // games + 2):
            plan = _make_due(engine, plan, made_due, rng=rng, within=0.0)
            if not plan:
                break
            lives.once()
        last = lives.once()
        lingering = _still_running(lives.orphans, timeout=30.0)
        figures = _kill_outcomes(engine, folder, delivered)
        figures |= _round_outcomes(engine, folder, made_due)
        figures["rounds_closed_during_kills"] = closed_during_kills
        figures["final_run_exit"] = last
        figures["workers_left_running"] = len(lingering)
    finally:
        engine.dispose()
        for pid in _still_running(lives.orphans, timeout=0.0):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "kills": lives.killed,
        "mails": mails,
        "games": games,
        **figures,
        "seconds": round(time.perf_counter() - began, 1),
        "median_seconds_to_serving": round(lives.startup, 1),
    }


READY = b"deadlines planned; serving"
"""What ``serve`` logs once it serves: it has taken the mail that came while it was down and
planned the deadlines (rounds that came due meanwhile close now)."""


def _make_due(
    engine: Engine, names: list[str], made_due: Counter[str], *, rng: random.Random, within: float
) -> list[str]:
    """Move the deadline of each named game's open round to a random moment of the next
    ``within`` seconds; the names whose round before is not closed yet (left for later)."""
    later: list[str] = []
    with session_scope(engine) as session:
        for name in names:
            game = session.exec(select(Game).where(Game.name == name)).one()
            open_round = session.exec(
                select(Round).where(Round.game_id == game.id, Round.state == RoundState.OPEN)
            ).one_or_none()
            if open_round is None or open_round.number != made_due[name] + 1:
                later.append(name)  # its last round made due is not closed yet
                continue
            deadline = datetime.now(UTC) + timedelta(seconds=rng.uniform(0.0, within))
            session.execute(
                update(Round).where(col(Round.id) == open_round.id).values(deadline=deadline)
            )
            made_due[name] += 1
    return later


def _closed(engine: Engine) -> int:
    with Session(engine) as session:
        return len(session.exec(select(Round.id).where(Round.state != RoundState.OPEN)).all())


def _still_running(pids: list[int], *, timeout: float) -> list[int]:
    """Those of ``pids`` still running after up to ``timeout`` seconds (zombies excluded)."""
    deadline = time.monotonic() + timeout
    while True:
        alive = [pid for pid in pids if _running(pid)]
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.2)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _delivered(folder: Path) -> Counter[str]:
    """How many times each Message-ID reached the local outbox Maildir."""
    delivered: Counter[str] = Counter()
    outbox = folder / "outbox-maildir" / "new"
    if outbox.exists():
        for path in outbox.iterdir():
            delivered[str(message_from_bytes(path.read_bytes())["Message-ID"])] += 1
    return delivered


def _arrive(
    maildir: Path, seats: Seats, number: int, delivered: dict[str, tuple[datetime, str]]
) -> None:
    game, cred, other = seats[number % len(seats)]
    raw = order_mail(cred, game, other, number)
    delivered[str(message_from_bytes(raw)["Message-ID"])] = (datetime.now(UTC), game)
    deliver(maildir, raw)


def _kill_outcomes(
    engine: Engine, folder: Path, delivered: dict[str, tuple[datetime, str]]
) -> dict[str, object]:
    """Every mail must end accepted with one order set, refused as late because it reached
    the Maildir after its round's deadline, or refused by the game's rules with the reason (its
    ``GIVE 3`` holds in round 1 only: once a round has closed during the kills, a player holds
    another amount, and the rejection names it); one refused as late though it came in time,
    or neither applied nor refused, is an order lost."""
    with Session(engine) as session:
        mails = session.exec(
            select(Submission.status, Submission.message_id, Submission.note)
        ).all()
        games = {g.name: g.id for g in session.exec(select(Game))}
        per_mail = Counter(
            s for s in session.exec(select(OrderSet.submission_id)).all() if s is not None
        )
        rounds = session.exec(select(Round)).all()
        confirmations = session.exec(
            select(OutboxMail.message).where(OutboxMail.kind == "confirmation")
        ).all()
    statuses = Counter(status for status, _, _ in mails)
    refused = [
        (delivered[str(m)], note or "") for s, m, note in mails if s != SubmissionStatus.ACCEPTED
    ]
    notes = Counter(note.split(" for game")[0].split(" of game")[0] for _, note in refused)
    late = [came for came, note in refused if note.startswith("late")]
    in_time = sum(1 for at, game in late if _round_took_orders(rounds, games[game], at))
    by_rules = sum(1 for _, note in refused if note.startswith("problems in orders"))
    ids = [str(message_from_bytes(m)["Message-ID"]) for m in confirmations]
    sent = _delivered(folder)
    return {
        "stored": len(mails),
        "statuses": {str(k): v for k, v in statuses.items()},
        "refused_why": dict(notes),
        "refused_late_rightly": len(late) - in_time,
        "refused_late_though_in_time": in_time,
        "refused_by_the_rules": by_rules,
        "orders_lost": len(delivered) - len(per_mail) - (len(late) - in_time) - by_rules,
        "orders_applied_twice": sum(1 for n in per_mail.values() if n > 1),
        "confirmations_queued": len(confirmations),
        "confirmations_missing": sum(1 for i in ids if sent[i] == 0),
        "confirmations_sent_twice": sum(1 for i in ids if sent[i] > 1),
    }


def _round_took_orders(rounds: Sequence[Round], game_id: int | None, at: datetime) -> bool:
    """Whether the game's round open at ``at`` had its deadline still ahead."""
    for round_ in rounds:
        if round_.game_id != game_id or aware(round_.opened_at) > at:
            continue
        if round_.closed_at is None or at < aware(round_.closed_at):
            return round_.deadline is not None and at < aware(round_.deadline)
    return False


def _round_outcomes(engine: Engine, folder: Path, made_due: Counter[str]) -> dict[str, object]:
    """Rounds made due against rounds closed; results against re-adjudication; result mails
    queued (one per seat of each closed round) against the outbox Maildir."""
    skipped = twice = differ = 0
    closed = 0
    with Session(engine) as session:
        results = Counter(session.exec(select(RoundResult.round_id)).all())
        for game in session.exec(select(Game)).all():
            rounds = session.exec(
                select(Round).where(Round.game_id == game.id).order_by(col(Round.number))
            ).all()
            numbers = [r.number for r in rounds]
            skipped += len(set(range(1, max(numbers) + 1)) - set(numbers))  # gaps
            done = [r for r in rounds if r.state != RoundState.OPEN]
            closed += len(done)
            skipped += max(made_due[game.name] - len(done), 0)
            twice += max(len(done) - made_due[game.name], 0)  # closed without being due
            twice += sum(1 for r in done if results[r.id or 0] > 1)
            differ += sum(1 for r in done if rerun_round(session, game, r).differences)
        seats = len(session.exec(select(Seat.id)).all()) // max(len(made_due), 1)
        result_mails = session.exec(
            select(OutboxMail.round_id, OutboxMail.message).where(OutboxMail.kind == "result")
        ).all()
    per_round = Counter(round_id for round_id, _ in result_mails)
    ids = [str(message_from_bytes(m)["Message-ID"]) for _, m in result_mails]
    delivered = _delivered(folder)
    return {
        "rounds_made_due": sum(made_due.values()),
        "rounds_closed": closed,
        "rounds_skipped": skipped,
        "rounds_adjudicated_twice": twice,
        "rounds_differing_from_rerun": differ,
        "result_mails_queued": len(result_mails),
        "result_mails_not_queued": closed * seats - sum(min(n, seats) for n in per_round.values()),
        "result_mails_missing": sum(1 for i in ids if delivered[i] == 0),
        "result_mails_sent_twice": sum(1 for i in ids if delivered[i] > 1),
    }


def rows(figures: dict[str, object]) -> Iterator[tuple[str, object]]:
    yield from figures.items()


# ---------------------------------------------------------------------------------------------
# 4. Outages


class Unavailable(Exception):
    """A server or a right this part needs is missing here: the part is skipped with the reason
    (under ``CI=true`` the harness fails instead, as the tests do)."""


def skipped(reason: str) -> dict[str, object]:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        raise SystemExit(f"{reason} (CI=true: .ci/run must provide it)")
    return {"skipped": reason}


def wait_until(condition: Callable[[], bool], *, timeout: float, step: float = 0.2) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` seconds pass (a bounded wait)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def metric(port: int, name: str) -> float | None:
    """A counter of the service's /metrics (summed over labels), None while it does not answer
    or lacks it."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            text = reply.read().decode()
    except OSError:
        return None
    for family in text_string_to_metric_families(text):
        if family.name == name:
            return sum(s.value for s in family.samples if s.name.endswith("_total"))
    return None


def accepted(database_url: str) -> int:
    """Mails accepted so far (0 while the database is away)."""
    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            return len(
                session.exec(
                    select(Submission.id).where(Submission.status == SubmissionStatus.ACCEPTED)
                ).all()
            )
    except OperationalError:
        return 0
    finally:
        engine.dispose()


WAIT_LINE = re.compile(rb"(?:trying again|retrying) in ([0-9.]+) ?s")


def waits_logged(log: bytes, marker: bytes) -> dict[str, object]:
    """The log's lines about waiting that contain ``marker``: how many, and their waits (the
    backoff, in the order logged, repeats dropped)."""
    lines = [line for line in log.splitlines() if marker in line]
    pauses: list[float] = []
    for line in lines:
        found = WAIT_LINE.search(line)
        if found and (not pauses or pauses[-1] != float(found.group(1))):
            pauses.append(float(found.group(1)))
    return {"lines": len(lines), "backoff_seconds": pauses}


TRACEBACK = b"Traceback (most recent call last)"


def tracebacks_logged(log: bytes) -> list[str]:
    """Each traceback in ``log``, named by the log line before it and the exception it ends with
    (its last line, which does not start with a blank), so that a failing check says which code
    logged it."""
    lines = log.splitlines()
    found: list[str] = []
    for number, line in enumerate(lines):
        if TRACEBACK not in line:
            continue
        before = lines[number - 1] if number else b""
        end = next(
            (later for later in lines[number + 1 :] if later and not later[:1].isspace()),
            b"",
        )
        found.append(f"{before.decode(errors='replace')} | {end.decode(errors='replace')}")
    return found


class Serving:
    """``adjudicate serve`` as a process with metrics on a free port, its log in a file."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.port = free_port()
        self.log_path = log_path
        self._log = log_path.open("ab")
        self.process = subprocess.Popen(
            [str(ADJUDICATE), "serve"],
            env=env | {"ADJUDICATOR_METRICS_PORT": str(self.port)},
            stdout=self._log,
            stderr=self._log,
        )
        if not wait_until(
            lambda: self.metric("adjudicator_database_retries") is not None, timeout=60
        ):
            raise RuntimeError(f"serve did not start: {self.log()[-2000:]!r}")

    def metric(self, name: str) -> float | None:
        return metric(self.port, name)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def log(self) -> bytes:
        return self.log_path.read_bytes()

    def stop(self) -> int | None:
        """SIGTERM, and its exit code (None when it had to be killed)."""
        code: int | None = None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                code = self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        else:
            code = self.process.returncode
        self._log.close()
        return code


def pipe(env: dict[str, str], raw: bytes) -> int:
    """``adjudicate receive`` with ``raw`` on its standard input: its exit code."""
    done = subprocess.run(
        [str(ADJUDICATE), "receive"], input=raw, env=env, capture_output=True, check=False
    )
    return done.returncode


def _order_mails(seats: Seats, count: int) -> list[bytes]:
    return [
        order_mail(seats[n % len(seats)][1], seats[n % len(seats)][0], seats[n % len(seats)][2], n)
        for n in range(count)
    ]


def _thirds(raws: list[bytes]) -> tuple[list[bytes], list[bytes], list[bytes]]:
    """Mails before, during and after an outage."""
    third = len(raws) // 3
    return raws[:third], raws[third : 2 * third], raws[2 * third :]


def _orders_applied_twice(database_url: str) -> int:
    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            per_mail = Counter(session.exec(select(OrderSet.submission_id)).all())
    finally:
        engine.dispose()
    return sum(1 for n in per_mail.values() if n > 1)


def imap_outage(down_seconds: float, mails: int) -> dict[str, object]:
    """Dovecot stopped for ``down_seconds`` while ``serve`` reads its folder with IDLE: a third
    of the mails are in the folder before, a third are delivered into its Maildir on disk while
    IMAP is down (the mail server keeps delivering), a third are appended after."""
    from mailservers import DOVECOT, IMAP_PASSWORD, Dovecot

    if not DOVECOT.exists():
        return skipped(f"no Dovecot at {DOVECOT} (apt-get install dovecot-imapd)")
    folder = Path(tempfile.mkdtemp(prefix="reliability-imap-"))
    dovecot = Dovecot.create()
    dovecot.start()
    user = dovecot.new_user()
    config = Config(service=ServiceConfig(data_dir=str(folder), address=SERVICE))
    raws = _order_mails(seed_games(config, 1, "i"), mails)
    before, during, after = _thirds(raws)
    env = service_env(
        folder,
        ADJUDICATOR_IMAP_HOST=dovecot.host,
        ADJUDICATOR_IMAP_PORT=str(dovecot.port),
        ADJUDICATOR_IMAP_USERNAME=user,
        ADJUDICATOR_IMAP_PASSWORD=IMAP_PASSWORD,
    )
    url = config.database_url
    serving = Serving(env, folder / "serve.log")
    try:
        for raw in before:
            dovecot.append(user, raw)
        took_before = wait_until(lambda: accepted(url) == len(before), timeout=60)
        reconnects = serving.metric("adjudicator_imap_reconnects") or 0.0
        dovecot.stop()
        went = time.monotonic()
        mailbox = dovecot.base / "mail" / user
        owner = mailbox.stat()
        for raw in during:
            path = deliver(mailbox, raw)
            os.chown(path, owner.st_uid, owner.st_gid)
        alive = wait_until(lambda: not serving.alive, timeout=down_seconds) is False
        dovecot.start()
        back = time.monotonic()
        for raw in after:
            dovecot.append(user, raw)
        caught_up = wait_until(lambda: accepted(url) == mails, timeout=180)
        seconds = round(time.monotonic() - back, 1)
        reconnects = (serving.metric("adjudicator_imap_reconnects") or 0.0) - reconnects
    finally:
        code = serving.stop()
        dovecot.remove()
    try:
        return {
            "down_seconds": round(back - went, 1),
            "mails": mails,
            "taken_before": took_before,
            "serve_alive_through_outage": alive,
            "waits_logged": waits_logged(serving.log(), b"retrying in"),
            "metric_imap_reconnects": reconnects,
            "seconds_to_catch_up": seconds if caught_up else None,
            "orders_lost": mails - accepted(url),
            "orders_applied_twice": _orders_applied_twice(url),
            "serve_exit_on_sigterm": code,
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _outbox(database_url: str) -> tuple[Counter[str], list[str]]:
    """The outbox's mails by status, and the Message-IDs of those sent."""
    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            rows = session.exec(select(OutboxMail.status, OutboxMail.message)).all()
    finally:
        engine.dispose()
    statuses = Counter(str(status) for status, _ in rows)
    ids = [str(message_from_bytes(m)["Message-ID"]) for s, m in rows if s == OutboxStatus.SENT]
    return statuses, ids


def smtp_outage(down_seconds: float, mails: int) -> dict[str, object]:
    """The SMTP receiver (aiosmtpd) stopped for ``down_seconds`` while order mails arrive in
    the Maildir and their confirmations are due: the outbox must keep them, try again with
    backoff, and send each once the server is back."""
    from mailservers import start_smtp_sink

    folder = Path(tempfile.mkdtemp(prefix="reliability-smtp-"))
    sink = start_smtp_sink()
    config = Config(service=ServiceConfig(data_dir=str(folder), address=SERVICE))
    raws = _order_mails(seed_games(config, 1, "s"), mails)
    before, during, after = _thirds(raws)
    url = config.database_url
    env = service_env(folder, ADJUDICATOR_SMTP_HOST=sink.host, ADJUDICATOR_SMTP_PORT=str(sink.port))

    def all_sent() -> bool:
        statuses, _ = _outbox(url)
        return accepted(url) == mails and set(statuses) == {"sent"}

    serving = Serving(env, folder / "serve.log")
    try:
        for raw in before:
            deliver(folder / "maildir", raw)
        took_before = wait_until(
            lambda: accepted(url) == len(before) and set(_outbox(url)[0]) == {"sent"}, timeout=60
        )
        sink.stop()
        went = time.monotonic()
        for raw in during:
            deliver(folder / "maildir", raw)
        alive = wait_until(lambda: not serving.alive, timeout=down_seconds) is False
        retries = serving.metric("adjudicator_smtp_retries")
        sink.start_again()
        back = time.monotonic()
        for raw in after:
            deliver(folder / "maildir", raw)
        caught_up = wait_until(all_sent, timeout=300)
        seconds = round(time.monotonic() - back, 1)
    finally:
        code = serving.stop()
        sink.stop()
    try:
        statuses, ids = _outbox(url)
        received = Counter(str(message_from_bytes(r.content)["Message-ID"]) for r in sink.received)
        return {
            "down_seconds": round(back - went, 1),
            "mails": mails,
            "taken_before": took_before,
            "serve_alive_through_outage": alive,
            "waits_logged": waits_logged(serving.log(), b"SMTP server unavailable"),
            "metric_smtp_retries": retries,
            "seconds_to_catch_up": seconds if caught_up else None,
            "orders_lost": mails - accepted(url),
            "outbox": dict(statuses),
            "mails_given_up": statuses.get("failed", 0),
            "mails_missing": sum(1 for i in ids if received[i] == 0) + statuses.get("pending", 0),
            "mails_sent_twice": sum(1 for i in ids if received[i] > 1),
            "serve_exit_on_sigterm": code,
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


POSTGRES_BIN = Path(os.environ.get("ADJUDICATOR_TEST_POSTGRES_BIN", "/usr/lib/postgresql/15/bin"))


class PrivatePostgres:
    """A PostgreSQL cluster of our own in a temporary folder on a free port (trust auth), run
    as the ``postgres`` user when we are root: stopped and started at will, unlike the machine's
    shared server."""

    def __init__(self) -> None:
        if not (POSTGRES_BIN / "initdb").exists():
            raise Unavailable(f"no PostgreSQL server programs in {POSTGRES_BIN}")
        self.base = Path(tempfile.mkdtemp(prefix="reliability-pg-"))
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            self.base.chmod(0o755)
            shutil.chown(self.base, "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.base / "data"), "-A", "trust", "-U", "postgres",
                  "--no-sync")  # fmt: skip
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        subprocess.run(
            [*self.as_user, str(POSTGRES_BIN / program), *args],
            check=True,
            capture_output=True,
            timeout=120,
        )

    def start(self) -> None:
        options = f"-p {self.port} -h 127.0.0.1 -k {self.base} -c fsync=off"
        self._run("pg_ctl", "-D", str(self.base / "data"), "-o", options,
                  "-l", str(self.base / "log"), "-w", "start")  # fmt: skip

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.base / "data"), "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop()
        shutil.rmtree(self.base, ignore_errors=True)


def postgres_outage(down_seconds: float, mails: int) -> dict[str, object]:
    """A private PostgreSQL stopped for ``down_seconds`` and started again while order mails
    arrive in the Maildir; ``adjudicate receive`` piped a mail meanwhile, and again after."""
    try:
        server = PrivatePostgres()
    except Unavailable as missing:
        return skipped(str(missing))
    folder = Path(tempfile.mkdtemp(prefix="reliability-pgdata-"))
    try:
        server.start()
        config = Config(
            service=ServiceConfig(data_dir=str(folder), address=SERVICE, database_url=server.url)
        )
        raws = _order_mails(seed_games(config, 1, "q"), mails + 1)
        return _database_outage(
            config,
            raws,
            take_away=server.stop,
            bring_back=server.start,
            down_seconds=down_seconds,
            env=service_env(folder, ADJUDICATOR_DATABASE_URL=server.url),
        )
    finally:
        server.remove()
        shutil.rmtree(folder, ignore_errors=True)


def disk_full(full_seconds: float, mails: int) -> dict[str, object]:
    """The SQLite file on a small tmpfs filled to the last byte for ``full_seconds`` while order
    mails arrive in the Maildir (on another disk) and ``adjudicate receive`` is piped one; then
    the filler is removed."""
    if os.geteuid() != 0:
        return skipped("mounting a small tmpfs for the database needs root")
    folder = Path(tempfile.mkdtemp(prefix="reliability-disk-"))
    disk = folder / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)], check=True)
    filler = disk / "filler"
    try:
        url = f"sqlite:///{disk / 'adjudicator.db'}"
        config = Config(
            service=ServiceConfig(data_dir=str(folder), address=SERVICE, database_url=url)
        )
        raws = _order_mails(seed_games(config, 1, "d"), mails + 1)
        return _database_outage(
            config,
            raws,
            take_away=lambda: _fill(filler),
            bring_back=filler.unlink,
            down_seconds=full_seconds,
            env=service_env(folder, ADJUDICATOR_DATABASE_URL=url),
        )
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def _fill(path: Path) -> None:
    """Write ``path`` until its file system has not one byte left."""
    with path.open("wb", buffering=0) as file:
        for size in (1 << 16, 1 << 12, 1 << 9, 1):
            with contextlib.suppress(OSError):
                while True:
                    file.write(b"\0" * size)


def _database_outage(
    config: Config,
    raws: list[bytes],
    *,
    take_away: Callable[[], None],
    bring_back: Callable[[], None],
    down_seconds: float,
    env: dict[str, str],
) -> dict[str, object]:
    """The common course of a database outage (see ``postgres_outage``, ``disk_full``)."""
    mails, piped = raws[:-1], raws[-1]
    third = len(mails) // 3
    url = config.database_url
    serving = Serving(env, config.data_path / "serve.log")
    try:
        for raw in mails[:third]:
            deliver(config.maildir_path, raw)
        took_before = wait_until(lambda: accepted(url) == third, timeout=60)
        retries = serving.metric("adjudicator_database_retries") or 0.0
        take_away()
        went = time.monotonic()
        for raw in mails[third : 2 * third]:
            deliver(config.maildir_path, raw)
        receive_while_away = pipe(env, piped)
        alive = wait_until(lambda: not serving.alive, timeout=down_seconds) is False
        retries_seen_while_away = serving.metric("adjudicator_database_retries")
        bring_back()
        back = time.monotonic()
        for raw in mails[2 * third :]:
            deliver(config.maildir_path, raw)
        receive_after = pipe(env, piped)
        caught_up = wait_until(lambda: accepted(url) == len(raws), timeout=180)
        seconds = round(time.monotonic() - back, 1)
        retries = (serving.metric("adjudicator_database_retries") or 0.0) - retries
    finally:
        code = serving.stop()
    tracebacks = tracebacks_logged(serving.log())
    return {
        "down_seconds": round(back - went, 1),
        "mails": len(raws),
        "taken_before": took_before,
        "serve_alive_through_outage": alive,
        "waits_logged": waits_logged(serving.log(), b"database unavailable"),
        "tracebacks_logged": len(tracebacks),
        "tracebacks": tracebacks[:5],
        "metric_database_retries": retries,
        "metrics_answered_while_away": retries_seen_while_away is not None,
        "receive_exit_while_away": receive_while_away,
        "receive_exit_after": receive_after,
        "seconds_to_catch_up": seconds if caught_up else None,
        "orders_lost": len(raws) - accepted(url),
        "orders_applied_twice": _orders_applied_twice(url),
        "serve_exit_on_sigterm": code,
    }


def sqlite_lock(lock_seconds: float, mails: int) -> dict[str, object]:
    """Another program holds SQLite's write lock for ``lock_seconds`` (longer than the 10 s busy
    timeout) while ``mails`` order mails arrive; ``adjudicate receive`` is piped a mail under the
    lock (0: it does not need the lock) and again after it."""
    folder = Path(tempfile.mkdtemp(prefix="reliability-lock-"))
    try:
        config = Config(service=ServiceConfig(data_dir=str(folder), address=SERVICE))
        raws = _order_mails(seed_games(config, 1, "o"), mails + 1)
        locker = sqlite3.connect(folder / "adjudicator.db", isolation_level=None, timeout=60)
        try:
            return _database_outage(
                config,
                raws,
                take_away=lambda: _execute(locker, "BEGIN IMMEDIATE"),
                bring_back=lambda: _execute(locker, "ROLLBACK"),
                down_seconds=lock_seconds,
                env=service_env(folder),
            )
        finally:
            locker.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _execute(connection: sqlite3.Connection, statement: str) -> None:
    connection.execute(statement)


OUTAGES: dict[str, tuple[str, Callable[[float, int], dict[str, object]]]] = {
    "imap": ("IMAP server (Dovecot) stopped, serve reading with IDLE", imap_outage),
    "smtp": ("SMTP server (aiosmtpd) stopped while answers are due", smtp_outage),
    "postgres": ("PostgreSQL (a private cluster) stopped and started again", postgres_outage),
    "disk": ("disk full under the SQLite file (tmpfs)", disk_full),
    "lock": ("SQLite write lock held by another program", sqlite_lock),
}


def outages(
    names: list[str], *, seconds: float, lock_seconds: float, mails: int
) -> dict[str, object]:
    """Each outage named, one after the other (see the module's docstring, 4)."""
    found: dict[str, object] = {}
    for name in names:
        _, run = OUTAGES[name]
        found[name] = run(lock_seconds if name == "lock" else seconds, mails)
    return found
