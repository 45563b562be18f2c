"""The club (issue 44; docs/club.md): a player's record and reliability across games, told by
WHOIS and RECORD, and the game master's minimum reliability at JOIN and TAKE. Played by mail
through the service: mails in, mails out."""

from __future__ import annotations

import re
from itertools import count
from pathlib import Path

from playing import clock_of, close_open_round, new_game, plain, plain_mail, player_mail, queued
from sqlmodel import select
from test_ratings import _duel

from adjudicator.archive.build import build_archive
from adjudicator.base.security import join_code, resign_code, take_code
from adjudicator.readmodel.stored import game_state
from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.service.handover import find_seat
from adjudicator.service.offers import offer_seat
from adjudicator.service.rounds import open_round_of
from adjudicator.service.tournaments import (
    club_ratings,
    create_tournament,
    find_tournament,
    start_tournament,
)
from adjudicator.storage import queries
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Round, SeatOffer, SubmissionStatus
from adjudicator.storage.tournaments import players_of

_numbers = count()
GM = "gm@example.org"


def _send(app: App, game: str, handle: str, body: str) -> SubmissionStatus | None:
    return app.ingest(player_mail(game, handle, body, number=next(_numbers)), channel="pipe")


def _global(app: App, sender: str, body: str) -> SubmissionStatus | None:
    """A mail to the service's own address about no game."""
    number = next(_numbers)
    raw = plain_mail(sender, body, subject="club", message_id=f"<club{number}@example.org>")
    return app.ingest(raw, channel="pipe")


def _last_to(app: App, address: str) -> str:
    mails = [m for m in queued(app) if m["To"] == address]
    assert mails, f"no mail to {address}"
    return " ".join(plain(mails[-1]).split())


def _round_times(app: App, game: str) -> Round:
    with session_scope(app.engine) as session:
        round_ = open_round_of(session, find_game(session, game))
        assert round_ is not None
        session.expunge(round_)
        return round_


def _give_all(
    app: App, game: str, handle: str, to: str, secret: str, *, sender: str | None = None
) -> None:
    """``handle`` gives every point he holds to ``to``, by mail (from ``sender``, or the
    handle's address at example.org), from the clock's moment."""
    with session_scope(app.engine) as session:
        holding = game_state(find_game(session, game)).holding(handle)
    body = f"PASSWORD {secret}\nGIVE {holding} TO {to}"
    number = next(_numbers)
    raw = plain_mail(
        sender or f"{handle}@example.org",
        body,
        subject=f"[{game}] orders",
        message_id=f"<give{number}@example.org>",
    )
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED


def _play_rounds(app: App, game: str, script: str, secret: str | None) -> None:
    """One round per letter of ``script`` for ann: ``o`` on time (an hour after the round
    opened), ``l`` late (an hour past the deadline, in the grace period), ``m`` missed. Bob and
    cy send nothing. Each round closes after ann's orders (or at its deadline)."""
    clock = clock_of(app)
    for kept in script:
        round_ = _round_times(app, game)
        assert round_.deadline is not None
        if kept == "o":
            clock.now = round_.opened_at + (round_.deadline - round_.opened_at) / 72
            _give_all(app, game, "ann", "bob", secret or "")
            clock.now = round_.deadline
        elif kept == "l":
            clock.now = round_.deadline + (round_.deadline - round_.opened_at) / 72
            _give_all(app, game, "ann", "bob", secret or "")
        else:
            clock.now = round_.deadline
        close_open_round(app, game)


def test_reliability_after_a_series_of_rounds_follows_the_documented_formula(app: App) -> None:
    """docs/club.md: reliability = 100 x (on time + 1/2 x late) / rounds over the last 20
    rounds, rounded half up. Ann keeps 3 rounds on time, 2 late, 1 missed: 100 x (3 + 1) / 6
    = 66.67, so 67. Bob and cy missed all 6: 0."""
    _reliability_by_mail(app)


def test_reliability_on_postgresql(pg_app: App) -> None:
    _reliability_by_mail(pg_app)


def _reliability_by_mail(app: App) -> None:
    ann = new_game(app, ["ann", "bob", "cy"], name="g1", settings={"grace": "48h"})["ann"]
    _play_rounds(app, "g1", "oolmol", ann.secret)

    _send(app, "g1", "bob", "WHOIS ann")
    answer = _last_to(app, "bob@example.org")
    assert "WHOIS ann:" in answer
    assert "Rounds: 3 ordered on time, 2 late, 1 missed." in answer
    assert "Reliability: 67 out of 100 (over the last 6 rounds)." in answer
    assert "Games: 1 played, 0 finished, 0 won." in answer
    assert "ann@example.org" not in answer

    _global(app, "ann@example.org", "WHOIS bob")
    answer = _last_to(app, "ann@example.org")
    assert "Rounds: 0 ordered on time, 0 late, 6 missed." in answer
    assert "Reliability: 0 out of 100" in answer
    assert "bob@example.org" not in answer


