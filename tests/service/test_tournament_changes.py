"""What happens to a tournament on the way (docs/tournaments.md): players sign up by mail, a
player withdraws, another takes a player's place, a game master rolls one game back."""

from __future__ import annotations

import re

from playing import client_reply, new_game, plain, plain_mail, queued
from sqlmodel import Session
from test_tournaments import (
    FLAGS,
    MUSKETEERS,
    RSP_QUIET,
    RSP_TAKE_BACK,
    RSP_WIN,
    TM_LOSE,
    TM_WIN,
    _address,
    _move,
    _play_pairing,
    _round_games,
    _tournament_mails,
)

from adjudicator.readmodel.tournaments import standings_of
from adjudicator.service import gm
from adjudicator.service.app import App
from adjudicator.service.games import PlayerSpec, find_game
from adjudicator.service.tournament_signup import decide_join
from adjudicator.service.tournaments import (
    advance,
    create_tournament,
    find_tournament,
    replace_player,
    start_tournament,
    withdraw,
)
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import GameStatus, SubmissionStatus


def _start(app: App, name: str, kind: str, format: str, players: str, **more: object) -> None:
    with session_scope(app.engine) as session:
        tournament = create_tournament(
            session,
            name=name,
            kind=kind,
            format=format,
            players=[PlayerSpec(p, _address(p)) for p in players],
            schedule="72h",
            now=app.clock(),
            **more,  # type: ignore[arg-type]
        )
        start_tournament(session, tournament, ctx=app.ctx, now=app.clock())


def _current_round(app: App, name: str) -> int:
    with Session(app.engine) as session:
        return find_tournament(session, name).current_round


def test_a_withdrawal_forfeits_the_game_under_way_and_is_paired_no_more(app: App) -> None:
    """Swiss, four players, two rounds. Round 1: a-b, c-d. a wins his game as White, then
    withdraws: his game as Black is forfeited to b (and paused). c wins both against d.
    Scores a 1, b 1, c 2, d 0. Round 2 without a: ranked c b d, odd: d (the lowest, no bye yet)
    sits out; c-b, drawn 1-1. Final: c 3 (Buchholz d2 + b2 = 4), b 2 (a1 + c3 = 4),
    d 2 (c3 = 3: the bye adds nothing), a 1, withdrawn."""
    _start(app, "wd", "rock-scissors-paper", "swiss", "abcd", rounds=2, setup=FLAGS)
    games = _round_games(app, "wd", 1)
    (white,) = [g for g, p in games if p == ["a", "b"]]
    _move(app, white, "a", RSP_WIN)
    with session_scope(app.engine) as session:
        withdraw(session, find_tournament(session, "wd"), "a", ctx=app.ctx, now=app.clock())
    (black,) = [g for g, p in games if p == ["b", "a"]]
    with Session(app.engine) as session:
        assert find_game(session, black).status == GameStatus.PAUSED
    assert _current_round(app, "wd") == 1
    _play_pairing(app, games, "c", "d", 2, win=RSP_WIN, lose=RSP_QUIET, quiet=RSP_TAKE_BACK)
    assert _current_round(app, "wd") == 2
    second = _round_games(app, "wd", 2)
    assert sorted(p for _, p in second) == [["b", "c"], ["c", "b"]]
    assert "You have a bye this round" in plain(_tournament_mails(app, "d")[1])
    assert len(_tournament_mails(app, "a")) == 1, "no round-2 mail to a player who withdrew"
    _play_pairing(app, second, "c", "b", 1, win=RSP_WIN, lose=RSP_QUIET, quiet=RSP_TAKE_BACK)
    with Session(app.engine) as session:
        tournament = find_tournament(session, "wd")
        assert tournament.finished_at is not None
        table = standings_of(session, tournament)
    assert [(s.player, s.score, s.buchholz, s.withdrawn) for s in table] == [
        ("c", 3, 4, False),
        ("b", 2, 4, False),
        ("d", 2, 3, False),
        ("a", 1, 2, True),
    ]
    assert "(withdrawn)" in plain(_tournament_mails(app, "a")[-1])


