"""A game open for sign-up says it has not started (issue 40, finding 13; docs/commands.md,
"Signing up"): the welcome of a player who joins says how many more players the game waits
for and what happens then; orders sent before the start are answered "the game has not
started yet", not "too late"; LIST says how many players each sign-up game has and waits for."""

from __future__ import annotations

import re
from itertools import count

from playing import new_game, plain, player_mail, queued

from adjudicator.service.app import App

_numbers = count()
NEWCOMER = "jane@elsewhere.example"


def _open_game(app: App) -> None:
    """Giveaway "gw9" with alice, bob and carol, starting by itself with 5 players."""
    new_game(app, ["alice", "bob", "carol"], name="gw9", settings={"signup": 5}, start=False)


def _from(app: App, address: str, body: str) -> None:
    raw = player_mail("gw9", "jane", body, number=next(_numbers))
    app.ingest(raw.replace(b"jane@example.org", address.encode()), channel="pipe")


def _words(text: str) -> str:
    return " ".join(text.split())


def _last_answer(app: App) -> str:
    return _words(plain(queued(app, "answer")[-1]))


def test_list_says_how_many_players_a_sign_up_game_has_and_waits_for(app: App) -> None:
    _open_game(app)
    _from(app, NEWCOMER, "LIST\n")
    answer = _last_answer(app)
    assert "gw9: Giveaway, 3 players so far; starts with 5, so waits for 2 more" in answer


def test_the_welcome_of_a_sign_up_game_says_it_waits_and_early_orders_are_not_late(
    app: App,
) -> None:
    _open_game(app)
    _from(app, NEWCOMER, "JOIN gw9\n")
    code = re.search(r"JOIN gw9 ([0-9A-F]{8})", plain(queued(app, "answer")[-1]))
    assert code is not None
    _from(app, NEWCOMER, f"JOIN gw9 {code[1]}\n")
    (welcome,) = queued(app, "welcome")
    text = _words(plain(welcome))
    assert "Game gw9 has not started yet" in text
    assert "It has 4 of the 5 players it starts with and waits for 1 more." in text
    assert "it starts by itself, and every player gets the first round and its deadline" in text

    reply_to = str(welcome["Reply-To"])
    raw = player_mail("gw9", "jane", "GIVE 5 TO alice\n", number=next(_numbers))
    to_reply_address = raw.replace(b"jane@example.org", NEWCOMER.encode()).replace(
        b"judge@pbem.test", reply_to.encode()
    )
    app.ingest(to_reply_address, channel="pipe")
    early = queued(app)[-1]
    assert early["To"] == NEWCOMER
    subject = str(early["Subject"])
    body = _words(plain(early))
    assert "too late" not in subject.lower()
    assert "The game has not started yet" in subject
    assert "game gw9 has not started yet" in body
    assert "after the deadline" not in body
    assert "waits for 1 more" in body