def test_a_join_below_the_games_minimum_is_refused_with_both_numbers(app: App) -> None:
    """A game master's ``min_reliability=80``: ann (67, as above) is refused at her first
    JOIN, told her figure and the game's; dan, with no round counted yet (100), gets his code."""
    ann = new_game(app, ["ann", "bob", "cy"], name="g1", settings={"grace": "48h"})["ann"]
    _play_rounds(app, "g1", "oolmol", ann.secret)
    new_game(
        app,
        ["eve", "fay", "gus"],
        name="g2",
        start=False,
        gm_address=GM,
        settings={"signup": 5, "min_reliability": 80},
    )

    _global(app, "ann@example.org", "JOIN g2")
    refused = _last_to(app, "ann@example.org")
    assert "game g2 asks for a reliability of 80 or more, and yours is 67" in refused
    assert "JOIN g2" in refused
    code = join_code(app.ctx.receipt_key, "g2", "ann@example.org")
    assert code not in refused

    _global(app, "ann@example.org", f"JOIN g2 {code}")  # the code, had some other way
    assert "yours is 67" in _last_to(app, "ann@example.org")
    with session_scope(app.engine) as session:
        handles = {s.handle for s in queries.seats_of(session, find_game(session, "g2").id)}
    assert handles == {"eve", "fay", "gus"}

    _global(app, "dan@example.org", "JOIN g2")
    welcome = _last_to(app, "dan@example.org")
    assert join_code(app.ctx.receipt_key, "g2", "dan@example.org") in welcome


def test_the_game_master_asks_for_a_players_record_by_mail(app: App) -> None:
    """RECORD ann@example.org, to the game master's own address: her record, named by the
    address he gave and no handle."""
    ann = new_game(app, ["ann", "bob", "cy"], name="g1", settings={"grace": "48h"})["ann"]
    _play_rounds(app, "g1", "ol", ann.secret)
    new_game(app, ["eve", "fay", "gus"], name="g3", gm_address=GM, told=True)
    with session_scope(app.engine) as session:
        token = find_game(session, "g3").gm_token
    assert token is not None
    gm_mails = [m for m in queued(app) if m["To"] == GM]
    reply_to = str(gm_mails[-1]["Reply-To"]) if gm_mails else None
    assert reply_to, "the game master's notice carries his reply address"
    listed = " ".join(plain(gm_mails[-1]).split())
    assert "RECORD ADDRESS the record and reliability of the person at ADDRESS" in listed
    raw = plain_mail(GM, "RECORD ann@example.org", subject="[g3]", message_id="<r1@x>", to=reply_to)
    app.ingest(raw, channel="pipe")
    answer = _last_to(app, GM)
    assert "The record of ann@example.org:" in answer
    assert "Rounds: 1 ordered on time, 1 late, 0 missed." in answer
    assert "Reliability: 75 out of 100" in answer
    assert not re.search(r"\bann\b(?!@)", answer)


def test_a_take_below_the_games_minimum_is_refused_with_both_numbers(app: App) -> None:
    """The game master offers a seat of a game with ``min_reliability=80``: ann (67) is
    refused it, with her figure and the game's; the seat stays on offer."""
    ann = new_game(app, ["ann", "bob", "cy"], name="g1", settings={"grace": "48h"})["ann"]
    _play_rounds(app, "g1", "oolmol", ann.secret)
    new_game(app, ["eve", "fay", "gus"], name="g4", gm_address=GM, settings={"min_reliability": 80})
    with session_scope(app.engine) as session:
        game = find_game(session, "g4")
        offer_seat(
            session,
            game,
            find_seat(session, game, "gus"),
            ctx=app.ctx,
            now=app.clock(),
            reason="gm",
        )
        offer = session.exec(select(SeatOffer)).one()
        assert offer.id is not None
        code = take_code(app.ctx.receipt_key, offer.id, "ann@example.org")
    _global(app, "ann@example.org", f"TAKE g4 {code}")
    refused = _last_to(app, "ann@example.org")
    assert "game g4 asks for a reliability of 80 or more, and yours is 67" in refused
    with session_scope(app.engine) as session:
        assert session.exec(select(SeatOffer)).one().taken_at is None
        assert find_seat(session, find_game(session, "g4"), "gus").address == "gus@example.org"


