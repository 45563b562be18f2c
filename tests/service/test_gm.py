"""The game master's controls: pause, resume, extend, players in and out, rollback."""

from __future__ import annotations

from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import pytest
from playing import START, add_orders, clock_of, new_game, plain, player_mail, queued
from sqlmodel import Session, col, select

from adjudicator.base.security import verify_secret
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service import ServiceError, gm
from adjudicator.service.app import App
from adjudicator.service.closing import sweep
from adjudicator.service.games import PlayerSpec, create_game, find_game
from adjudicator.service.rounds import open_round_of, start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import (
    GameStatus,
    OrderSet,
    OutboxMail,
    OutboxStatus,
    Round,
    RoundResult,
    RoundState,
    Seat,
)


def _game(app: App, *, start: bool = True, **extra: Any) -> dict[str, str]:
    """Game "duel"; each player's password."""
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="duel",
            kind="starship-combat",
            players=[PlayerSpec("ann", "ann@example.org"), PlayerSpec("ben", "ben@example.org")],
            options={},
            now=app.clock(),
            **({"schedule": "48h", "settings": {"reminders": []}} | extra),
        )
        if start:
            start_game(session, game, now=app.clock())
    return {c.handle: c.secret for c in credentials}


def _do(app: App, action: str, *args: Any, **kwargs: Any) -> Any:
    with session_scope(app.engine) as session:
        game = find_game(session, "duel")
        return getattr(gm, action)(session, game, *args, **kwargs)


def _clock(app: App, **offset: float) -> datetime:
    return clock_of(app).at(**offset)


def _open(app: App) -> Round:
    with Session(app.engine) as session:
        round_ = open_round_of(session, find_game(session, "duel"))
        assert round_ is not None
        return round_


def _order(app: App, handle: str, line: str) -> None:
    add_orders(app, "duel", handle, line)


