"""The mails around a deadline, worded for the kind of game: in a game played in turns a move
is applied at once, and a player still silent at the end of the grace period forfeits
(docs/rules/three-musketeers.md, docs/rules/rock-scissors-paper.md: option timeout=forfeit);
in a simultaneous game orders may change until the round closes.

Each game is created as in the golden playthroughs (fixed secrets, key and clock), with a grace
period of a day; the reminder two hours before the deadline and the grace notices a minute
after it are checked against golden files under tests/golden/deadline-mail/<game>/
(``UPDATE_GOLDEN=1`` rewrites them) and for what they must and must not say.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
from playing import add_orders
from sqlmodel import select
from test_templates import (
    FULL,
    GOLDEN,
    TAGS,
    ZONES,
    Clock,
    Sent,
    _fixed_secrets,
    make_service,
    outbox,
    play,
    readable,
)

from adjudicator.games import get_rules as record_rules
from adjudicator.games import read_record
from adjudicator.service.app import App
from adjudicator.service.deadlines import queue_reminders, start_grace
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.rounds import RoundContext, start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Round

DEADLINE_GOLDEN = GOLDEN / "deadline-mail"
GAMES = ("three-musketeers", "rock-scissors-paper", "giveaway")
"""Both games played in turns, and one simultaneous game for the other wording."""
KINDS = ("reminder", "grace_late", "grace_wait")


def _deadline_mails(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Sent]:
    """A game of ``kind`` started, nobody moving (in a simultaneous game, one player only
    ordering): its reminder two hours before the deadline, then its grace notices a minute
    after the deadline."""
    _fixed_secrets(monkeypatch)
    record = read_record((GOLDEN / kind / f"{FULL[kind]}.record").read_text(encoding="utf-8"))
    app: App = make_service(tmp_path)
    clock = app.clock
    assert isinstance(clock, Clock)
    with session_scope(app.engine) as session:
        game, _credentials = create_game(
            session,
            name=TAGS[kind],
            kind=kind,
            players=[
                PlayerSpec(p, f"{p}@example.org", ZONES[i] if i < len(ZONES) else None)
                for i, p in enumerate(record.players)
            ],
            options=record.options,
            setup=record.setup,
            schedule="72h",
            settings={"grace": "24h", "reminders": ["2h"]},
            gm_address="gm@example.org",
            now=clock(),
        )
        first = start_game(session, game, now=clock())
        assert first.id is not None
        assert first.deadline is not None
        round_id, deadline = first.id, first.deadline
    if not record_rules(kind).sequential:  # one player has ordered: the others are late
        first_orders = record.rounds[0].orders
        mover = first_orders[0].player
        add_orders(app, TAGS[kind], mover, *(o.text for o in first_orders if o.player == mover))
    with session_scope(app.engine) as session:
        round_ = session.exec(select(Round).where(Round.id == round_id)).one()
        queue_reminders(session, round_, ctx=app.ctx, now=deadline - timedelta(hours=2))
    with session_scope(app.engine) as session:
        context = RoundContext.load(session, round_id)
        assert context is not None
        assert start_grace(session, context, ctx=app.ctx, now=deadline + timedelta(minutes=1))
    return [sent for sent in outbox(app) if sent.kind in KINDS]


@pytest.fixture(scope="module")
def deadline_mails(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Sent]]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        return {
            kind: _deadline_mails(kind, tmp_path_factory.mktemp(kind), monkeypatch)
            for kind in GAMES
        }


def _first(sent: list[Sent], kind: str) -> Sent:
    return next(s for s in sent if s.kind == kind)


def _text(sent: Sent) -> str:
    plain = sent.message.get_body(preferencelist=("plain",))
    assert plain is not None
    return " ".join(str(plain.get_content()).split())


@pytest.mark.parametrize("kind", GAMES)
def test_deadline_mails_match_their_golden_files(
    kind: str, deadline_mails: dict[str, list[Sent]]
) -> None:
    """The reminder and both grace notices of each kind of game, as reviewed."""
    update = os.environ.get("UPDATE_GOLDEN") == "1"
    differ = []
    for mail_kind in KINDS:
        text, html = readable(_first(deadline_mails[kind], mail_kind))
        for suffix, content in ((".txt", text), (".html", html)):
            if content is None:
                continue
            path = DEADLINE_GOLDEN / kind / f"{mail_kind}{suffix}"
            if update:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
            elif not path.exists() or path.read_text(encoding="utf-8") != content:
                differ.append(path.name)
    assert not differ, f"mails differ from their golden files: {differ} (UPDATE_GOLDEN=1 rewrites)"


GRACE_END = {
    "Europe/Berlin": "Friday 06 March 2026, 13:00 CET (Europe/Berlin)",
    "America/New_York": "Friday 06 March 2026, 07:00 EST (America/New_York)",
}
"""The end of grace (Monday 12:00 UTC, plus 72 hours to the deadline, plus a day) where the
first two seats read it."""


@pytest.mark.parametrize("kind", ["three-musketeers", "rock-scissors-paper"])
def test_a_late_player_is_told_he_forfeits_at_the_end_of_grace(
    kind: str, deadline_mails: dict[str, list[Sent]]
) -> None:
    """timeout=forfeit: "a player still silent at the end of the grace period forfeits, and
    the opponent wins". The side to move first is the one whose move the record starts with
    (a custom position may give the first move to the second seat)."""
    record = read_record((GOLDEN / kind / f"{FULL[kind]}.record").read_text(encoding="utf-8"))
    mover = record.rounds[0].orders[0].player
    (waiting,) = [p for p in record.players if p != mover]
    zone = {p: ZONES[i] for i, p in enumerate(record.players)}
    sent = deadline_mails[kind]
    late = _text(_first(sent, "grace_late"))
    assert late.startswith(f"Hello {mover},")
    assert f"you forfeit the game and {waiting} wins" in late
    assert GRACE_END[zone[mover]] in late
    wait = _text(_first(sent, "grace_wait"))
    assert wait.startswith(f"Hello {waiting},")
    assert f"{mover} forfeits the game and you win" in wait
    assert GRACE_END[zone[waiting]] in wait
    assert "change them" not in wait
    reminder = _text(_first(sent, "reminder"))
    assert "you forfeit the game" in reminder
    assert "as often as you like" not in reminder
    assert [s.recipient for s in sent if s.kind == "reminder"] == [f"{mover}@example.org"]


def test_a_simultaneous_game_keeps_its_wording(deadline_mails: dict[str, list[Sent]]) -> None:
    """In a simultaneous game orders may change until the round closes, and nobody forfeits:
    the round is adjudicated under the no-orders rule."""
    sent = deadline_mails["giveaway"]
    assert "forfeit" not in " ".join(_text(s) for s in sent)
    assert "you may still change them" in _text(_first(sent, "grace_wait"))


def test_each_move_is_confirmed_as_applied_and_the_last_as_the_end_of_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round of a game played in turns is one move, applied as soon as it is checked
    (docs/rules/three-musketeers.md): each confirmation says so and names whose turn it is
    now, the other player; the move that ends the game is confirmed with the end and
    the winner, and no confirmation invites changing the orders."""
    record_path = GOLDEN / "three-musketeers" / f"{FULL['three-musketeers']}.record"
    record = read_record(record_path.read_text(encoding="utf-8"))
    confirmations = [
        s for s in play(record_path, tmp_path, monkeypatch) if s.kind == "confirmation"
    ]
    assert confirmations, "no move was confirmed"
    for sent in confirmations[:-1]:  # the sides take turns: the other player moves next
        (following,) = [p for p in record.players if f"{p}@example.org" != sent.recipient]
        text = _text(sent)
        assert "was applied" in str(sent.message["Subject"])
        assert f"It is now {following}'s turn" in text
        assert "any number of times" not in text
    last = _text(confirmations[-1])
    assert "GAME OVER: richelieu wins" in last  # the Musketeers in line: the Cardinal wins
    assert "game over: richelieu wins" in str(confirmations[-1].message["Subject"])
    assert "'s turn" not in last
    assert "any number of times" not in last
