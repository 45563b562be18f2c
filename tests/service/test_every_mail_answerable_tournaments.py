"""A tournament's mails to its players are answerable (issue 44, as issue 40 asks of every
mail): the round's mail (``tournament_round``) and the news of a withdrawal or a replacement
(``tournament_change``) carry the reply addresses of the player's seats in the games of the
round under way, so that a reply with orders or STATUS reaches those seats: bare orders where
the mail names one game, a GAME line above each game's orders where it names several, as in a
reply to the one answer about several games. (The game master's copy of the round's mail and
his replies to it: tests/service/test_tournament_gm_mail.py.)"""

from __future__ import annotations

from answering import new_message_id, note_of
from playing import client_reply, plain, queued
from sqlmodel import Session
from test_tournaments import (
    FLAGS,
    MUSKETEERS,
    RSP_WIN,
    TM_WIN,
    _address,
    _round_games,
    _tournament_mails,
)

from adjudicator.readmodel.tournaments import standings_of
from adjudicator.service.app import App
from adjudicator.service.games import PlayerSpec
from adjudicator.service.tournaments import (
    create_tournament,
    find_tournament,
    start_tournament,
    withdraw,
)
from adjudicator.storage.db import session_scope

TOURNAMENT = {"tournament_round", "tournament_change"}
"""The kinds of mail the plays below reply to, each read as the seats' of its games."""


def _start(app: App, name: str, kind: str, players: str, **more: object) -> None:
    with session_scope(app.engine) as session:
        tournament = create_tournament(
            session,
            name=name,
            players=[PlayerSpec(p, _address(p)) for p in players],
            kind=kind,
            schedule="72h",
            now=app.clock(),
            **more,  # type: ignore[arg-type]
        )
        start_tournament(session, tournament, ctx=app.ctx, now=app.clock())


def _reply(app: App, handle: str, body: str, *, kind: str = "tournament") -> str:
    """``handle`` replies to his newest mail of ``kind`` with ``body``, from his address and
    with no password; what the service did (the submission's note)."""
    mail = [m for m in queued(app, kind) if m["To"] == _address(handle)][-1]
    message_id = new_message_id()
    raw = client_reply(mail, body, sender=_address(handle), message_id=message_id)
    app.ingest(raw, channel="t")
    return note_of(app, message_id)


def test_a_reply_to_a_round_of_one_game_with_orders_plays_it(app: App) -> None:
    """A round-robin of two at Three Musketeers, one game a pairing (--sides one): the round's
    mail names one game; its Musketeers reply to it with e4-e5 alone, which wins
    (tests/service/test_tournaments.py), and the tournament is over: 1 to 0."""
    _start(
        app, "duo", "three-musketeers", "ab", format="round-robin", sides="one", setup=MUSKETEERS
    )
    ((game, (first, second)),) = _round_games(app, "duo", 1)
    (mail,) = _tournament_mails(app, first)
    text = " ".join(plain(mail).split())
    assert (
        f"A reply to this mail with your orders, or STATUS, reaches your seat in game {game}"
        in (text)
    )
    note = _reply(app, first, TM_WIN)
    assert "refused" not in note, note
    assert "no game" not in note, note
    with Session(app.engine) as session:
        tournament = find_tournament(session, "duo")
        assert tournament.finished_at is not None
        table = {s.player: s.score for s in standings_of(session, tournament)}
    assert table == {first: 1, second: 0}


def test_a_reply_to_a_round_of_two_games_reaches_each_by_its_game_line(app: App) -> None:
    """Rock, Scissors, Paper, a and b on both sides: the round's mail names two games. STATUS
    alone in a reply answers both of a's games; orders without a GAME line say which game is
    missing; a GAME line above them plays them in that game: a wins as White."""
    _start(app, "rsp", "rock-scissors-paper", "ab", format="swiss", rounds=1, setup=FLAGS)
    games = _round_games(app, "rsp", 1)
    (white,) = [g for g, p in games if p == ["a", "b"]]
    mail = _tournament_mails(app, "a")[-1]
    assert str(mail["Reply-To"]).count("+r") == 2  # both of his seats' reply addresses
    assert "put a line GAME and the game's name above the orders" in " ".join(plain(mail).split())
    assert "status sent" in _reply(app, "a", "STATUS")
    status = [m for m in queued(app, "answer") if m["To"] == _address("a")][-1]
    for game, _ in games:
        assert game in plain(status)
    assert "no game" in _reply(app, "a", RSP_WIN)
    note = _reply(app, "a", f"GAME {white}\n{RSP_WIN}")
    assert "refused" not in note, note
    assert "no game" not in note, note
    with Session(app.engine) as session:
        table = {s.player: s.score for s in standings_of(session, find_tournament(session, "rsp"))}
    assert table == {"a": 1, "b": 0}


def test_a_reply_to_the_news_of_a_withdrawal_reaches_the_seats(app: App) -> None:
    """Swiss of four at Rock, Scissors, Paper (a-b, c-d on both sides): the game master
    withdraws a; c, told so, replies STATUS to that mail and gets the status of his two games
    of the round (c-d), which its Reply-To names."""
    _start(app, "news", "rock-scissors-paper", "abcd", format="swiss", rounds=2, setup=FLAGS)
    with session_scope(app.engine) as session:
        withdraw(session, find_tournament(session, "news"), "a", ctx=app.ctx, now=app.clock())
    told = [m for m in queued(app, "tournament_change") if m["To"] == _address("c")][-1]
    assert str(told["Reply-To"]).count("+r") == 2
    (mine,) = [g for g, p in _round_games(app, "news", 1) if p[0] == "c"]
    assert f"(e.g. GAME {mine})" in " ".join(plain(told).split())
    assert "status sent" in _reply(app, "c", "STATUS", kind="tournament_change")
    status = [m for m in queued(app, "answer") if m["To"] == _address("c")][-1]
    for game, players in _round_games(app, "news", 1):
        assert (game in plain(status)) == ("c" in players), game
