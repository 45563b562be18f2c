"""A paused game's rounds do not close under the running service (README, "The `adjudicate`
command": "no round closes while paused; resuming moves the deadline").

The game master pauses, resumes, extends or rolls back from the command line, a process of its
own as he would type it, or by mail, while ``adjudicate serve`` runs with the deadline a few
seconds away: the service must hear of it. While the game is paused its round stays open past
its deadline and no result goes out; once resumed the round closes at the deadline moved by the
pause, and its results go out. A deadline extended closes at the new time, not the old one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

from playing import poll
from sqlmodel import Session, col, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.mail.maildir import deliver
from adjudicator.service.app import App, make_app
from adjudicator.service.closing import close_and_adjudicate
from adjudicator.service.games import PlayerSpec, create_game, find_game
from adjudicator.service.notices import gm_reply_to
from adjudicator.service.reporting import report_round
from adjudicator.service.rounds import open_round_of, start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import GameStatus, OutboxMail, OutboxStatus, Round, RoundState

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
ADDRESS = "judge@pbem.test"
GM = "gm@example.org"
LEAD = timedelta(seconds=90)
"""How far ahead of the test's start the open round's deadline is put: time for the service to
start (and plan it) and for the game master's command to run before it (each test checks that
they did, see :func:`_before`). On a loaded machine of two cores the service took up to 15 s to
start and a command up to 10 s: the lead is several times that."""
PAST = 8.0
"""How long past a deadline the test watches for a round that should not close (a bounded
poll: it ends early, failing, if the round closes)."""


@dataclass
class Club:
    """The service's data folder and an application on it, for the test's own reads."""

    data: Path
    app: App

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``adjudicate ARGS`` as the operator types it, in a process of its own."""
        done = subprocess.run(
            [str(ADJUDICATE), *args],
            env=_environment(self.data),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    def round(self, number: int) -> Round:
        with Session(self.app.engine) as session:
            game = find_game(session, "gw1")
            return session.exec(
                select(Round).where(Round.game_id == game.id, Round.number == number)
            ).one()

    def status(self) -> GameStatus:
        with Session(self.app.engine) as session:
            return find_game(session, "gw1").status

    def results_sent(self, round_id: int | None) -> int:
        """Result mails of the round (``round_id``) that have gone out."""
        with Session(self.app.engine) as session:
            return len(
                session.exec(
                    select(OutboxMail)
                    .where(OutboxMail.kind == "result", OutboxMail.round_id == round_id)
                    .where(col(OutboxMail.status) == OutboxStatus.SENT)
                ).all()
            )

    def closed_or_reported(self, number: int) -> bool:
        round_ = self.round(number)
        return round_.state != RoundState.OPEN or self.results_sent(round_.id) > 0

    def move_deadline(self, number: int, deadline: datetime) -> None:
        """Put the open round's deadline where the test needs it (before the service runs)."""
        with session_scope(self.app.engine) as session:
            game = find_game(session, "gw1")
            round_ = session.exec(
                select(Round).where(Round.game_id == game.id, Round.number == number)
            ).one()
            round_.deadline = deadline
            session.add(round_)


def _environment(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ADJUDICATOR_", "NOTIFY_"))}
    return env | {
        "ADJUDICATOR_DATA_DIR": str(data),
        "ADJUDICATOR_ADDRESS": ADDRESS,
        "ADJUDICATOR_LOG_FILE": str(data / "serve.log"),
    }


def _club(data: Path, *, schedule: str = "72h") -> Club:
    """Game gw1 of three players, round 1 open, no early close and no reminders (nothing but
    the deadline closes a round), a game master by mail."""
    app = make_app(Config(service=ServiceConfig(data_dir=str(data), address=ADDRESS)))
    with session_scope(app.engine) as session:
        game, _ = create_game(
            session,
            name="gw1",
            kind="giveaway",
            schedule=schedule,
            settings={"early_close": False, "reminders": []},
            players=[PlayerSpec(f"p{n}", f"p{n}@example.org") for n in range(3)],
            options={},
            gm_address=GM,
            now=app.clock(),
        )
        start_game(session, game, now=app.clock())
    return Club(data, app)


@contextmanager
def serving(club: Club) -> Iterator[subprocess.Popen[bytes]]:
    """``adjudicate serve`` running on the club's data, until the block ends."""
    log = club.data / "serve.log"
    process = subprocess.Popen(
        [str(ADJUDICATE), "serve"],
        env=_environment(club.data),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert poll(
            lambda: log.exists() and "deadlines planned; serving" in log.read_text(), timeout=60
        ), "the service did not start"
        yield process
        assert process.poll() is None, "the service ended by itself"
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        club.app.engine.dispose()
    assert "Traceback" not in log.read_text(), log.read_text()


def _before(deadline: datetime) -> None:
    """The game master's command came before the deadline it is about: the test means it."""
    assert datetime.now(UTC) < deadline, "the machine was too slow: the command came too late"


def _seconds_until(moment: datetime) -> float:
    return max((moment - datetime.now(UTC)).total_seconds(), 0.0)


def _gm_mail(club: Club, body: str, number: int) -> bytes:
    """A reply of the game master to one of the service's mails: to his reply address."""
    with Session(club.app.engine) as session:
        to = gm_reply_to(club.app.ctx, find_game(session, "gw1"))
    message = EmailMessage()
    message["From"] = GM
    message["To"] = to
    message["Subject"] = "Re: [gw1] the game"
    message["Message-ID"] = f"<gm-{number}@example.org>"
    message.set_content(body)
    return message.as_bytes()


def _stays_open_past_its_deadline(club: Club, number: int) -> None:
    """Watch (bounded) until well past the round's deadline: it stays open, nothing is sent."""
    deadline = club.round(number).deadline
    assert deadline is not None
    closed = poll(lambda: club.closed_or_reported(number), timeout=_seconds_until(deadline) + PAST)
    assert not closed, f"round {number} closed while the game was paused"
    assert club.round(number).state == RoundState.OPEN


def _closes_at_its_new_deadline(club: Club, number: int, *, later_than: datetime) -> None:
    """The round closes, not before its (moved) deadline, and its results go out."""
    moved = club.round(number)
    assert moved.deadline is not None
    assert moved.deadline > later_than
    assert poll(
        lambda: club.results_sent(moved.id) == 3,
        timeout=_seconds_until(moved.deadline) + 60,
    ), f"round {number} did not close after it was resumed"
    closed = club.round(number)
    assert closed.closed_at is not None
    assert closed.closed_at >= moved.deadline
    assert club.round(number + 1).state == RoundState.OPEN  # the next one opened


def test_a_game_paused_from_the_command_line_closes_no_round_until_it_resumes(
    tmp_path: Path,
) -> None:
    club = _club(tmp_path)
    deadline = datetime.now(UTC) + LEAD
    club.move_deadline(1, deadline)
    with serving(club):
        club.run("game", "pause", "gw1")
        _before(deadline)
        assert "paused" in club.run("status", "gw1").stdout
        _stays_open_past_its_deadline(club, 1)
        assert club.results_sent(club.round(1).id) == 0
        assert club.status() == GameStatus.PAUSED
        club.run("game", "resume", "gw1")
        _closes_at_its_new_deadline(club, 1, later_than=deadline)


def test_a_game_paused_by_the_game_masters_mail_closes_no_round_until_resumed_by_mail(
    tmp_path: Path,
) -> None:
    club = _club(tmp_path)
    deadline = datetime.now(UTC) + LEAD
    club.move_deadline(1, deadline)
    with serving(club):
        deliver(tmp_path / "maildir", _gm_mail(club, "PAUSE", 1))
        assert poll(lambda: club.status() == GameStatus.PAUSED, timeout=_seconds_until(deadline))
        _before(deadline)
        _stays_open_past_its_deadline(club, 1)
        deliver(tmp_path / "maildir", _gm_mail(club, "RESUME", 2))
        assert poll(lambda: club.status() == GameStatus.RUNNING, timeout=120)
        _closes_at_its_new_deadline(club, 1, later_than=deadline)


def test_an_extended_deadline_closes_the_round_at_the_new_time_not_the_old(
    tmp_path: Path,
) -> None:
    club = _club(tmp_path)
    old = datetime.now(UTC) + LEAD
    club.move_deadline(1, old)
    with serving(club):
        club.run("game", "extend", "gw1", "--by", "1m")
        _before(old)
        new = club.round(1).deadline
        assert new == old + timedelta(minutes=1)
        closed = poll(lambda: club.closed_or_reported(1), timeout=_seconds_until(old) + PAST)
        assert not closed, "the round closed at its old deadline"
        _closes_at_its_new_deadline(club, 1, later_than=old)


def test_a_paused_game_rolled_back_stays_paused_and_closes_once_resumed(tmp_path: Path) -> None:
    club = _club(tmp_path, schedule="1m")
    with session_scope(club.app.engine) as session:
        game = find_game(session, "gw1")
        first = open_round_of(session, game)
        assert first is not None
        assert first.id is not None
        close_and_adjudicate(session, first.id, ctx=club.app.ctx, now=club.app.clock(), force=True)
    report_round(club.app.engine, first.id, ctx=club.app.ctx, now=club.app.clock())
    deadline = datetime.now(UTC) + LEAD
    club.move_deadline(2, deadline)  # round 2 open, its deadline near
    with serving(club):
        club.run("game", "pause", "gw1")
        _before(deadline)
        club.run("game", "rollback", "gw1", "--round", "1")
        assert club.status() == GameStatus.PAUSED
        assert "paused" in club.run("status", "gw1").stdout
        reopened = club.round(1)
        assert reopened.state == RoundState.OPEN
        # Round 2's deadline, planned before the rollback, passes: nothing closes.
        closed = poll(lambda: club.closed_or_reported(1), timeout=_seconds_until(deadline) + PAST)
        assert not closed, "a round of the paused game closed"
        assert club.status() == GameStatus.PAUSED
        club.run("game", "resume", "gw1")
        _closes_at_its_new_deadline(club, 1, later_than=deadline)
