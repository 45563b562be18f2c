"""SiSSYFiGHT in its own words (issue 40, finding 21): docs/rules/sissyfight.md speaks of
turns, so do its mails, subjects and bodies alike."""

from __future__ import annotations

from playing import close_open_round, new_game, plain, player_mail, queued

from adjudicator.app import App


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