def _message(mail: OutboxMail) -> EmailMessage:
    parsed = message_from_bytes(mail.message, policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def _plain(mail: OutboxMail) -> str:
    return plain(_message(mail))


def _mails(app: App, kind: str) -> list[OutboxMail]:
    with Session(app.engine) as session:
        return list(
            session.exec(
                select(OutboxMail).where(OutboxMail.kind == kind).order_by(col(OutboxMail.id))
            )
        )


def _calendar(mail: OutboxMail) -> str:
    """The mail's .ics attachment, as text."""
    message = message_from_bytes(mail.message, policy=policy.default)
    parts = [p for p in message.walk() if p.get_content_type() == "text/calendar"]
    assert len(parts) == 1, "expected one calendar attachment"
    return str(parts[0].get_content())


def _text(mail: OutboxMail) -> str:
    message = message_from_bytes(mail.message, policy=policy.default)
    return str(message.get_body(("plain",)).get_content())  # type: ignore[attr-defined]


def test_a_paused_game_does_not_close_and_resuming_moves_the_deadline(app: App) -> None:
    _game(app)
    _do(app, "pause", ctx=app.ctx, now=_clock(app, hours=10))
    assert sorted(m.recipient for m in _mails(app, "paused")) == [
        "ann@example.org",
        "ben@example.org",
    ]
    assert sweep(app.engine, ctx=app.ctx, now=_clock(app, hours=100)) == []
    assert _open(app).number == 1
    with pytest.raises(ServiceError, match="is paused, not running"):
        _do(app, "pause", ctx=app.ctx, now=app.clock())
    _do(app, "resume", ctx=app.ctx, now=app.clock())  # paused for 90 hours
    assert _open(app).deadline == START + timedelta(hours=48 + 90)
    moved = _mails(app, "deadline_changed")
    assert len(moved) == 2
    assert "continues after a pause of 3 days 18 hours" in _text(moved[0])
    assert "Sunday 08 March 2026, 06:00 UTC" in _text(moved[0])
    event = _calendar(moved[0])
    assert "DTSTART:20260308T060000Z" in event
    assert "STATUS:CONFIRMED" in event
    with pytest.raises(ServiceError, match="is running, not paused"):
        _do(app, "resume", ctx=app.ctx, now=app.clock())


def test_resuming_a_calendar_game_moves_its_deadline_by_the_pause_only(app: App) -> None:
    """A two-hour pause of a Monday 20:00 deadline gives Monday 22:00, as the mail says ("moved
    by the length of the pause"), not Thursday's slot three days later."""
    _game(app, schedule="mon,thu 20:00", time_zone="Europe/London")  # Monday 2 March, noon
    assert _open(app).deadline == datetime.fromisoformat("2026-03-02T20:00:00+00:00")
    _do(app, "pause", ctx=app.ctx, now=_clock(app, hours=1))
    _do(app, "resume", ctx=app.ctx, now=_clock(app, hours=3))  # two hours
    assert _open(app).deadline == datetime.fromisoformat("2026-03-02T22:00:00+00:00")
    text = _text(_mails(app, "deadline_changed")[0])
    assert "after a pause of 2 hours" in text
    assert "Monday 02 March 2026, 22:00 GMT (Europe/London)" in text


def test_a_pause_of_seconds_moves_a_calendar_deadline_by_seconds(app: App) -> None:
    _game(app, schedule="daily 21:00", time_zone="UTC")
    _do(app, "pause", ctx=app.ctx, now=_clock(app, hours=1))
    _do(app, "resume", ctx=app.ctx, now=_clock(app, hours=1) + timedelta(seconds=20))
    assert _open(app).deadline == datetime.fromisoformat("2026-03-02T21:00:20+00:00")
    assert "after a pause of 20 seconds" in _text(_mails(app, "deadline_changed")[0])


def test_extend_until_an_earlier_time_is_refused_unless_asked_for(app: App) -> None:
    _game(app)  # deadline 48 hours after START
    with pytest.raises(ServiceError, match=r"before the current one.*add --earlier"):
        _do(app, "extend", ctx=app.ctx, now=app.clock(), until=START + timedelta(hours=24))
    assert _open(app).deadline == START + timedelta(hours=48)
    _do(
        app, "extend", ctx=app.ctx, now=app.clock(), until=START + timedelta(hours=24), earlier=True
    )
    assert _open(app).deadline == START + timedelta(hours=24)


def test_extending_a_deadline_moves_it_and_the_reminders(app: App) -> None:
    _game(app, settings={"reminders": ["2h"]})
    sweep(app.engine, ctx=app.ctx, now=_clock(app, hours=46))
    assert len(_mails(app, "reminder")) == 2
    _do(app, "extend", ctx=app.ctx, now=app.clock(), by=timedelta(hours=24))
    assert _open(app).deadline == START + timedelta(hours=72)
    assert sweep(app.engine, ctx=app.ctx, now=_clock(app, hours=49)) == []  # not closed
    sweep(app.engine, ctx=app.ctx, now=_clock(app, hours=70))
    assert len(_mails(app, "reminder")) == 4  # reminded again for the new deadline
    until = START + timedelta(days=5)
    _do(app, "extend", ctx=app.ctx, now=app.clock(), until=until)
    assert _open(app).deadline == until
    with pytest.raises(ServiceError, match="has passed already"):
        _do(app, "extend", ctx=app.ctx, now=app.clock(), until=START)


def test_players_are_added_and_removed_before_the_start(app: App) -> None:
    with session_scope(app.engine) as session:
        create_game(
            session,
            name="duel",
            kind="giveaway",
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("ann", "ben", "cat")],
            options={},
            now=app.clock(),
        )
    credentials = _do(app, "add_player", "dan", "Dan@Example.org", ctx=app.ctx, now=app.clock())
    assert credentials.address == "dan@example.org"
    assert [m.recipient for m in _mails(app, "welcome")] == ["dan@example.org"]
    with Session(app.engine) as session:
        game = find_game(session, "duel")
        assert sorted(rules_of(game).to_move(game_state(game))) == ["ann", "ben", "cat", "dan"]
    _do(app, "remove_player", "ben")
    with Session(app.engine) as session:
        game = find_game(session, "duel")
        assert sorted(rules_of(game).to_move(game_state(game))) == ["ann", "cat", "dan"]
        assert [s.handle for s in session.exec(select(Seat))] == ["ann", "cat", "dan"]
    with pytest.raises(ServiceError, match="has a player 'ann' already"):
        _do(app, "add_player", "ann", "x@example.org", ctx=app.ctx, now=app.clock())
    with pytest.raises(ServiceError, match="no player 'zed'"):
        _do(app, "remove_player", "zed")


def test_no_player_joins_a_running_game(app: App) -> None:
    _game(app)
    with pytest.raises(ServiceError, match="players can only be added before round 1"):
        _do(app, "add_player", "cat", "cat@example.org", ctx=app.ctx, now=app.clock())


