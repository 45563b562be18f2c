"""A tournament's game master by mail (docs/tournaments.md): he gets each round's mail with the
tournament's game master's reply address, and a reply to it with ``WITHDRAW handle`` or
``REPLACE handle WITH address`` withdraws or replaces a player as the command line does; the
players are told, by handle only. Mail to any other address, or from a player, runs nothing."""

from __future__ import annotations

from email.message import EmailMessage

from playing import client_reply, plain, plain_mail, queued
from sqlmodel import Session
from test_tournaments import (
    FLAGS,
    RSP_QUIET,
    RSP_TAKE_BACK,
    RSP_WIN,
    _address,
    _move,
    _round_games,
    _tournament_mails,
)

from adjudicator.readmodel.tournaments import standings_of
from adjudicator.service.app import App
from adjudicator.service.games import PlayerSpec, find_game
from adjudicator.service.tournaments import create_tournament, find_tournament, start_tournament
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import GameStatus, SubmissionStatus

GM = "gm@example.org"
DORA = "dora@example.org"


def _start(app: App) -> None:
    with session_scope(app.engine) as session:
        tournament = create_tournament(
            session,
            name="wd",
            kind="rock-scissors-paper",
            format="swiss",
            rounds=2,
            players=[PlayerSpec(p, _address(p)) for p in "abcd"],
            setup=FLAGS,
            schedule="72h",
            gm_address=GM,
            now=app.clock(),
        )
        start_tournament(session, tournament, ctx=app.ctx, now=app.clock())


def _to(app: App, address: str, kind: str | None = None) -> list[EmailMessage]:
    return [m for m in queued(app, kind) if m["To"] == address]


def _text(mail: EmailMessage) -> str:
    return " ".join(plain(mail).split())


def _gm_reply(app: App, body: str, number: int) -> str:
    """The game master replies to his newest tournament mail; the answer he gets."""
    mail = _to(app, GM, "tournament")[-1]
    raw = client_reply(mail, body, sender=GM, message_id=f"<gm-{number}@example.org>")
    app.ingest(raw, channel="pipe")
    return _text(_to(app, GM)[-1])


def test_the_game_master_gets_each_round_with_his_own_reply_address(app: App) -> None:
    """Round 1 (a-b, c-d, both sides): his mail names every game and its players by handle,
    carries the tournament's reply address and lists WITHDRAW and REPLACE; no address."""
    _start(app)
    (mail,) = _to(app, GM, "tournament")
    assert str(mail["Subject"]) == "[wd] Round 1 of 2: your pairing"
    assert "+t" in str(mail["Reply-To"])
    text = _text(mail)
    for game, players in _round_games(app, "wd", 1):
        assert f"Game {game}: {' - '.join(players)}." in text
    assert "WITHDRAW handle" in text
    assert "REPLACE handle new@address" in text
    assert "@example.org" not in text


