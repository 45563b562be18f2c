"""Tournaments played by mail to their end (issue 44): a round-robin of four players of Three
Musketeers, each pairing on both sides, and a Swiss tournament of nine players of Rock,
Scissors, Paper over three rounds. Every move is a player's reply to his game's welcome mail;
the standings and tie-breaks are checked against the values worked out by hand in
tests/core/test_standings.py, and no mail to a player names another player's address."""

from __future__ import annotations

import re
from email.message import EmailMessage
from pathlib import Path

import pytest
from playing import client_reply, clock_of, plain, queued
from sqlmodel import Session

from adjudicator.archive.build import build_archive
from adjudicator.core.game import PieceSpec, Setup
from adjudicator.readmodel.tournaments import standings_of
from adjudicator.service.app import App
from adjudicator.service.closing import sweep
from adjudicator.service.games import PlayerSpec
from adjudicator.service.tournaments import (
    create_tournament,
    find_tournament,
    start_tournament,
)
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, SubmissionStatus
from adjudicator.storage.tournaments import games_of

MUSKETEERS = Setup(
    pieces=(
        PieceSpec("musketeers", "musketeer", "d1"),
        PieceSpec("musketeers", "musketeer", "e2"),
        PieceSpec("musketeers", "musketeer", "e4"),
        PieceSpec("cardinal", "man", "e1"),
        PieceSpec("cardinal", "man", "e5"),
    )
)
"""The Musketeers move first and decide the game at once (docs/rules/three-musketeers.md):
e4-e5 takes the last free man and leaves the one on e1 boxed in by d1 and e2, so the Cardinal
has no move and the Musketeers win; d1-e1 lines them up on file e, and the Cardinal wins."""
TM_WIN, TM_LOSE = "e4-e5", "d1-e1"

FLAGS = Setup(
    pieces=(
        PieceSpec("white", "flag", "A1"),
        PieceSpec("white", "rock", "H9"),
        PieceSpec("black", "flag", "I9"),
        PieceSpec("black", "rock", "B1"),
    )
)
"""Each side's Rock stands next to the enemy Flag (docs/rules/rock-scissors-paper.md: any
piece captures an enemy Flag by ending on it). White moves first: H9-I9 takes Black's Flag and
wins; H9-H8 does not, and Black's B1-A1 then takes White's."""
RSP_WIN, RSP_QUIET, RSP_TAKE_BACK = "H9-I9", "H9-H8", "B1-A1"


def _address(handle: str) -> str:
    return f"{handle}@example.org"


def _game_mails(app: App, game: str, handle: str) -> list[EmailMessage]:
    return [m for m in queued(app) if m["To"] == _address(handle) and f"[{game}]" in m["Subject"]]


def _move(app: App, game: str, handle: str, move: str) -> None:
    """``handle`` replies to the newest mail of ``game`` he got with ``move``."""
    mail = _game_mails(app, game, handle)[-1]
    raw = client_reply(
        mail, move, sender=_address(handle), message_id=f"<{game}-{handle}-{move}@example.org>"
    )
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED, plain(mail)


def _round_games(app: App, name: str, number: int) -> list[tuple[str, list[str]]]:
    with Session(app.engine) as session:
        tournament = find_tournament(session, name)
        rows = [r for r in games_of(session, tournament) if r.round == number and r.game_id]
        return [(g.name, r.players) for r in rows if (g := session.get(Game, r.game_id))]


def _play_pairing(
    app: App, games: list[tuple[str, list[str]]], a: str, b: str, a_points: int, *, win: str,
    lose: str, quiet: str | None = None,
) -> None:  # fmt: skip
    """Play the two games of the pairing a-b so that ``a`` wins ``a_points`` of them: in each,
    the first seat plays ``win``, or, to lose, ``lose``, after which the second seat plays
    ``quiet`` where the game needs a move of his to end."""
    for game, (first, second) in [(g, p) for g, p in games if set(p) == {a, b}]:
        first_wins = a_points >= 1 if first == a else a_points <= 1  # 1-1: both firsts win
        if first_wins:
            _move(app, game, first, win)
        else:
            _move(app, game, first, lose)
            if quiet is not None:
                _move(app, game, second, quiet)


def _tournament_mails(app: App, handle: str) -> list[EmailMessage]:
    return [m for m in queued(app, "tournament") if m["To"] == _address(handle)]