def test_a_replacement_plays_on_in_the_games_under_way_and_the_rounds_to_come(
    app: App,
) -> None:
    """Round-robin of four: before round 1 is played, dora takes d's place. She is handed d's
    seats (a takeover mail for each game), plays d's Musketeers move by replying to it, and
    round 2's games of d come to her address, none to d's."""
    _start(app, "rep", "three-musketeers", "round-robin", "abcd", setup=MUSKETEERS)
    with session_scope(app.engine) as session:
        tournament = find_tournament(session, "rep")
        handed = replace_player(
            session, tournament, "d", "dora@example.org", ctx=app.ctx, now=app.clock()
        )
        assert len(handed) == 2  # d-a on both sides
    games = _round_games(app, "rep", 1)
    (d_first,) = [g for g, p in games if p == ["d", "a"]]
    takeover = [m for m in queued(app) if m["To"] == "dora@example.org"]
    assert any(f"[{d_first}]" in str(m["Subject"]) for m in takeover)
    mail = [m for m in takeover if f"[{d_first}]" in str(m["Subject"])][-1]
    raw = client_reply(mail, TM_WIN, sender="dora@example.org", message_id="<dora-1@example.org>")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    (a_first,) = [g for g, p in games if p == ["a", "d"]]
    _move(app, a_first, "a", TM_WIN)
    _play_pairing(app, games, "b", "c", 1, win=TM_WIN, lose=TM_LOSE)
    assert _current_round(app, "rep") == 2
    later = [m for m in queued(app) if "[rep" in str(m["Subject"]) and "r2" in str(m["Subject"])]
    assert later
    d_seats = [m for m in later if m["To"] in {"d@example.org", "dora@example.org"}]
    assert d_seats
    assert all(m["To"] == "dora@example.org" for m in d_seats)
    with Session(app.engine) as session:
        table = {s.player: s.score for s in standings_of(session, find_tournament(session, "rep"))}
    assert table == {"a": 1, "b": 1, "c": 1, "d": 1}


def test_a_rollback_of_one_game_holds_the_round_until_it_ends_again(app: App) -> None:
    """Round-robin of four. d loses his Musketeers game against a (d1-e1 lines them up); the
    game master rolls it back to round 1 and d plays e4-e5 instead. While the game is under way
    again, round 2 waits though the other three games of round 1 are over; then it is paired,
    and the standings count the new result: d 2 (he also won as the Cardinal), a 0."""
    _start(app, "rb", "three-musketeers", "round-robin", "abcd", setup=MUSKETEERS)
    games = _round_games(app, "rb", 1)
    (d_first,) = [g for g, p in games if p == ["d", "a"]]
    _move(app, d_first, "d", TM_LOSE)
    with session_scope(app.engine) as session:
        gm.rollback(session, find_game(session, d_first), 1, ctx=app.ctx, now=app.clock())
    (a_first,) = [g for g, p in games if p == ["a", "d"]]
    _move(app, a_first, "a", TM_LOSE)
    _play_pairing(app, games, "b", "c", 1, win=TM_WIN, lose=TM_LOSE)
    assert _current_round(app, "rb") == 1, "the rolled-back game is under way again"
    _move(app, d_first, "d", TM_WIN)
    assert _current_round(app, "rb") == 2
    with Session(app.engine) as session:
        table = {s.player: s.score for s in standings_of(session, find_tournament(session, "rb"))}
    assert table == {"a": 0, "b": 1, "c": 1, "d": 2}


def _join(app: App, who: str, line: str, number: int) -> str:
    """``who`` mails ``line`` to the service (no game tag); the answer's text."""
    raw = plain_mail(
        f"{who}@example.org", line, subject="join", message_id=f"<{who}-{number}@example.org>"
    )
    app.ingest(raw, channel="pipe")
    return plain([m for m in queued(app) if m["To"] == f"{who}@example.org"][-1])


