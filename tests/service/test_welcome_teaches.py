"""The welcome holds what a newcomer needs to play round 1 (issue: mails that teach): what
their seat plays, the board of a board game, the order syntax, who moves first, and an example
the game accepts now; never a path inside our repository."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from playing import new_game, plain, player_mail, queued

from adjudicator.notify.times import local_time
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.announcements import tell_started
from adjudicator.service.app import App
from adjudicator.service.closing import begin_game
from adjudicator.service.games import PlayerSpec, create_game, find_game
from adjudicator.storage.db import session_scope


def _welcomes(app: App, kind: str, handles: list[str]) -> dict[str, str]:
    new_game(app, handles, kind=kind, welcome=True)
    return {str(m["To"]).split("@")[0]: plain(m) for m in queued(app, "welcome")}


def _example(text: str) -> list[str]:
    """The indented lines after "For example, orders valid now:"."""
    after = text.split("For example, orders valid now:\n\n", 1)[1]
    return [line.strip() for line in after.split("\n\n", 1)[0].splitlines()]


def test_the_welcome_of_a_board_game_says_the_side_the_board_and_who_moves_first(
    app: App,
) -> None:
    # docs/rules/three-musketeers.md: the first seat plays the Musketeers, who move first.
    welcomes = _welcomes(app, "three-musketeers", ["athos", "richelieu"])
    first, second = welcomes["athos"], welcomes["richelieu"]
    assert "You play the Musketeers." in first
    assert "You play the Cardinal's men." in second
    for text in (first, second):
        assert "The board at the start:" in text
        assert "docs/rules" not in text  # no path inside our repository
    assert "You move first." in first
    assert "athos moves first" in second
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        checked = rules_of(game).check(game_state(game), "athos", _example(first))
    assert checked.ok
    assert len(checked.orders) == 1


def test_the_welcome_of_a_simultaneous_game_has_orders_valid_for_the_first_round(
    app: App,
) -> None:
    welcomes = _welcomes(app, "giveaway", ["alice", "bob", "carol"])
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        rules, state = rules_of(game), game_state(game)
        for handle, text in welcomes.items():
            assert "Round 1 waits for your orders." in text
            assert re.search(r"^      GIVE <points> TO <player>$", text, re.MULTILINE)
            assert rules.check(state, handle, _example(text)).ok


SEATS = {
    "giveaway": ["alice", "bob", "carol"],
    "sissyfight": ["alice", "bob", "carol"],
    "starship-combat": ["kirk", "kang"],
    "three-musketeers": ["athos", "richelieu"],
    "rock-scissors-paper": ["wanda", "boris"],
}

STARTS = {
    # What the first seat is told of its start, as docs/rules/<game>.md give it.
    "giveaway": ["You hold 3 points to give away this round.", "scores 100 or more"],
    "sissyfight": [
        "Your colour is red, and you have 10 chips.",  # the first seat is red
        "green    bob, 10 chips",
        "blue     carol, 10 chips",
    ],
    "starship-combat": [
        "Your ship has 3 missiles and shield power for 6 rounds.",
        "kang's ship has 3 missiles and shield power for 6 rounds.",
        "after 30 rounds the game is a draw",
    ],
    "three-musketeers": ["You have 3 Musketeers (M) against 22 of the Cardinal's men (o)."],
    "rock-scissors-paper": [
        "Your pieces are marked w on the board: 3 Rocks, 4 Scissors, 5 Papers, 2 Flags.",
        "The first Flag captured ends the game",
    ],
}


@pytest.mark.parametrize("kind", sorted(SEATS))
def test_the_welcome_names_the_seats_side_colour_and_resources(app: App, kind: str) -> None:
    welcomes = _welcomes(app, kind, SEATS[kind])
    first = welcomes[SEATS[kind][0]]
    assert [fact for fact in STARTS[kind] if fact not in first] == []


def test_the_second_seat_is_told_its_own_colour_and_the_others(app: App) -> None:
    # docs/rules/sissyfight.md: "the first player is red, the second green, then blue".
    text = _welcomes(app, "sissyfight", SEATS["sissyfight"])["bob"]
    assert "Your colour is green, and you have 10 chips." in text
    assert "red      alice, 10 chips" in text
    assert "green    bob" not in text


def test_with_a_published_archive_the_welcome_links_to_the_rules_page(app: App) -> None:
    app.ctx = replace(app.ctx, archive_url="https://pbem.example.org/games/")
    text = _welcomes(app, "starship-combat", SEATS["starship-combat"])["kirk"]
    link = "https://pbem.example.org/games/rules/starship-combat.html"
    assert f"The full rules, with examples: {link}" in text
    assert "Worked example: the sample game" not in text  # the rules are not in the mail


def test_without_an_archive_the_welcome_carries_the_rules(app: App) -> None:
    new_game(app, SEATS["starship-combat"], kind="starship-combat", welcome=True)
    mail = next(m for m in queued(app, "welcome") if str(m["To"]).startswith("kirk@"))
    text = plain(mail)
    assert "The full rules, with examples, are at the end of this mail." in text
    rules = text.split("The rules of Starship Combat, as the service adjudicates them", 1)[1]
    for heading in ("Orders", "What happens each round", "End of the game"):
        assert f"\n{heading}\n{'-' * len(heading)}\n" in rules
    assert "each ship starts with *3 missiles*" in " ".join(rules.split()).lower()
    html = mail.get_body(preferencelist=("html",))
    assert html is not None
    content = str(html.get_content())
    assert ">End of the game</h2>" in content
    assert content.count("automatic message from the game service") == 1  # the footer, once


def test_the_first_deadline_names_the_time_zone_once(app: App) -> None:
    text = _welcomes(app, "giveaway", SEATS["giveaway"])["alice"]
    [line] = [line for line in text.splitlines() if line.startswith("First deadline:")]
    assert re.fullmatch(r"First deadline: \w+day \d\d \w+ \d{4}, \d\d:\d\d UTC\.", line), line


def test_a_time_in_a_players_zone_names_the_zone_once() -> None:
    # 12:00 UTC on 5 March 2026 is 13:00 in Berlin (winter time, UTC+1).
    moment = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)
    assert (
        local_time(moment, "Europe/Berlin") == "Thursday 05 March 2026, 13:00 CET (Europe/Berlin)"
    )
    assert local_time(moment, "UTC") == "Thursday 05 March 2026, 12:00 UTC"


def test_the_two_times_of_an_hour_that_falls_back_read_apart() -> None:
    # London falls back at 02:00 BST on 31 October 2027: 01:30 comes twice, an hour apart.
    first, second = datetime(2027, 10, 31, 0, 30, tzinfo=UTC), datetime(2027, 10, 31, 1, 30)
    assert local_time(first, "Europe/London") == "Sunday 31 October 2027, 01:30 BST (Europe/London)"
    assert (
        local_time(second.replace(tzinfo=UTC), "Europe/London")
        == "Sunday 31 October 2027, 01:30 GMT (Europe/London)"
    )


def test_a_table_of_the_rules_in_a_welcome_keeps_its_columns(app: App) -> None:
    """Issue 40, finding 21: the rules' tables in a plain-text welcome are tables, not odd
    lists; docs/rules/giveaway.md has a worked example with a wide last column."""
    new_game(app, SEATS["giveaway"], kind="giveaway", welcome=True)
    text = plain(queued(app, "welcome")[0])
    assert re.search(r"\nRound +alice +bob +carol +dave +What happens\n-----  -----  ", text), text
    assert re.search(r"\n1 +4 +4 +100 +100 +100 is reached", text)
    assert "- Round: 1" not in text
    table = text.split("\nRound  alice", 1)[1].split("\n\nIn round 2", 1)[0]
    assert max(len(line) for line in table.splitlines()) <= 72  # the rules' width


def test_a_game_started_later_tells_each_player_what_the_welcome_could_not(app: App) -> None:
    """A game created without starting welcomes its players before seats are final; the
    "game started" mail then brings the colour, an example valid now and the rules' place."""
    app.ctx = replace(app.ctx, archive_url="https://pbem.example.org/games/")
    with session_scope(app.engine) as session:
        game, _credentials = create_game(
            session,
            name="sf1",
            kind="sissyfight",
            players=[PlayerSpec(p, f"{p}@example.org") for p in SEATS["sissyfight"]],
            options={},
            schedule="72h",
            settings={},
            now=app.clock(),
        )
        first = begin_game(session, game, ctx=app.ctx, now=app.clock())
        session.flush()
        tell_started(session, ctx=app.ctx, game=game, first_round=first, now=app.clock())
    mails = {str(m["To"]).split("@")[0]: plain(m) for m in queued(app, "started")}
    carol = mails["carol"]
    assert "Your colour is blue, and you have 10 chips." in carol  # the third seat
    assert "Turn 1 waits for your orders. For example, orders valid now:" in carol  # its word
    assert "https://pbem.example.org/games/rules/sissyfight.html" in carol
    with session_scope(app.engine) as session:
        game = find_game(session, "sf1")
        after = carol.split("For example, orders valid now:\n\n", 1)[1]
        lines = [line.strip() for line in after.split("\n\n", 1)[0].splitlines()]
        assert rules_of(game).check(game_state(game), "carol", lines).ok


