"""A series of Giveaway games played by mail to its end (issue 44, docs/tournaments.md): four
players at one table for two rounds, every gift a player's reply to his round's mail, and the
standings by the placing table over the game's finer placings (the winner, then the others by
their score of the last round, equal scores sharing places and their points), checked against
values worked out by hand."""

from __future__ import annotations

from fractions import Fraction

from answering import new_message_id, note_of
from playing import client_reply, plain, queued
from sqlmodel import Session
from test_tournaments import _address, _round_games, _tournament_mails

from adjudicator.readmodel.tournaments import standings_of
from adjudicator.service.app import App
from adjudicator.service.games import PlayerSpec, find_game
from adjudicator.service.tournaments import create_tournament, find_tournament, start_tournament
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import GameStatus

PLAN = (
    {"W": ((1, "T1"), (1, "T2"), (1, "L")), "T1": ((3, "W"),), "T2": ((3, "W"),), "L": ((3, "W"),)},
    {"W": ((4, "T1"), (4, "T2"), (4, "L")), "T1": ((4, "W"),), "T2": ((4, "W"),), "L": ((4, "W"),)},
    {"W": ((11, "T1"), (11, "T2"), (5, "L")), "T1": ((11, "W"),), "T2": ((11, "W"),),
     "L": ((11, "W"),)},
    {"W": ((25, "T1"), (25, "T2"), (8, "L")), "T1": ((25, "W"),), "T2": ((25, "W"),),
     "L": ((8, "W"),)},
)  # fmt: skip
"""Four rounds of a game that W wins with T1 and T2 tied and L last (docs/rules/giveaway.md).
Holdings 3 each. Round 1: no ring (W gives 1 each, gets 3 from each): scores W 9, others 1.
Round 2 (holdings 12, 4, 4, 4): rings W-T1, W-T2, W-L of 4 pay 8 each way: W 24, others 8.
Round 3 (27, 11, 11, 11): rings W-T1, W-T2 of 11 (22 each way); W gives L 5, L gives 11: no
ring. W 22 + 22 + 11 = 55, T1 22, T2 22, L 5. Round 4 (58, 25, 25, 8): rings of 25, 25 and 8:
W 50 + 50 + 16 = 116, T1 50, T2 50, L 16. 116 is the highest unique score past 100: W wins."""


def _give(app: App, handle: str, gifts: tuple[tuple[int, str], ...], roles: dict[str, str]) -> None:
    """``handle`` replies to his newest round mail with his gifts (no password, no GAME line:
    the mail names one game, whose seat its Reply-To reaches)."""
    mail = [m for m in queued(app, "tournament") if m["To"] == _address(handle)][-1]
    body = "\n".join(f"GIVE {amount} TO {roles[to]}" for amount, to in gifts)
    message_id = new_message_id()
    app.ingest(
        client_reply(mail, body, sender=_address(handle), message_id=message_id), channel="t"
    )
    assert "refused" not in note_of(app, message_id)


def _play_game(app: App, game: str, roles: dict[str, str]) -> None:
    for gifts in PLAN:
        for role, given in gifts.items():
            _give(app, roles[role], given, roles)
        with Session(app.engine) as session:
            assert find_game(session, game).status != GameStatus.RUNNING or (gifts is not PLAN[-1])
    with Session(app.engine) as session:
        assert find_game(session, game).status == GameStatus.FINISHED


def test_a_giveaway_series_scores_by_placing_with_shared_places(app: App) -> None:
    """Round 1: a wins, b and c tie (50 each), d last: placing table of four 3, 2, 1, 0, so
    a 3, b and c (2 + 1) / 2 = 1½ each, d 0. Round 2, seated by score (a, b, c, d): b wins,
    a and d tie, c last: b 3, a 1½, d 1½, c 0. Totals a 4½, b 4½, c 1½, d 1½. Each met every
    other once a round: Buchholz a 2 x (4½ + 1½ + 1½) = 15, b 15, c 2 x (4½ + 4½ + 1½) = 21,
    d 21. Sonneborn-Berger a 3 x 7½ + 1½ x 7½ = 33¾, b the same, c 1½ x 10½ = 15¾, d the same.
    Equal on everything (one game won each, none won by c and d): a and b share rank 1, c and
    d rank 3. (By the winners alone, as before, the losers would have shared 1 point each.)"""
    with session_scope(app.engine) as session:
        tournament = create_tournament(
            session,
            name="gs",
            kind="giveaway",
            format="swiss",
            rounds=2,
            table_size=4,
            players=[PlayerSpec(p, _address(p)) for p in "abcd"],
            schedule="72h",
            now=app.clock(),
        )
        start_tournament(session, tournament, ctx=app.ctx, now=app.clock())
    ((first, seated),) = _round_games(app, "gs", 1)
    assert seated == ["a", "b", "c", "d"]
    _play_game(app, first, {"W": "a", "T1": "b", "T2": "c", "L": "d"})
    with Session(app.engine) as session:
        after_one = {
            s.player: s.score for s in standings_of(session, find_tournament(session, "gs"))
        }
    assert after_one == {"a": 3, "b": Fraction(3, 2), "c": Fraction(3, 2), "d": 0}
    ((second, seated),) = _round_games(app, "gs", 2)
    assert seated == ["a", "b", "c", "d"]
    _play_game(app, second, {"W": "b", "T1": "a", "T2": "d", "L": "c"})
    with Session(app.engine) as session:
        tournament = find_tournament(session, "gs")
        assert tournament.finished_at is not None
        table = standings_of(session, tournament)
    half, quarter = Fraction(1, 2), Fraction(1, 4)
    assert [(s.rank, s.player, s.score, s.buchholz, s.sonneborn_berger) for s in table] == [
        (1, "a", 4 + half, 15, 33 + 3 * quarter),
        (1, "b", 4 + half, 15, 33 + 3 * quarter),
        (3, "c", 1 + half, 21, 15 + 3 * quarter),
        (3, "d", 1 + half, 21, 15 + 3 * quarter),
    ]
    final = plain(_tournament_mails(app, "c")[-1])
    assert "The tournament is over" in str(_tournament_mails(app, "c")[-1]["Subject"])
    assert "1. a" in final
    assert "1. b" in final
    assert "3. c" in final
    assert "3. d" in final
