"""What a webhook posts in each format (issue 42): Discord's and Slack's incoming-webhook
JSON, a readable message (who, what, the deadline in the game's time zone) in which text from
players cannot mention anybody or make a link; the generic JSON with its versioned schema;
the format guessed from the URL."""

from __future__ import annotations

import json
import re

from adjudicator.notify.webhook_formats import SCHEMA, body_of, guess_format, neutral

EVENT = {
    "event": "round.waiting",
    "game": {"name": "gw1", "kind": "giveaway", "time_zone": "Europe/Paris"},
    "round": 2,
    "time": "2026-03-02T12:00:00+00:00",
    "payload": {
        "deadline": "2026-03-05T12:00:00+00:00",
        "deadline_local": "Thursday 05 March 2026, 13:00 CET (Europe/Paris)",
        "waiting": ["bob", "@everyone"],
    },
}


def test_the_format_is_guessed_from_plain_discord_and_slack_addresses() -> None:
    assert guess_format("https://discord.com/api/webhooks/1/abc") == "discord"
    assert guess_format("https://discordapp.com/api/webhooks/1/abc") == "discord"
    assert guess_format("https://hooks.slack.com/services/T/B/X") == "slack"
    assert guess_format("https://discord.com.evil.example/api/webhooks/1") == "json"
    assert guess_format("https://example.org/hook") == "json"


def test_discord_gets_a_readable_message_that_mentions_nobody() -> None:
    body = json.loads(body_of(EVENT, chat="discord", delivery="d"))
    assert body["allowed_mentions"] == {"parse": []}
    text = body["content"]
    assert "**gw1**: round 2 still waits for bob and" in text
    assert "Thursday 05 March 2026, 13:00 CET (Europe/Paris)" in text
    assert "@everyone" not in text


def test_slack_gets_a_readable_message_with_its_markup_escaped() -> None:
    event = {**EVENT, "game": {**EVENT["game"], "name": "<!channel> <https://x.example|y>"}}
    text = json.loads(body_of(event, chat="slack", delivery="d"))["text"]
    assert "<!channel>" not in text
    assert "<https://" not in text
    assert "&lt;!channel&gt;" in text


def test_player_text_cannot_mention_or_link() -> None:
    for chat in ("discord", "slack"):
        for text in ("@everyone", "@here", "<@123456>", "<@&42>", "https://evil.example"):
            shown = neutral(text, chat)
            assert "@everyone" not in shown
            assert "@here" not in shown
            assert not re.search(r"(?<!\\)<@", shown)  # Discord shows "\<" as "<"
            assert "@1" not in shown
            assert "@&" not in shown
            assert "https://" not in shown


def test_the_generic_format_is_the_versioned_schema() -> None:
    body = json.loads(body_of(EVENT, chat="json", delivery="d-1"))
    assert body["schema"] == SCHEMA == "adjudicator.webhook/1"
    assert body["delivery"] == "d-1"
    assert {k: body[k] for k in ("event", "game", "round", "time", "payload")} == EVENT


def test_a_tournaments_round_is_worded_with_the_pairing_and_standings_neutralised() -> None:
    event = {
        "event": "tournament.round",
        "game": {"name": "cup", "kind": "tournament", "time_zone": None},
        "round": 2,
        "time": "2026-03-02T12:00:00+00:00",
        "payload": {
            "player": "ann",
            "rounds": 3,
            "final": False,
            "pairing": [{"game": "cupr2g1", "opponents": ["@everyone"], "side": "White"}],
            "standings": [
                {"rank": 1, "player": "@everyone", "score": "1", "withdrawn": False},
                {"rank": 2, "player": "ann", "score": "0", "withdrawn": False},
            ],
        },
    }
    text = json.loads(body_of(event, chat="discord", delivery="d"))["content"]
    assert text.startswith("**cup**: round 2, ann: cupr2g1 against @")
    assert "Standings: 1. @" in text
    assert "2. ann 0." in text
    assert "@everyone" not in text