def test_the_players_page_shows_handles_only_and_set_public_off_leaves_a_player_off(
    app: App, tmp_path: Path
) -> None:
    """docs/club.md, "Being shown": the archive's players' page and rating lists name players
    by handle, never by address; after ann's SET PUBLIC OFF (a mail with no game) she is on
    neither, and WHOIS tells nothing of her."""
    ann = new_game(app, ["ann", "bob", "cy"], name="g1", settings={"grace": "48h"})["ann"]
    _play_rounds(app, "g1", "oo", ann.secret)
    site = tmp_path / "site"
    build_archive(app.engine, site, now=app.clock())
    players = (site / "players.html").read_text(encoding="utf-8")
    for handle in ("ann", "bob", "cy"):
        assert f'<th scope="row">{handle}</th>' in players
    assert "@" not in players

    assert _global(app, "ann@example.org", f"PASSWORD {ann.secret}\nSET PUBLIC OFF") == (
        SubmissionStatus.ACCEPTED
    )
    assert "SET PUBLIC OFF: you are left off the players' page" in _last_to(app, "ann@example.org")
    build_archive(app.engine, site, now=app.clock())
    players = (site / "players.html").read_text(encoding="utf-8")
    assert '<th scope="row">ann</th>' not in players
    assert '<th scope="row">bob</th>' in players
    for page in (site / "ratings").glob("*.html"):
        assert ">ann<" not in page.read_text(encoding="utf-8")

    _send(app, "g1", "bob", "WHOIS ann")
    answer = _last_to(app, "bob@example.org")
    assert "WHOIS ann: this player keeps his record to himself (SET PUBLIC OFF)." in answer
    assert "Reliability" not in answer


def test_a_resigned_seat_taken_over_counts_for_both_players(app: App) -> None:
    """docs/club.md, "A player's record": cy resigns after ordering round 1 on time; dan takes
    the seat and orders round 2 on time. Cy's record: one seat left (by resigning), one
    round on time, reliability 100 - 10 = 90; dan's: one seat taken over, one round on time
    (round 1 closed before his time), reliability 100."""
    creds = new_game(app, ["ann", "bob", "cy"], name="g1", settings={"grace": "48h"})
    clock = clock_of(app)
    clock.advance(hours=1)
    _give_all(app, "g1", "cy", "ann", creds["cy"].secret or "")
    clock.advance(hours=71)
    close_open_round(app, "g1")

    clock.advance(hours=1)
    with session_scope(app.engine) as session:
        cy = find_seat(session, find_game(session, "g1"), "cy")
        assert cy.id is not None
        code = resign_code(app.ctx.receipt_key, cy.id, cy.reply_token)
    _send(app, "g1", "cy", f"PASSWORD {creds['cy'].secret}\nRESIGN {code}")
    with session_scope(app.engine) as session:
        offer = session.exec(select(SeatOffer)).one()
        assert offer.id is not None
        take = take_code(app.ctx.receipt_key, offer.id, "dan@example.org")
    _global(app, "dan@example.org", f"TAKE g1 {take}")
    with session_scope(app.engine) as session:
        assert find_seat(session, find_game(session, "g1"), "cy").address == "dan@example.org"
    welcome = [m for m in queued(app) if m["To"] == "dan@example.org"]
    secret = re.search(r"PASSWORD (\S+)", " ".join(plain(m) for m in welcome))
    assert secret is not None
    clock.advance(hours=1)
    _give_all(app, "g1", "cy", "ann", secret[1], sender="dan@example.org")
    clock.advance(hours=70)
    close_open_round(app, "g1")

    _global(app, "ann@example.org", "WHOIS cy")  # the newest holder of the handle: dan
    answer = _last_to(app, "ann@example.org")
    assert "Seats: 1 taken over from another player; 0 left before the end." in answer
    assert "Resigned: 0." in answer
    assert "Rounds: 1 ordered on time, 0 late, 0 missed." in answer
    assert "Reliability: 100 out of 100 (over the last 1 round)." in answer
    assert "dan@example.org" not in answer

    refused = _whois_by_record(app, "cy@example.org")
    assert "Seats: 0 taken over from another player; 1 left before the end." in refused
    assert "Resigned: 1." in refused
    assert "Rounds: 1 ordered on time, 0 late, 0 missed." in refused
    assert "Reliability: 90 out of 100 (over the last 1 round; less 10 for 1 seat left" in refused