def test_a_replacement_player_takes_over_the_seat_with_new_secrets(app: App) -> None:
    _game(app)
    with session_scope(app.engine) as session:
        seat = session.exec(select(Seat).where(Seat.handle == "ben")).one()
        seat.missed_rounds, seat.unreachable = 3, True
        session.add(seat)
    credentials = _do(app, "replace_player", "ben", "bea@example.org", ctx=app.ctx, now=app.clock())
    with Session(app.engine) as session:
        seat = session.exec(select(Seat).where(Seat.handle == "ben")).one()
    assert seat.address == "bea@example.org"
    assert (seat.missed_rounds, seat.unreachable) == (0, False)
    assert verify_secret(credentials.secret, seat.secret_hash)
    takeover = _mails(app, "takeover")  # the game so far, not a first welcome
    assert [m.recipient for m in takeover] == ["bea@example.org"]
    assert "Wednesday 04 March 2026, 12:00 UTC" in _text(takeover[0])  # the current deadline


def test_a_removed_player_stays_in_the_game_under_the_no_orders_rule(app: App) -> None:
    secrets = _game(app)
    ben = f"PASSWORD {secrets['ben']}\nFIRE"
    assert app.ingest(player_mail("duel", "ben", ben), channel="test") == "accepted"
    _do(app, "remove_player", "ben")  # his stored orders no longer count
    # and his mail is refused, with a word to him, whichever way he proves who he is
    assert app.ingest(player_mail("duel", "ben", ben, number=1), channel="test") == "rejected"
    assert "taken you out of game duel" in plain(queued(app, "removed")[0])
    _order(app, "ann", "FIRE")
    sweep(app.engine, ctx=app.ctx, now=_clock(app, hours=48))
    with Session(app.engine) as session:
        result = session.exec(select(RoundResult)).one()
        seat = session.exec(select(Seat).where(Seat.handle == "ben")).one()
        game = find_game(session, "duel")
    assert result.orders == {"ann": ["FIRE"]}
    # docs/rules/starship-combat.md: missing orders count as NOTHING, so ann's missile meets no shield.
    assert result.report["codes"]["ben"] == ["nmr-nothing"]
    assert result.report["public"]["destroyed"] == ["ben"]
    assert game.status == GameStatus.FINISHED
    assert seat.missed_rounds == 0  # not counted against a removed player
    assert not seat.active
    assert [m.recipient for m in _mails(app, "result")] == ["ann@example.org"]


def test_moves_sent_while_paused_wait_for_the_resume(app: App) -> None:
    """A paused game closes no round, a sequential one included; on resuming, a round whose
    orders are all in is adjudicated at once."""
    credentials = new_game(
        app, ["ann", "ben"], name="tm", kind="three-musketeers", schedule="48h",
        settings={"reminders": []},
    )  # fmt: skip
    secret = credentials["ann"].secret
    with session_scope(app.engine) as session:
        gm.pause(session, find_game(session, "tm"), ctx=app.ctx, now=_clock(app, hours=1))
    move = player_mail("tm", "ann", f"PASSWORD {secret}\na1-a2", number=1)
    assert app.ingest(move, channel="test") == "accepted"
    with Session(app.engine) as session:
        round_ = open_round_of(session, find_game(session, "tm"))
        assert round_ is not None
        assert round_.number == 1  # stored, not applied
    # Played in turns: the pause mail does not invite changing a move, and the move's
    # confirmation says it is stored, to be applied when the round can be adjudicated.
    for told in _mails(app, "paused"):
        assert "change them" not in _plain(told)
    (confirmation,) = _mails(app, "confirmation")
    assert "is stored" in str(_message(confirmation)["Subject"])
    assert "applied as soon as the round can be adjudicated" in " ".join(
        _plain(confirmation).split()
    )
    with session_scope(app.engine) as session:
        gm.resume(session, find_game(session, "tm"), ctx=app.ctx, now=_clock(app, hours=5))
    with Session(app.engine) as session:
        round_ = open_round_of(session, find_game(session, "tm"))
        assert round_ is not None
        assert round_.number == 2
        assert round_.deadline == START + timedelta(hours=5 + 48)  # from the resume
    assert _mails(app, "deadline_changed") == []  # the result mail carries the new deadline