def test_withdraw_and_replace_by_mail(app: App) -> None:
    """Swiss of four, two rounds. a wins his game as White against b, then the game master
    replies to his round mail: WITHDRAW a, REPLACE d WITH dora@example.org. a's game as Black
    is forfeited to b and paused; b is told it counts as won, a that he is withdrawn; dora is
    handed d's two seats and told she takes d's place, d that his place is another's, c that
    d is another person now (no address). dora plays d's games; c wins both. Round 2, a out:
    c 2, b 1, d 0 ranked c b d, odd: d has the bye (2 points), c-b; its mail goes to dora."""
    _start(app)
    games = _round_games(app, "wd", 1)
    (white,) = [g for g, p in games if p == ["a", "b"]]
    (black,) = [g for g, p in games if p == ["b", "a"]]
    _move(app, white, "a", RSP_WIN)
    answer = _gm_reply(app, "WITHDRAW a\nREPLACE d WITH dora@example.org", 1)
    assert "line 1: WITHDRAW a Done: a is withdrawn and paired no more" in answer
    assert f"forfeited to his opponents and paused: {black}." in answer
    assert "line 2: REPLACE d WITH dora@example.org Done: d is played from dora@example.org" in (
        answer
    )
    with Session(app.engine) as session:
        assert find_game(session, black).status == GameStatus.PAUSED
        tournament = find_tournament(session, "wd")
        assert tournament.current_round == 1

    (told_b,) = _to(app, _address("b"), "tournament_change")[:1]
    assert str(told_b["Subject"]) == "[wd] a is withdrawn from the tournament"
    assert f"Your game {black} against a counts as won by you (by forfeit)" in _text(told_b)
    (told_a,) = _to(app, _address("a"), "tournament_change")
    assert "has withdrawn you from it" in _text(told_a)
    assert black in _text(told_a)
    newcomer = _to(app, DORA, "tournament_change")
    assert [str(m["Subject"]) for m in newcomer] == ["[wd] You take the place of d"]
    assert "Your place in the tournament is another person's" in str(
        _to(app, _address("d"), "tournament_change")[-1]["Subject"]
    )
    told_c = _to(app, _address("c"), "tournament_change")[-1]
    assert str(told_c["Subject"]) == "[wd] d is played by another person"
    assert "dora" not in plain(told_c)
    for mail in queued(app, "tournament_change"):  # handles only: never another's address
        for other in ("a", "b", "c", "d", "dora"):
            if mail["To"] != f"{other}@example.org":
                assert f"{other}@example.org" not in plain(mail), mail["Subject"]

    # dora plays d's seats from the takeover mails: White loses quietly, Black is taken.
    (d_white,) = [g for g, p in games if p == ["d", "c"]]
    (c_white,) = [g for g, p in games if p == ["c", "d"]]
    takeover = [m for m in queued(app) if m["To"] == DORA and f"[{d_white}]" in m["Subject"]]
    raw = client_reply(takeover[-1], RSP_QUIET, sender=DORA, message_id="<dora-1@example.org>")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    _move(app, d_white, "c", RSP_TAKE_BACK)
    _move(app, c_white, "c", RSP_WIN)
    with Session(app.engine) as session:
        tournament = find_tournament(session, "wd")
        assert tournament.current_round == 2
        table = {s.player: (s.score, s.withdrawn) for s in standings_of(session, tournament)}
    # d's bye of round 2 counts at once: a won pairing, 2 points (docs/tournaments.md).
    assert table == {"a": (1, True), "b": (1, False), "c": (2, False), "d": (2, False)}
    assert sorted(p for _, p in _round_games(app, "wd", 2)) == [["b", "c"], ["c", "b"]]
    bye = [m for m in _to(app, DORA, "tournament") if "Round 2" in str(m["Subject"])]
    assert "You have a bye this round" in plain(bye[0])
    assert not [m for m in _tournament_mails(app, "d") if "Round 2" in str(m["Subject"])]


def test_only_the_game_masters_reply_address_runs_the_tournament(app: App) -> None:
    """WITHDRAW b from the game master's own address but to the service's (not his reply
    address) is refused; so is a player's WITHDRAW in a reply to his round mail. In the game
    master's reply: a player who is not in the tournament, a withdrawal made twice and a
    game's command are each NOT DONE, with why; the good line is done."""
    _start(app)
    raw = plain_mail(GM, "WITHDRAW b", subject="[wd] withdraw", message_id="<gm-x@example.org>")
    app.ingest(raw, channel="pipe")
    assert "taken only from mail to the tournament's game master's own address" in _text(
        _to(app, GM)[-1]
    )
    player_round = _tournament_mails(app, "c")[-1]
    raw = client_reply(player_round, "WITHDRAW b", sender=_address("c"), message_id="<c-1@x>")
    app.ingest(raw, channel="pipe")
    assert "WITHDRAW: not done. WITHDRAW is a command of a tournament's game master" in _text(
        _to(app, _address("c"))[-1]
    )
    with Session(app.engine) as session:
        assert not any(s.withdrawn for s in standings_of(session, find_tournament(session, "wd")))
    answer = _gm_reply(app, "WITHDRAW zed\nWITHDRAW b\nWITHDRAW b\nPAUSE", 2)
    assert "line 1: WITHDRAW zed NOT DONE: 'zed' is not a player of tournament wd" in answer
    assert "line 2: WITHDRAW b Done: b is withdrawn" in answer
    assert "line 3: WITHDRAW b NOT DONE: b has withdrawn already" in answer
    assert "line 4: PAUSE NOT DONE: PAUSE is a game's command" in answer
    with Session(app.engine) as session:
        table = {
            s.player: s.withdrawn for s in standings_of(session, find_tournament(session, "wd"))
        }
    assert table == {"a": False, "b": False, "c": False, "d": False} | {"b": True}