def _whois_by_record(app: App, address: str) -> str:
    """The game master's RECORD of ``address``, by mail to his own reply address."""
    new_game(app, ["eve", "fay", "gus"], name="gm1", gm_address=GM, told=True)
    reply_to = str([m for m in queued(app) if m["To"] == GM][-1]["Reply-To"])
    raw = plain_mail(GM, f"RECORD {address}", subject="[gm1]", message_id="<r2@x>", to=reply_to)
    app.ingest(raw, channel="pipe")
    return _last_to(app, GM)


def _sign_up(app: App, who: str, name: str) -> str:
    """``who`` signs up to tournament ``name`` by mail (JOIN, then JOIN with the code mailed
    back); the last answer."""
    _global(app, f"{who}@example.org", f"JOIN {name}")
    asked = _last_to(app, f"{who}@example.org")
    codes = set(re.findall(rf"JOIN {name} ([0-9A-Z]{{8}})", asked))
    if len(codes) != 1:
        return asked
    _global(app, f"{who}@example.org", f"JOIN {name} {codes.pop()}")
    return _last_to(app, f"{who}@example.org")


def _signup_tournament(app: App, name: str, kind: str, **settings: object) -> None:
    with session_scope(app.engine) as session:
        create_tournament(
            session,
            name=name,
            kind=kind,
            format="swiss",
            rounds=1,
            players=[],
            signup=True,
            gm_address=GM,
            settings=settings,
            now=app.clock(),
        )


def test_a_tournament_seeds_its_players_by_their_rating_in_its_kind(app: App) -> None:
    """docs/tournaments.md, "Seeds": the rated players by rating, best first, then the others in
    the order they signed up. Ann beats bob, then cy beats ann, at Starship Combat: cy rates
    above ann above bob (docs/club.md); dan has no rated game. They sign up dan, cy, bob, ann:
    the seeds are cy, ann, bob, dan, and a Monrad round 1 pairs 1-2 and 3-4: cy plays ann and
    bob plays dan (in sign-up order it would have been dan-cy and bob-ann)."""
    _duel(app, "d1", "ann", "bob")
    _duel(app, "d2", "cy", "ann")
    _signup_tournament(app, "cup", "starship-combat")
    for who in ("dan", "cy", "bob", "ann"):
        assert "You have joined tournament cup" in " ".join(_sign_up(app, who, "cup").split())
    with session_scope(app.engine) as session:
        tournament = find_tournament(session, "cup")
        start_tournament(  # as ``adjudicate tournament start`` does
            session, tournament, ctx=app.ctx, now=app.clock(), ratings=club_ratings(session)
        )
    rounds = {m["To"]: " ".join(plain(m).split()) for m in queued(app, "tournament")}
    assert "you play ann" in rounds["cy@example.org"]
    assert "you play cy" in rounds["ann@example.org"]
    assert "you play dan" in rounds["bob@example.org"]
    assert "you play bob" in rounds["dan@example.org"]


def test_a_tournament_join_below_its_minimum_or_band_is_refused_with_both_numbers(
    app: App,
) -> None:
    """A tournament carries ``min_reliability`` and ``rating`` as a game does (docs/club.md):
    ann (67, as above) is refused at her JOIN with both figures; dan, with no round counted
    (100) and no rated game of Giveaway (1500), joins a tournament open to 1400-1600 and is
    refused by one open to 1600 or more, told its band and his rating."""
    ann = new_game(app, ["ann", "bob", "cy"], name="g1", settings={"grace": "48h"})["ann"]
    _play_rounds(app, "g1", "oolmol", ann.secret)
    _signup_tournament(app, "cup", "giveaway", min_reliability=80, rating="1400-1600")
    _signup_tournament(app, "elite", "giveaway", rating="1600-")

    refused = _sign_up(app, "ann", "cup")
    assert "tournament cup asks for a reliability of 80 or more, and yours is 67" in refused
    assert join_code(app.ctx.receipt_key, "tournament:cup", "ann@example.org") not in refused
    assert "You have joined tournament cup" in " ".join(_sign_up(app, "dan", "cup").split())
    refused = " ".join(_sign_up(app, "dan", "elite").split())
    assert (
        "tournament elite is open to players rated 1600 or more in Giveaway, and your rating "
        "there is 1500" in refused
    )
    with session_scope(app.engine) as session:
        cup, elite = find_tournament(session, "cup"), find_tournament(session, "elite")
        assert [p.handle for p in players_of(session, cup)] == ["dan"]
        assert players_of(session, elite) == []