def test_players_sign_up_by_mail_and_the_game_master_decides(app: App) -> None:
    """JOIN cup gets a code mailed back; JOIN cup CODE signs up, and under --approve waits
    for the game master, who is mailed each request with its code: he lets ann and bob in by
    replying APPROVE cup CODE, and turns carl away by the command line; the tournament then
    starts with ann and bob only."""
    with session_scope(app.engine) as session:
        create_tournament(
            session,
            name="cup",
            kind="rock-scissors-paper",
            format="swiss",
            rounds=1,
            players=[],
            signup=True,
            join_approve=True,
            setup=FLAGS,
            gm_address="gm@example.org",
            now=app.clock(),
        )
    for number, who in enumerate(["ann", "bob", "carl"]):
        asked = _join(app, who, "JOIN cup", 2 * number)
        (code,) = set(re.findall(r"JOIN cup ([0-9A-Z]{8})", asked))
        waits = _join(app, who, f"JOIN cup {code}", 2 * number + 1)
        assert f"You asked to join tournament cup as {who}" in " ".join(waits.split())
    assert "Its game master decides" in waits
    asks = [m for m in queued(app, "tournament_join") if m["To"] == "gm@example.org"]
    assert [str(m["Subject"]) for m in asks] == [
        f"[cup] {w} asks to join" for w in ("ann", "bob", "carl")
    ]
    assert "adjudicate tournament approve cup carl" in plain(asks[-1])
    assert "0 players have joined so far" in plain(asks[-1])  # ann and bob wait too
    for number, ask in enumerate(asks[:2]):  # the game master answers ann's and bob's by mail
        (line,) = re.findall(r"APPROVE cup [0-9A-F]{8}", plain(ask))
        raw = client_reply(ask, line, sender="gm@example.org", message_id=f"<gm-{number}@x>")
        assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    answer = plain([m for m in queued(app) if m["To"] == "gm@example.org"][-1])
    assert "bob is a player of tournament cup now, and has been told" in " ".join(answer.split())
    assert "the game master of tournament cup" in plain(
        [m for m in queued(app, "tournament_decided") if m["To"] == "ann@example.org"][-1]
    )
    with session_scope(app.engine) as session:
        tournament = find_tournament(session, "cup")
        decide_join(session, tournament, "carl", approve=False, ctx=app.ctx, now=app.clock())
    assert "declined your request to join" in _join(app, "carl", "JOIN cup", 8)
    with session_scope(app.engine) as session:
        start_tournament(session, find_tournament(session, "cup"), ctx=app.ctx, now=app.clock())
    assert sorted(p for _, p in _round_games(app, "cup", 1)) == [["ann", "bob"], ["bob", "ann"]]
    assert not [m for m in queued(app, "tournament") if m["To"] == "carl@example.org"]
    assert "tournament cup is not open for sign-up" in _join(app, "dan", "JOIN cup", 9)


def test_a_round_robin_withdrawal_forfeits_his_pairings_to_come(app: App) -> None:
    """Round-robin of four (rounds d-a, b-c; b-d, c-a; d-c, a-b). c withdraws before round 1
    is played: both games of b-c go to b by forfeit (and are paused); round 2's c-a and round
    3's d-c are made as forfeits, no game, and a and d are told so."""
    _start(app, "rrw", "three-musketeers", "round-robin", "abcd", setup=MUSKETEERS)
    with session_scope(app.engine) as session:
        withdraw(session, find_tournament(session, "rrw"), "c", ctx=app.ctx, now=app.clock())
    games = _round_games(app, "rrw", 1)
    _play_pairing(app, games, "d", "a", 1, win=TM_WIN, lose=TM_LOSE)
    assert _current_round(app, "rrw") == 2
    assert [p for _, p in _round_games(app, "rrw", 2)] == [["b", "d"], ["d", "b"]]
    told = plain(_tournament_mails(app, "a")[1])
    assert "c withdrew from the tournament: your game against him counts as won" in " ".join(
        told.split()
    )
    _play_pairing(app, _round_games(app, "rrw", 2), "b", "d", 1, win=TM_WIN, lose=TM_LOSE)
    _play_pairing(app, _round_games(app, "rrw", 3), "a", "b", 1, win=TM_WIN, lose=TM_LOSE)
    with Session(app.engine) as session:
        tournament = find_tournament(session, "rrw")
        assert tournament.finished_at is not None
        table = {s.player: (s.score, s.played) for s in standings_of(session, tournament)}
    # Forfeits count as games won and lost: b 2 + 1 + 1, a 1 + 2 + 1, d 1 + 1 + 2, c 0.
    assert table == {"a": (4, 6), "b": (4, 6), "d": (4, 6), "c": (0, 6)}