def _help_answer(app: App, game: str, sender: str) -> str:
    app.ingest(player_mail(game, sender, f"HELP {game}\n", number=1), channel="pipe")
    [answer] = queued(app, "answer")
    return plain(answer)


def test_help_for_a_game_tells_the_seat_its_position_and_links_the_rules(app: App) -> None:
    """HELP for a game: the order syntax, an example valid in the asker's own position, what
    their seat has now, and where the full rules are."""
    new_game(app, SEATS["starship-combat"], name="duel", kind="starship-combat")
    app.ctx = replace(app.ctx, archive_url="https://pbem.example.org/games/")
    text = _help_answer(app, "duel", "kang")
    assert "Your ship has 3 missiles and shield power for 6 rounds." in text
    assert "kirk's ship has 3 missiles" in text
    assert "https://pbem.example.org/games/rules/starship-combat.html" in text
    assert "What happens each round" not in text  # linked, not carried


def test_help_for_a_game_without_an_archive_carries_the_rules(app: App) -> None:
    new_game(app, SEATS["three-musketeers"], name="tm1", kind="three-musketeers")
    text = _help_answer(app, "tm1", "stranger")  # anybody may ask; no seat, no position
    assert "You have 3 Musketeers" not in text
    rules = text.split("The rules of Three Musketeers, as the service adjudicates them", 1)[1]
    assert "\nEnd of the game\n---------------\n" in rules