def test_a_round_robin_of_four_three_musketeers_on_both_sides(app: App, tmp_path: Path) -> None:
    """The circle method pairs d-a, b-c; b-d, c-a; d-c, a-b (tests/core/test_pairing.py),
    each pairing two games, one with each player as the Musketeers. Results, match points out
    of 2: d-a 2-0, b-c 1-1; b-d 1-1, c-a 0-2; d-c 1-1, a-b 1-1. By hand
    (tests/core/test_standings.py): d 4 (Buchholz 8, Sonneborn-Berger 11), b 3 (9, 9),
    a 3 (9, 7), c 2 (10, 7). The archive draws the same standings, and links every game."""
    players = list("abcd")
    with session_scope(app.engine) as session:
        tournament = create_tournament(
            session,
            name="musk",
            kind="three-musketeers",
            format="round-robin",
            players=[PlayerSpec(p, _address(p)) for p in players],
            setup=MUSKETEERS,
            schedule="72h",
            now=app.clock(),
        )
        assert tournament.rounds == 3
        start_tournament(session, tournament, ctx=app.ctx, now=app.clock())
    plan = {1: [("d", "a", 2), ("b", "c", 1)], 2: [("b", "d", 1), ("c", "a", 0)],
            3: [("d", "c", 1), ("a", "b", 1)]}  # fmt: skip
    for number, pairings in plan.items():
        games = _round_games(app, "musk", number)
        assert sorted(tuple(sorted(p)) for _, p in games) == sorted(
            tuple(sorted((x, y))) for x, y, _ in pairings for _ in range(2)
        )
        for x, y, points in pairings:
            _play_pairing(app, games, x, y, points, win=TM_WIN, lose=TM_LOSE)
    with Session(app.engine) as session:
        tournament = find_tournament(session, "musk")
        assert tournament.finished_at is not None
        table = standings_of(session, tournament)
    assert [(s.rank, s.player, s.score, s.buchholz, s.sonneborn_berger) for s in table] == [
        (1, "d", 4, 8, 11),
        (2, "b", 3, 9, 9),
        (3, "a", 3, 9, 7),
        (4, "c", 2, 10, 7),
    ]
    mails = _tournament_mails(app, "a")
    assert [str(m["Subject"]) for m in mails] == [
        "[musk] Round 1 of 3: your pairing",
        "[musk] Round 2 of 3: your pairing",
        "[musk] Round 3 of 3: your pairing",
        "[musk] The tournament is over: final standings",
    ]
    first = plain(mails[0])
    assert re.search(r"Game musk\w+: you play d as the Musketeers", first)
    assert re.search(r"Game musk\w+: you play d as the Cardinal", first)
    final = plain(mails[-1])
    assert re.search(r"1\. d\s+4\s+8\s+11", final)
    assert re.search(r"3\. a\s+3\s+9\s+7", final)
    _no_other_address(app, players)

    build_archive(app.engine, tmp_path / "site")
    page = (tmp_path / "site" / "tournaments" / "musk.html").read_text()
    assert "@" not in page
    rows = re.findall(r"<tr><td class=\"num\">(\d)</td><th scope=\"row\">(\w)</th>(.*?)</tr>", page)
    assert [(rank, who, re.findall(r">([\d½]+)<", rest)[:3]) for rank, who, rest in rows] == [
        ("1", "d", ["4", "8", "11"]),
        ("2", "b", ["3", "9", "9"]),
        ("3", "a", ["3", "9", "7"]),
        ("4", "c", ["2", "10", "7"]),
    ]
    for game, _ in _round_games(app, "musk", 1):
        assert f'<a href="../{game}/index.html">{game}</a>' in page
        assert (tmp_path / "site" / game / "index.html").exists()
    assert (
        '<a href="musk.html">musk</a>'
        in (tmp_path / "site" / "tournaments" / "index.html").read_text()
    )
    # The site's front page leads to the tournaments.
    assert '<a href="tournaments/index.html">' in (tmp_path / "site" / "index.html").read_text()


def _no_other_address(app: App, players: list[str]) -> None:
    """No mail to a player names another player's address."""
    for mail in queued(app):
        to = str(mail["To"])
        text = plain(mail) if mail.get_body(preferencelist=("plain",)) else ""
        for other in players:
            if _address(other) != to:
                assert _address(other) not in text, (to, mail["Subject"])


