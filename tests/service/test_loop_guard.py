"""The loop guard as players meet it (issue 40, finding 2): a person playing a quick game is
answered every time, from his registered address or his reply address; a program answering
our answers within seconds, with nothing of its own, is held back, and told so once.

The service's clock is the fixture clock (``playing.Clock``): "within 10 minutes" is the
service's time, moved by the test."""

from __future__ import annotations

import random
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from itertools import count

import pytest
from playing import START, client_reply, clock_of, new_game, plain, queued
from sqlmodel import Session, col, select

from adjudicator.notify.loop_guard import LOOP_ANSWERS, LOOP_WINDOW
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.storage.models import GameStatus, OutboxMail, Submission

ANN = "ann@example.org"
_ids = count(1)


def _start(app: App, name: str) -> None:
    """Ann against the computer at Three Musketeers: she plays the Musketeers, who move first
    (docs/rules/three-musketeers.md)."""
    new_game(
        app,
        ["ann", "cpu"],
        name=name,
        kind="three-musketeers",
        settings={"stand_ins": ["cpu"], "reminders": []},
        welcome=True,
    )


def _over(app: App, name: str) -> bool:
    with Session(app.engine) as session:
        return find_game(session, name).status == GameStatus.FINISHED


def _a_move(app: App, name: str, seed: int) -> list[str]:
    """A legal move of ann's now, as a player writes it."""
    with Session(app.engine) as session:
        game = find_game(session, name)
        rules, state = rules_of(game), game_state(game)
        orders = rules.sample_orders(state, "ann", random.Random(seed))
        return [rules.format_order(order) for order in orders]


def _to_ann(app: App) -> list[OutboxMail]:
    """The mails queued for ann, newest first."""
    with Session(app.engine) as session:
        query = select(OutboxMail).where(OutboxMail.recipient == ANN)
        return list(session.exec(query.order_by(col(OutboxMail.id).desc())))


def _headers(row: OutboxMail) -> Message:
    return BytesHeaderParser(policy=policy.default).parsebytes(row.message)


def _newest_of_game(app: App, name: str) -> EmailMessage:
    """The newest mail of the game to ann that carries her seat's reply address."""
    for row in _to_ann(app):
        head = _headers(row)
        if f"[{name}]" in str(head["Subject"]) and head["Reply-To"]:
            parsed: EmailMessage = message_from_bytes(row.message, policy=policy.default)
            return parsed
    raise AssertionError(f"no mail of {name} to ann")


def _send(app: App, raw: bytes) -> None:
    clock_of(app).advance(seconds=8)
    app.ingest(raw, channel="pipe")


def _answered(app: App) -> tuple[list[str], set[str]]:
    """The Message-IDs of ann's mails, and those our answers to her reply to (the notice
    that answers are held back is not one)."""
    with Session(app.engine) as session:
        sent = [
            s.message_id or ""
            for s in session.exec(select(Submission).order_by(col(Submission.id)))
            if s.sender == ANN
        ]
    rows = [row for row in _to_ann(app) if row.kind != "held_back"]
    replied = {str(_headers(row)["In-Reply-To"]) for row in rows}
    return sent, replied


@pytest.mark.slow
def test_fifty_quick_turns_against_the_computer_are_all_answered(app: App) -> None:
    """Finding 2: the loop guard counted the service's own confirmations, so after some eight
    answers in ten minutes a quick player's STATUS went unanswered, and nothing told him. 50
    quick turns against the computer from one address within 10 minutes, each a reply to the
    service's last mail (to its Reply-To, the seat's reply address, from the registered
    address), with STATUS, HELP and REPORT between: every mail is answered, nothing is held
    back."""
    turns, games = 0, 0
    while turns < 50:
        games += 1
        name = f"duel{games}"
        _start(app, name)
        while turns < 50 and not _over(app, name):
            last = _newest_of_game(app, name)
            move = "\n".join(_a_move(app, name, turns))
            _send(app, client_reply(last, move, sender=ANN, message_id=f"<m{next(_ids)}@x.org>"))
            turns += 1
            if turns % 3:
                continue
            asked = ("STATUS", f"HELP {name}", "REPORT")[turns // 3 % 3]
            last = _newest_of_game(app, name)
            _send(app, client_reply(last, asked, sender=ANN, message_id=f"<c{turns}@x.org>"))
    assert clock_of(app).now - START < timedelta(minutes=10)
    sent, replied = _answered(app)
    assert len(sent) >= 50 + 16
    assert [m for m in sent if m not in replied] == []  # every mail answered
    assert queued(app, "held_back") == []
    with Session(app.engine) as session:
        notes = [s.note or "" for s in session.exec(select(Submission))]
    assert not [n for n in notes if "held back" in n or "not answered" in n]


def _robot_reply(app: App, *, seconds: float) -> None:
    """The auto-responder at ann's address: ``seconds`` after our newest mail to her it
    answers it, to its Reply-To (her seat's reply address), quoting it with no word of its
    own."""
    last: EmailMessage = message_from_bytes(_to_ann(app)[0].message, policy=policy.default)
    clock_of(app).advance(seconds=seconds)
    app.ingest(client_reply(last, "", sender=ANN, message_id=f"<r{next(_ids)}@x.org>"), channel="t")


def test_a_robot_answering_our_answers_within_seconds_is_held_back_and_told_once(
    app: App,
) -> None:
    """A program that answers every mail of ours within seconds with no text of its own
    (to the seat's reply address: a person there would prove the seat) still stops the
    service's answers after ``LOOP_ANSWERS`` in ten minutes; one notice says so and when
    answers resume; the player's own mail meanwhile is answered at once; and after ten quiet
    minutes the address is answered again."""
    _start(app, "duel")
    first = _newest_of_game(app, "duel")
    app.ingest(
        client_reply(first, "\n".join(_a_move(app, "duel", 1)), sender=ANN, message_id="<a@x>"),
        channel="t",
    )
    robot = 12
    for _ in range(robot):
        _robot_reply(app, seconds=2)
    with Session(app.engine) as session:
        automatic = [
            s.automatic for s in session.exec(select(Submission).order_by(col(Submission.id)))
        ]
    assert automatic[0] is None  # ann's move
    assert all(automatic[1:])  # each of the robot's mails looked automatic
    sent, replied = _answered(app)
    answered_robot = [m for m in sent[1:] if m in replied]
    assert len(answered_robot) == LOOP_ANSWERS
    [notice] = queued(app, "held_back")
    text = " ".join(plain(notice).split())
    assert "look as if a program sent them" in text
    resume = START + timedelta(seconds=2 * (LOOP_ANSWERS + 1)) + LOOP_WINDOW
    assert f"at {resume.strftime('%A %d %B %Y, %H:%M')} UTC" in text
    assert "with orders or a command" in text

    # Ann herself, meanwhile: her STATUS is answered at once, and the robot, answering that
    # answer, is still held back, without a second notice.
    last = _newest_of_game(app, "duel")
    app.ingest(client_reply(last, "STATUS", sender=ANN, message_id="<s@x>"), channel="t")
    sent, replied = _answered(app)
    assert "<s@x>" in replied
    _robot_reply(app, seconds=2)
    assert len(queued(app, "held_back")) == 1
    assert [m for m in _answered(app)[0][-1:] if m in _answered(app)[1]] == []

    # Ten quiet minutes later the address is answered again.
    clock_of(app).advance(minutes=11)
    _robot_reply(app, seconds=2)
    sent, replied = _answered(app)
    assert sent[-1] in replied
