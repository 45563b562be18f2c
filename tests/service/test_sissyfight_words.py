"""SiSSYFiGHT in its own words (issue 40, finding 21): docs/rules/sissyfight.md speaks of
turns, so do its mails, subjects and bodies alike."""

from __future__ import annotations

import re
from datetime import timedelta

from playing import add_orders, close_open_round, new_game, plain, player_mail, queued
from sqlmodel import Session

from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service import gm
from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.storage.db import session_scope


def test_a_sissyfight_player_reads_turn_in_subjects_and_bodies(app: App) -> None:
    creds = new_game(
        app, ["alice", "bob", "carol"], name="sf", kind="sissyfight", settings={"reminders": []}
    )
    body = f"PASSWORD {creds['alice'].secret}\nDEFEND\n"
    app.ingest(player_mail("sf", "alice", body, number=1), channel="pipe")
    (confirmation,) = [m for m in queued(app) if m["To"] == "alice@example.org"]
    assert "Orders received for turn 1" in str(confirmation["Subject"])
    assert "your orders for game sf, turn 1, are stored" in plain(confirmation)
    close_open_round(app, "sf")
    results = queued(app, "result")
    assert results
    for mail in results:
        assert str(mail["Subject"]) == "[sf] Turn 1 result"
        assert "turn 1 of SiSSYFiGHT 3000 game sf has been fought" in plain(mail)
        assert "round" not in str(mail["Subject"]).lower()


def _colours(app: App) -> dict[str, str]:
    with Session(app.engine) as session:
        game = find_game(session, "sf")
        return dict(rules_of(game).public_state(game_state(game))["colours"])


def _knock_out_alice(app: App) -> None:
    new_game(app, ["alice", "bob", "carol", "dave"], name="sf", kind="sissyfight")
    red = _colours(app)["alice"]
    for _ in range(2):  # three TEAMs: 6 chips a turn; alice's 10 are gone in two turns
        add_orders(app, "sf", "alice", f"SOLO {_colours(app)['bob']}")
        for handle in ("bob", "carol", "dave"):
            add_orders(app, "sf", handle, f"TEAM {red}")
        close_open_round(app, "sf")


def test_a_player_knocked_out_is_not_shown_the_next_deadline(app: App) -> None:
    """docs/rules/sissyfight.md: a player with no chips left is out and sends no more orders;
    the result that tells him so does not give him a deadline to order by, nor a calendar
    entry. The others still get both."""
    _knock_out_alice(app)
    last = [m for m in queued(app, "result") if "Turn 2 result" in str(m["Subject"])]
    told = {str(m["To"]).split("@")[0]: m for m in last}
    out = plain(told["alice"])
    assert "you are out of the game" in out.lower()
    assert "Deadline:" not in out
    assert not [p for p in told["alice"].iter_attachments() if p.get_filename("").endswith(".ics")]
    assert "Deadline:" in plain(told["bob"])


def test_a_player_knocked_out_is_not_told_of_a_new_deadline(app: App) -> None:
    """The game master's EXTEND tells the players still fighting, not the one knocked out."""
    _knock_out_alice(app)
    with session_scope(app.engine) as session:
        gm.extend(
            session, find_game(session, "sf"), ctx=app.ctx, now=app.clock(), by=timedelta(days=1)
        )
    told = sorted(str(m["To"]) for m in queued(app, "deadline_changed"))
    assert told == ["bob@example.org", "carol@example.org", "dave@example.org"]


def test_a_sissyfight_player_reads_turn_in_every_mail_of_a_turn(app: App) -> None:
    """The welcome, STATUS, HELP, HISTORY, press, an absence and every mail's footer speak of
    turns in SiSSYFiGHT, as its subjects do: no "Round 1 waits for your orders" under a
    subject of turn 1."""
    creds = new_game(
        app,
        ["alice", "bob", "carol"],
        name="sf",
        kind="sissyfight",
        settings={"reminders": [], "absence_days": 3},
        welcome=True,
    )
    password = f"PASSWORD {creds['alice'].secret}\n"
    for number, body in enumerate(
        ("STATUS", "HELP sf", "HISTORY", "SET ABSENCE 1d", "PRESS\nHello all\nENDPRESS"), 1
    ):
        app.ingest(player_mail("sf", "alice", password + body, number=number), channel="pipe")
    mails = queued(app)
    kinds = {str(m["Subject"]).split("] ", 1)[1].split(" ")[0] for m in mails}
    assert {"Welcome", "Answer", "History", "alice", "Press"} <= kinds, kinds
    for mail in mails:
        text = " ".join(plain(mail).split())
        # (the calendar file's name, sf-round-1.ics, is a name, not a word)
        said = re.findall(r"\b[Rr]ounds?\b(?!-\d)[^.]{0,30}", text)
        assert not said, (str(mail["Subject"]), said)
        assert "round" not in str(mail["Subject"]).lower()