@pytest.mark.slow  # three rounds of matches on both sides played by mail: many seconds
def test_a_swiss_of_nine_rock_scissors_paper_over_three_rounds(app: App) -> None:
    """Monrad pairings (tests/core/test_pairing.py): round 1 a-b, c-d, e-f, g-h, i a bye;
    round 2 a-f, g-i, c-b, d-e, h a bye; round 3 i-a, c-f, d-g, h-e, b a bye. Results, match
    points out of 2, byes worth 2: a-b 2-0, c-d 1-1, e-f 0-2, g-h 2-0; a-f 1-1, g-i 0-2,
    c-b 2-0, d-e 1-1; i-a 1-1, c-f 2-0, d-g 0-2, h-e 2-0. In round 3, d never moves as White
    against g: he forfeits at the end of his deadline and its grace period. By hand
    (tests/core/test_standings.py): i 5 (Buchholz 8), c 5 (7), g 4 (11), a 4 (10), h 4 (5),
    f 3, d 2 (10), b 2 (9), e 1."""
    players = list("abcdefghi")
    with session_scope(app.engine) as session:
        tournament = create_tournament(
            session,
            name="cup",
            kind="rock-scissors-paper",
            format="swiss",
            rounds=3,
            players=[PlayerSpec(p, _address(p)) for p in players],
            setup=FLAGS,
            schedule="72h",
            now=app.clock(),
        )
        start_tournament(session, tournament, ctx=app.ctx, now=app.clock())
    plan = {
        1: [("a", "b", 2), ("c", "d", 1), ("e", "f", 0), ("g", "h", 2)],
        2: [("a", "f", 1), ("g", "i", 0), ("c", "b", 2), ("d", "e", 1)],
        3: [("i", "a", 1), ("c", "f", 2), ("h", "e", 2), ("d", "g", 0)],
    }
    for number, pairings in plan.items():
        games = _round_games(app, "cup", number)
        assert sorted(tuple(sorted(p)) for _, p in games if len(p) == 2) == sorted(
            tuple(sorted((x, y))) for x, y, _ in pairings for _ in range(2)
        )
        for x, y, points in pairings:
            if number == 3 and x == "d":
                (white,) = [g for g, p in games if p == ["g", "d"]]
                _move(app, white, "g", RSP_WIN)  # g wins as White; d, White, stays silent
                continue
            _play_pairing(
                app, games, x, y, points, win=RSP_WIN, lose=RSP_QUIET, quiet=RSP_TAKE_BACK
            )
    clock = clock_of(app)
    for _ in range(20):  # deadline, reminders, grace: d forfeits, the last game of round 3
        clock.advance(hours=24)
        sweep(app.engine, ctx=app.ctx, now=clock.now)
        app.report()
    with Session(app.engine) as session:
        tournament = find_tournament(session, "cup")
        assert tournament.finished_at is not None
        table = standings_of(session, tournament)
    assert [(s.player, s.score, s.buchholz, s.sonneborn_berger) for s in table] == [
        ("i", 5, 8, 12),
        ("c", 5, 7, 12),
        ("g", 4, 11, 12),
        ("a", 4, 10, 12),
        ("h", 4, 5, 2),
        ("f", 3, 10, 6),
        ("d", 2, 10, 6),
        ("b", 2, 9, 0),
        ("e", 1, 9, 2),
    ]
    bye = plain(_tournament_mails(app, "b")[2])
    assert "You have a bye this round" in bye
    _no_other_address(app, players)


def test_a_giveaway_tournament_seats_its_players_at_tables(app: App) -> None:
    """Six players of Giveaway at tables of three: round 1, all on 0, seated by seed: a b c
    at the first table, d e f at the second (tests/core/test_pairing.py); each is told his
    table by handle, never by address."""
    players = list("abcdef")
    with session_scope(app.engine) as session:
        tournament = create_tournament(
            session,
            name="gw",
            kind="giveaway",
            format="swiss",
            rounds=2,
            table_size=3,
            players=[PlayerSpec(p, _address(p)) for p in players],
            schedule="72h",
            now=app.clock(),
        )
        start_tournament(session, tournament, ctx=app.ctx, now=app.clock())
    assert _round_games(app, "gw", 1) == [("gwr1g1", ["a", "b", "c"]), ("gwr1g2", ["d", "e", "f"])]
    (mail,) = _tournament_mails(app, "e")
    assert "Game gwr1g2: you play d and f." in plain(mail)
    _no_other_address(app, players)
