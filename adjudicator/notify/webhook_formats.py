"""What a webhook posts: one event (``webhook.py`` builds it) in the receiver's format.

- ``json``: the generic format, a versioned schema (:data:`SCHEMA`, docs/webhooks.md): the
  event's name, its game, round, time and payload, and the delivery's id.
- ``discord``: a Discord incoming webhook's message (``content``), no mention allowed.
- ``slack``: a Slack incoming webhook's message (``text``, in Slack's mrkdwn).

The chat formats word the event for people: who, what, and the deadline in the game's time zone.
Every text that came from a player or a game master (a handle, a game's name) is neutralised
for the chat it goes to (:func:`neutral`): no ``@everyone``, ``@here``, ``<@id>`` or
``<!channel>`` mention, no link, no markup. Pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

SCHEMA = "adjudicator.webhook/1"
FORMATS = ("json", "discord", "slack")

EVENTS = (
    "round.opened",
    "round.result",
    "round.waiting",
    "round.deadline",
    "turn",
    "game.over",
    "orders.confirmed",
    "round.reminder",
    "turn.nudge",
    "tournament.round",
    "press.public",
)
"""The events a webhook is told of (docs/webhooks.md)."""

ZWSP = "\u200b"  # a zero-width space: breaks a mention or a link, shows nothing


MENTION = re.compile(r"<@([A-Za-z0-9]{1,32})>")
"""A chat's mention of one user as the game master writes it: Discord's ``<@123456>``, Slack's
``<@U0123ABC>``. Nothing else (no ``@everyone``, no role, no channel) is taken."""


def parse_mentions(value: Any) -> dict[str, str]:
    """The setting ``webhook_mentions`` (``alice:<@123>,bob:<@456>``, or a mapping of handle
    to mention) as {handle: the chat's user id}; ValueError for anything else."""
    if isinstance(value, Mapping):
        pairs = [[str(k), str(v)] for k, v in value.items()]
    else:
        pairs = [part.split(":", 1) for part in str(value or "").split(",") if part.strip()]
    found: dict[str, str] = {}
    for pair in pairs:
        mention = MENTION.fullmatch(pair[1].strip()) if len(pair) == 2 else None
        handle = pair[0].strip().lower()
        if mention is None or not handle:
            raise ValueError(
                f"{':'.join(pair).strip()!r} is not handle:<@user id> (such as alice:<@123456>)"
            )
        found[handle] = mention.group(1)
    return found


def guess_format(url: str) -> str:
    """The format a URL plainly asks for: Discord's and Slack's incoming webhooks; else json."""
    lowered = url.lower()
    host = lowered.split("://", 1)[-1].split("/", 1)[0]
    if re.fullmatch(r"(\w+\.)?(discord|discordapp)\.com(:443)?", host) and "/api/webhooks/" in (
        lowered
    ):
        return "discord"
    if host in ("hooks.slack.com", "hooks.slack.com:443"):
        return "slack"
    return "json"


def neutral(text: str, chat: str) -> str:
    """``text`` (a player's or a game master's) made harmless in ``chat``'s markup: mentions
    broken, links not links, markup characters shown as themselves."""
    text = re.sub(r"[\x00-\x1f\x7f]", " ", str(text))
    text = re.sub(r"(?i)([a-z][a-z0-9+.-]*):(//)", rf"\1:{ZWSP}\2", text)  # no link
    text = re.sub(r"(?i)\bwww\.", f"www{ZWSP}.", text)
    if chat == "slack":
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        text = re.sub(r"([*_~`|])", rf"{ZWSP}\1", text)
    elif chat == "discord":
        text = re.sub(r"([\\*_~`|>#<\[\]()-])", r"\\\1", text)
    return text.replace("@", f"@{ZWSP}")


def body_of(event: Mapping[str, Any], *, chat: str, delivery: str) -> bytes:
    """The body posted for ``event`` in format ``chat`` (one of :data:`FORMATS`)."""
    if chat == "discord":
        users = sorted(set(_mentioned(event, chat).values()))
        allowed: dict[str, Any] = {"parse": [], "users": users} if users else {"parse": []}
        return _dumps({"content": words(event, chat), "allowed_mentions": allowed})
    if chat == "slack":
        return _dumps({"text": words(event, chat), "unfurl_links": False})
    return _dumps({"schema": SCHEMA, "delivery": delivery, **event})


def words(event: Mapping[str, Any], chat: str) -> str:
    """The event as a sentence or two for a chat: who, what, the deadline."""
    payload: Mapping[str, Any] = event.get("payload", {})
    game = event["game"]
    name = neutral(game["name"], chat)
    head = f"**{name}**" if chat == "discord" else f"*{name}*"
    number = event.get("round")
    what = event["event"]
    deadline = payload.get("deadline_local")
    due = f" Deadline: {deadline}." if deadline else " No deadline set."
    if what == "round.opened":
        text = f"{head}: round {number} is open.{due}"
    elif what == "turn":
        movers = _names(payload.get("to_move", ()), chat, _mentioned(event, chat))
        text = f"{head}: round {number}, {movers} to move.{due}"
    elif what == "round.waiting":
        waiting = payload.get("waiting")
        if waiting is None:
            text = f"{head}: round {number} still waits for orders.{due}"
        else:
            named = _names(waiting, chat, _mentioned(event, chat))
            text = f"{head}: round {number} still waits for {named}.{due}"
    elif what == "round.deadline":
        text = f"{head}: the deadline of round {number} is now {deadline or 'not set'}."
    elif what in ("round.result", "game.over"):
        text = _end_words(what, payload, head, number, chat)
    elif what == "orders.confirmed":
        player = _names([payload.get("player", "")], chat)
        text = f"{head}: {player}'s orders for round {number} are in.{due}"
    elif what == "round.reminder":
        player = _names([payload.get("player", "")], chat)
        text = f"{head}: {player}, round {number} still waits for your orders.{due}"
    elif what == "turn.nudge":
        player = _names([payload.get("player", "")], chat)
        text = f"{head}: {player}, it is your turn (round {number}).{due}"
    elif what == "press.public":
        text = _press_words(payload, head, number, chat)
    elif what == "tournament.round":
        text = _tournament_words(payload, head, number, chat)
    else:
        text = f"{head}: {what}."
    return text


PRESS_SHOWN = 1500
"""The most of a press's text a chat post shows (Discord takes 2000 characters a message)."""


def _press_words(payload: Mapping[str, Any], head: str, number: Any, chat: str) -> str:
    """A public press: who (or nobody, anonymous), the round, the text neutralised."""
    sender = payload.get("sender")
    who = f"press from {_names([sender], chat)}" if sender else "anonymous press"
    text = str(payload.get("text") or "")
    if len(text) > PRESS_SHOWN:
        text = text[:PRESS_SHOWN] + " ..."
    return f"{head}: {who} (round {number}): {neutral(text, chat)}"


def _end_words(what: str, payload: Mapping[str, Any], head: str, number: Any, chat: str) -> str:
    """A round's result (the standings, the link) or the game's end (who won, the link)."""
    if what == "round.result":
        text = f"{head}: the result of round {number}."
        for measure in payload.get("standings", ()):
            counts = ", ".join(
                f"{neutral(line['player'], chat)} {line['value']}" for line in measure["lines"]
            )
            text += f" {neutral(measure['label'], chat).capitalize()}: {counts}."
        link = payload.get("link")
        if link:
            text += f" <{link}|Round {number}>" if chat == "slack" else f" Round {number}: <{link}>"
        return text
    winners = payload.get("winners") or []
    if payload.get("draw") or not winners:
        text = f"{head} is over: a draw after round {number}."
    else:
        text = f"{head} is over after round {number}: {_names(winners, chat)} won."
    link = payload.get("link")
    if link:
        text += f" <{link}|The game>" if chat == "slack" else f" The game: <{link}>"
    return text


def _tournament_words(payload: Mapping[str, Any], head: str, number: Any, chat: str) -> str:
    """A player's round of a tournament: his games and opponents, the standings."""
    player = _names([payload.get("player", "")], chat)
    if payload.get("final"):
        text = f"{head}: the tournament is over, {player}."
    else:
        text = f"{head}: round {number}, {player}:"
        for pairing in payload.get("pairing", ()):
            if pairing.get("bye"):
                text += " a bye."
            else:
                game = neutral(pairing.get("game") or "", chat)
                text += f" {game} against {_names(pairing.get('opponents', ()), chat)}."
    table = ", ".join(
        f"{line['rank']}. {neutral(line['player'], chat)} {line['score']}"
        for line in payload.get("standings", ())
    )
    return text + (f" Standings: {table}." if table else "")


def _mentioned(event: Mapping[str, Any], chat: str) -> dict[str, str]:
    """The chat's user ids of the players an event names, where the game master mapped them
    (``webhook_mentions``): only in the events that wait on players (``turn``,
    ``round.waiting``), only in Discord's (numeric ids) and Slack's format."""
    if event["event"] not in ("turn", "round.waiting") or chat not in ("discord", "slack"):
        return {}
    given = event.get("payload", {}).get("mentions") or {}
    return {
        str(handle): str(user)
        for handle, user in given.items()
        if MENTION.fullmatch(f"<@{user}>") and (chat == "slack" or str(user).isdigit())
    }


def _names(handles: Sequence[str], chat: str, mentions: Mapping[str, str] | None = None) -> str:
    mentions = mentions or {}
    shown = [neutral(h, chat) + (f" (<@{mentions[h]}>)" if h in mentions else "") for h in handles]
    if len(shown) <= 1:
        return "".join(shown) or "nobody"
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