def test_resuming_in_a_grace_period_moves_its_end(app: App) -> None:
    _game(app, settings={"reminders": [], "grace": "24h"})
    sweep(app.engine, ctx=app.ctx, now=_clock(app, hours=48))  # nobody ordered: grace until 72
    assert _open(app).grace_until == START + timedelta(hours=72)
    _do(app, "pause", ctx=app.ctx, now=_clock(app, hours=58))
    _do(app, "resume", ctx=app.ctx, now=_clock(app, hours=59))
    assert _open(app).deadline == START + timedelta(hours=73)  # the grace end, an hour later
    [moved, _] = _mails(app, "deadline_changed")
    assert "Thursday 05 March 2026, 13:00 UTC" in _text(moved)  # 73 h after the start
    assert sweep(app.engine, ctx=app.ctx, now=_clock(app, hours=72, minutes=30)) == []


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_rollback_discards_later_results_and_keeps_the_round_orders(
    database: str, request: pytest.FixtureRequest
) -> None:
    app: App = request.getfixturevalue("app" if database == "sqlite" else "pg_app")
    _game(app)
    for number, hours in ((1, 48), (2, 96), (3, 144)):
        _order(app, "ann", "SHIELD" if number != 2 else "NOTHING")
        sweep(app.engine, ctx=app.ctx, now=_clock(app, hours=hours))
    with Session(app.engine) as session:
        after_round_1 = (
            session.exec(select(RoundResult).join(Round).where(Round.number == 1)).one().state
        )
    before = len(_mails(app, "result"))
    done = _do(app, "rollback", 2, ctx=app.ctx, now=_clock(app, hours=150))
    assert (done.round.number, done.discarded_rounds) == (2, 3)  # rounds 2, 3 and the open 4
    with Session(app.engine) as session:
        game = find_game(session, "duel")
        rounds = {r.number: r.state for r in session.exec(select(Round))}
        assert rounds == {1: RoundState.REPORTED, 2: RoundState.OPEN}
        assert game.state == after_round_1
        assert game.current_round == 2
        kept = session.exec(select(OrderSet).where(OrderSet.round_id == done.round.id)).all()
        assert [o.lines for o in kept] == [["NOTHING"]]
    assert _open(app).deadline == START + timedelta(hours=150 + 48)
    with Session(app.engine) as session:
        # ben sent nothing in rounds 1-3: three misses in a row before, one (round 1) now that
        # rounds 2 and 3 are undone, so the game master is not told of misses undone.
        missed = {s.handle: s.missed_rounds for s in session.exec(select(Seat))}
        assert missed == {"ann": 0, "ben": 1}
    sweep(app.engine, ctx=app.ctx, now=_clock(app, hours=200))  # round 2 again
    assert len(_mails(app, "result")) == before + 2  # mailed again: new keys, not swallowed
    with pytest.raises(ServiceError, match="is open: nothing to roll back"):
        _do(app, "rollback", 3, ctx=app.ctx, now=app.clock())


def test_rollback_cancels_unsent_mail_of_the_discarded_rounds(app: App) -> None:
    _game(app)
    sweep(app.engine, ctx=app.ctx, now=_clock(app, hours=48))
    done = _do(app, "rollback", 1, ctx=app.ctx, now=app.clock())
    assert done.cancelled_mails == 2  # the two result mails, never sent
    results = _mails(app, "result")
    assert {m.status for m in results} == {OutboxStatus.FAILED}
    assert all("rolled back" in (m.last_error or "") for m in results)
    with Session(app.engine) as session:
        assert find_game(session, "duel").status == GameStatus.RUNNING


def test_a_removed_giveaway_player_can_be_given_nothing_and_cannot_win(app: App) -> None:
    """docs/rules/giveaway.md: a player the game master takes out neither gives nor receives;
    a gift to them is refused like a gift to a non-player, and they cannot win."""
    credentials = new_game(
        app, ["ann", "ben", "cat"], name="gw", schedule="48h", settings={"reminders": []}
    )
    secrets = {handle: c.secret for handle, c in credentials.items()}
    with session_scope(app.engine) as session:
        gm.remove_player(session, find_game(session, "gw"), "cat")
    gift = player_mail("gw", "ann", f"PASSWORD {secrets['ann']}\nGIVE 3 TO cat")
    assert app.ingest(gift, channel="test") == "rejected"
    assert "no longer playing" in plain(queued(app, "rejection")[0])
    to_ben = player_mail("gw", "ann", f"PASSWORD {secrets['ann']}\nGIVE 3 TO ben", number=1)
    assert app.ingest(to_ben, channel="test") == "accepted"
    with Session(app.engine) as session:
        state = game_state(find_game(session, "gw"))
    assert "cat" in state.inactive
    assert state.holding("cat") == 0