def test_a_pairing_that_fails_leaves_the_games_end_standing(app: App) -> None:
    """A game master made a game called jamr2g1 by hand: round 2's first game cannot have its
    name. The last game of round 1 still ends (its own end is not undone), the tournament stays
    at round 1, and pairing it again once the name is free makes round 2."""
    new_game(app, ["x", "y", "z"], name="jamr2g1")
    _start(app, "jam", "three-musketeers", "round-robin", "abcd", setup=MUSKETEERS)
    games = _round_games(app, "jam", 1)
    _play_pairing(app, games, "d", "a", 1, win=TM_WIN, lose=TM_LOSE)
    _play_pairing(app, games, "b", "c", 1, win=TM_WIN, lose=TM_LOSE)
    with Session(app.engine) as session:
        assert all(find_game(session, g).status == GameStatus.FINISHED for g, _ in games)
    assert _current_round(app, "jam") == 1
    with session_scope(app.engine) as session:
        find_game(session, "jamr2g1").name = "elsewhere"
    with session_scope(app.engine) as session:
        assert advance(session, find_tournament(session, "jam"), ctx=app.ctx, now=app.clock())
    assert _current_round(app, "jam") == 2


def test_a_rollback_of_a_game_of_an_earlier_round_holds_the_end(app: App) -> None:
    """Round-robin of four (d-a, b-c; b-d, c-a; d-c, a-b). Round 1: d loses his Musketeers
    game against a (d1-e1), wins nothing; a wins his; b-c 1-1; round 2 is paired. The game
    master then rolls d's lost game back: it is under way again and counts for nobody (the
    standings are read from the games: d 0, a 1). Rounds 2 and 3 are played, every pairing
    1-1: the last round is over, but the tournament is not, while the game of round 1 is
    under way (a 3, b 3, c 3, d 2). d then plays e4-e5 and wins it: the tournament is over,
    d 3 too, and only then the final standings are mailed."""
    _start(app, "rbe", "three-musketeers", "round-robin", "abcd", setup=MUSKETEERS)
    games = _round_games(app, "rbe", 1)
    (d_first,) = [g for g, p in games if p == ["d", "a"]]
    (a_first,) = [g for g, p in games if p == ["a", "d"]]
    _move(app, d_first, "d", TM_LOSE)
    _move(app, a_first, "a", TM_WIN)
    _play_pairing(app, games, "b", "c", 1, win=TM_WIN, lose=TM_LOSE)
    assert _current_round(app, "rbe") == 2
    with session_scope(app.engine) as session:
        gm.rollback(session, find_game(session, d_first), 1, ctx=app.ctx, now=app.clock())
    with Session(app.engine) as session:
        table = {s.player: s.score for s in standings_of(session, find_tournament(session, "rbe"))}
    assert table == {"a": 1, "b": 1, "c": 1, "d": 0}
    _play_pairing(app, _round_games(app, "rbe", 2), "b", "d", 1, win=TM_WIN, lose=TM_LOSE)
    _play_pairing(app, _round_games(app, "rbe", 2), "c", "a", 1, win=TM_WIN, lose=TM_LOSE)
    _play_pairing(app, _round_games(app, "rbe", 3), "d", "c", 1, win=TM_WIN, lose=TM_LOSE)
    _play_pairing(app, _round_games(app, "rbe", 3), "a", "b", 1, win=TM_WIN, lose=TM_LOSE)
    with Session(app.engine) as session:
        tournament = find_tournament(session, "rbe")
        assert tournament.current_round == 3
        assert tournament.finished_at is None, "a game of round 1 is under way again"
        table = {s.player: s.score for s in standings_of(session, tournament)}
    assert table == {"a": 3, "b": 3, "c": 3, "d": 2}
    assert "over" not in str(_tournament_mails(app, "a")[-1]["Subject"])
    _move(app, d_first, "d", TM_WIN)
    with Session(app.engine) as session:
        tournament = find_tournament(session, "rbe")
        assert tournament.finished_at is not None
        table = {s.player: s.score for s in standings_of(session, tournament)}
    assert table == {"a": 3, "b": 3, "c": 3, "d": 3}
    final = _tournament_mails(app, "a")[-1]
    assert str(final["Subject"]) == "[rbe] The tournament is over: final standings"
