"""Webhooks, the second channel: a game's public notices posted as HTTP to the address its game
master set (``--setting webhook=URL``), in the receiver's format (``webhook_formats.py``),
signed with the game's ``webhook_secret`` (docs/webhooks.md).

What a webhook is told follows what mail tells (:meth:`WebhookChannel.follow`): when the mail
of a round's result, a reminder, a game's start or a changed deadline is queued, the game's
webhook events are queued with it, in the same transaction, each once (its key names the game,
the event and the round). They wait in the outbox's ``webhook`` lane, delivered by
:class:`WebhookSender`: at least once, each with a delivery id that stays the same on every
retry, retried with backoff after a 5xx, a 408 or 429, a timeout or a refused connection, given
up only when the receiver answered for good (another 4xx, a redirect), its address is refused
(``webhook_address.py``), or nothing took it within ``[webhooks] give_up_hours``; the game
master is then told by mail, once for that address (``service/refused.py``).

The configuration is the ``[webhooks]`` table (``base/config.py``, ``WebhooksConfig``).
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import hmac
import json
import logging
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
from sqlmodel import Session, select

from adjudicator.base.config import WebhooksConfig
from adjudicator.games import kind_of
from adjudicator.mail.smtp import SendResult, SendStatus
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.outbox import Envelope, PendingMail
from adjudicator.notify.times import local_time
from adjudicator.notify.webhook_address import (
    RefusedAddress,
    Resolver,
    resolve_target,
    system_resolver,
)
from adjudicator.notify.webhook_formats import body_of, guess_format, parse_mentions
from adjudicator.readmodel.links import round_file
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.storage import persons, queries
from adjudicator.storage.models import Game, OrderSet, Person, Round, RoundResult

log = logging.getLogger(__name__)

EVENT_HEADER = "X-Adjudicator-Event"
DELIVERY_HEADER = "X-Adjudicator-Delivery"
SIGNATURE_HEADER = "X-Adjudicator-Signature"
USER_AGENT = "Adjudicator-Webhook/1"

RECEIVERS_AT_ONCE = 8
"""Receivers posted to at once by one batch."""

TEMPORARY_CODES = frozenset({408, 425, 429})
"""Answers besides the 5xx that mean "later": timed out, too early, too many."""


def delivery_id(key: str, *, service_key: bytes = b"") -> str:
    """The delivery's id: made from the outbox key (the same on every retry) and the
    service's own key (two services never give the same id)."""
    digest = hmac.new(service_key, key.encode(), hashlib.sha256).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def signature(secret: str, body: bytes, *, at: int) -> str:
    """The signature header's value: ``t=<unix time>,v1=<hex HMAC-SHA256 of "<t>." + body>``
    with the secret as key (GitHub's and Stripe's way; docs/webhooks.md has the check)."""
    mac = hmac.new(secret.encode(), f"{at}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={at},v1={mac}"


def webhook_of(game: Game) -> tuple[str, str, str] | None:
    """A game's webhook: its URL, secret ('' for none) and format; None when it has none."""
    url = str(game.settings.get("webhook") or "").strip()
    if not url:
        return None
    chosen = str(game.settings.get("webhook_format") or "").strip().lower()
    return url, str(game.settings.get("webhook_secret") or ""), chosen or guess_format(url)


class WebhookChannel:
    """Notices posted to webhooks. ``prepare`` renders the body once, at queue time; the
    sender signs it at each post (the signature's time is the post's)."""

    name = "webhook"

    def __init__(
        self,
        config: WebhooksConfig | None = None,
        *,
        resolver: Resolver = system_resolver,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config or WebhooksConfig()
        self.resolver = resolver
        self.clock = clock

    @property
    def give_up_after(self) -> timedelta:
        """How long a notice is tried before it is given up (the outbox's rule for this lane)."""
        return timedelta(hours=self.config.give_up_hours)

    def sender(self) -> WebhookSender:
        return WebhookSender(self.config, resolver=self.resolver, clock=self.clock)

    def prepare(
        self, session: Session, notice: Notice, *, ctx: ServiceContext, now: datetime
    ) -> PendingMail:
        """The post of ``notice`` (whose context is ``{"event": ..., "format": ...,
        "secret": ...}``, as :meth:`follow` makes it); reads nothing."""
        event = notice.context["event"]
        delivery = delivery_id(notice.key, service_key=ctx.receipt_key)
        chat = notice.context.get("format") or guess_format(notice.recipient)
        post = {
            "event": event["event"],
            "delivery": delivery,
            "secret": notice.context.get("secret", ""),
            "body": body_of(event, chat=chat, delivery=delivery).decode(),
        }
        return PendingMail(
            key=notice.key,
            kind=notice.filed_as,
            recipient=notice.recipient,
            message=json.dumps(post, ensure_ascii=False).encode(),
            game_id=notice.game_id,
            round_id=notice.round_id,
            channel=self.name,
        )

    def follow(
        self, session: Session, told: Notice | PendingMail, *, ctx: ServiceContext, now: datetime
    ) -> list[Notice]:
        """The webhook notices that go with a mail notice just queued: the events of its game
        that it tells (:func:`game_events`), to the game's webhook; and, when it is one of a
        player's own notices, the same to the player's own webhook (SET WEBHOOK,
        :func:`personal_event`)."""
        if told.channel != "mail":
            return []
        if told.kind == "tournament_round" and isinstance(told, Notice):
            return self._tournament(session, told, ctx=ctx, now=now)
        if told.game_id is None:
            return []
        game = session.get(Game, told.game_id)
        if game is None:
            return []
        found = self._personal(session, game, told, ctx=ctx, now=now)
        hook = webhook_of(game)
        if hook is None:
            return found
        url, secret, chat = hook
        if told.kind == "press" and isinstance(told, Notice):
            return found + self._public_press(game, told, hook, now=now)
        if told.kind not in FOLLOWED or (isinstance(told, Notice) and told.answers is not None):
            return found
        round_id = told.round_id
        if round_id is None:  # a welcome: about the round open now
            opened = queries.open_round(session, game.id)
            round_id = opened.id if opened is not None else None
        return found + [
            Notice(
                "webhook",
                url,
                {"event": event, "format": chat, "secret": secret},
                key=f"webhook:{game.id}:{event['event']}:{event['round']}{suffix}",
                label=f"webhook:{event['event']}",
                game_id=game.id,
                round_id=round_id,
                channel=self.name,
            )
            for event, suffix in game_events(
                session, game, told.kind, told.round_id, now=now, archive=ctx.archive_link
            )
        ]

    def _public_press(
        self, game: Game, told: Notice, hook: tuple[str, str, str], *, now: datetime
    ) -> list[Notice]:
        """A press to every player (``PRESS``, ``PRESS TO ALL``), as its readers' mails are
        queued: the game's webhook is told once (``press.public``: the sender's handle, or
        none when the game's press is anonymous, the round, the text). Press to some players
        only is never posted."""
        context = told.context
        if context.get("to") or context.get("press_id") is None:
            return []
        url, secret, chat = hook
        event = _event(
            game,
            "press.public",
            int(context.get("press_round") or 0),
            now,
            sender=context.get("sender"),
            text=str(context.get("text") or ""),
        )
        return [
            Notice(
                "webhook",
                url,
                {"event": event, "format": chat, "secret": secret},
                key=f"webhook:{game.id}:press.public:{context['press_id']}",
                label="webhook:press.public",
                game_id=game.id,
                channel=self.name,
            )
        ]

    def _personal(
        self,
        session: Session,
        game: Game,
        told: Notice | PendingMail,
        *,
        ctx: ServiceContext,
        now: datetime,
    ) -> list[Notice]:
        if told.kind not in PERSONAL or not told.recipient:
            return []
        person = _with_webhook(session, told.recipient)
        if person is None:
            return []
        seat = queries.seat_at_address(session, game.id, told.recipient)
        if seat is None:
            return []
        event = personal_event(
            session, game, told.kind, told.round_id, seat.handle, now=now, archive=ctx.archive_link
        )
        if event is None:
            return []
        return [self._to_person(person, event, told, game_id=game.id, round_id=told.round_id)]

    def _tournament(
        self, session: Session, told: Notice, *, ctx: ServiceContext, now: datetime
    ) -> list[Notice]:
        """A player's mail of a tournament's round (his pairing, the standings), to his own
        webhook: the event ``tournament.round`` (:func:`tournament_event`). Not the game
        master's copy, which has no handle."""
        handle = told.context.get("handle")
        if not handle or told.context.get("gm"):
            return []
        person = _with_webhook(session, told.recipient)
        if person is None:
            return []
        return [self._to_person(person, tournament_event(told.context, now=now), told)]

    def _to_person(
        self,
        person: Person,
        event: dict[str, Any],
        told: Notice | PendingMail,
        *,
        game_id: int | None = None,
        round_id: int | None = None,
    ) -> Notice:
        """``event`` posted to ``person``'s own webhook (SET WEBHOOK), signed with his secret,
        keyed by the mail ``told`` it follows: told once however often that mail is."""
        assert person.webhook_url is not None
        return Notice(
            "webhook",
            person.webhook_url,
            {
                "event": event,
                "format": guess_format(person.webhook_url),
                "secret": person.webhook_secret or "",
            },
            key=f"webhook:p{person.id}:{told.key}",
            label=f"webhook:{event['event']}",
            game_id=game_id,
            round_id=round_id,
            channel=self.name,
        )


def _with_webhook(session: Session, address: str) -> Person | None:
    """The person at ``address`` when he has a webhook of his own (SET WEBHOOK)."""
    person = persons.with_webhooks(session).get(address.strip().lower())
    return person if person is not None and person.webhook_url else None


def tournament_event(context: Mapping[str, Any], *, now: datetime) -> dict[str, Any]:
    """The event of a player's mail of a tournament's round (``tournament_rounds.py`` makes its
    context): his handle, his pairing (his games, opponents, side, a bye), the standings; the
    tournament stands where a game's event has its game."""
    standings = [
        {
            "rank": line["rank"],
            "player": line["handle"],
            "score": line["score"],
            "withdrawn": line["withdrawn"],
        }
        for line in context["standings"]
    ]
    pairing = [
        {
            "game": p["game"],
            "opponents": list(p["opponents"]),
            "side": p["side"],
            "bye": p["bye"],
        }
        for p in context["pairing"]
    ]
    return {
        "event": "tournament.round",
        "game": {"name": context["tournament"], "kind": "tournament", "time_zone": None},
        "round": context["round"],
        "time": now.isoformat(),
        "payload": {
            "player": context["handle"],
            "rounds": context["rounds"],
            "final": context["final"],
            "pairing": pairing,
            "standings": standings,
        },
    }


FOLLOWED = frozenset({"welcome", "started", "result", "reminder", "deadline_changed"})
"""The kinds of mail whose queuing tells a game's webhook something."""

PERSONAL = {
    "confirmation": "orders.confirmed",
    "result": "round.result",
    "reminder": "round.reminder",
    "nudge": "turn.nudge",
    "started": "round.opened",
    "deadline_changed": "round.deadline",
}
"""A player's own mails that his own webhook is told of, and the event each is."""


def personal_event(
    session: Session,
    game: Game,
    kind: str,
    round_id: int | None,
    handle: str,
    *,
    now: datetime,
    archive: Callable[[str, str], str | None],
) -> dict[str, Any] | None:
    """The event a player's own mail of ``kind`` is for his webhook: whose (his handle), the
    game, the round, the deadline; a result's public standings. Never his orders, his
    password, nor anything of another player's but what the game's webhook may tell."""
    round_ = session.get(Round, round_id) if round_id is not None else None
    if round_ is None:
        return None
    name = PERSONAL[kind]
    if name == "round.result":
        result = queries.result_of(session, round_.id)
        if result is None:
            return None
        return _event(
            game,
            name,
            round_.number,
            now,
            player=handle,
            standings=_standings(session, game, result),
            link=archive(game.name, round_file(round_.number)),
        )
    return _opened(game, name, round_, now, player=handle)


def game_events(
    session: Session,
    game: Game,
    kind: str,
    round_id: int | None,
    *,
    now: datetime,
    archive: Callable[[str, str], str | None],
) -> list[tuple[dict[str, Any], str]]:
    """The events a mail of ``kind`` about ``round_id`` means for the game's webhook, each
    with what its key adds to the event and round (a reminder's step, a deadline)."""
    found: list[tuple[dict[str, Any], str]] = []
    opened = queries.open_round(session, game.id)
    if kind == "result":
        round_ = session.get(Round, round_id) if round_id is not None else None
        result = queries.result_of(session, round_id) if round_ is not None else None
        if round_ is None or result is None:
            return []
        standings = _standings(session, game, result)
        link = archive(game.name, round_file(round_.number))
        found.append(
            (
                _event(game, "round.result", round_.number, now, standings=standings, link=link),
                "",
            )
        )
        if result.finished:
            payload = {"winners": list(result.winners), "draw": result.draw}
            over = _event(game, "game.over", round_.number, now, **payload)
            over["payload"]["link"] = archive(game.name, "")
            found.append((over, ""))
            return found
        kind = "started"  # the next round is open: told as one
    if opened is None:
        return found
    if kind in ("welcome", "started"):
        if rules_of(game).sequential:
            movers = list(rules_of(game).to_move(game_state(game)))
            mentions = _mentions(game, movers)
            found.append((_opened(game, "turn", opened, now, to_move=movers, **mentions), ""))
        else:
            found.append((_opened(game, "round.opened", opened, now), ""))
    elif kind == "reminder" and opened.id == round_id:
        waiting = _waiting(session, game, opened)
        step = f":{now:%Y%m%dT%H%M}"  # one a pass of the reminders, whoever is reminded
        mentions = _mentions(game, waiting or [])
        event = _opened(game, "round.waiting", opened, now, waiting=waiting, **mentions)
        found.append((event, step))
    elif kind == "deadline_changed" and opened.id == round_id:
        stamp = f":{opened.deadline:%Y%m%dT%H%M}" if opened.deadline else ":none"
        found.append((_opened(game, "round.deadline", opened, now), stamp))
    return found


def _mentions(game: Game, handles: Sequence[str]) -> dict[str, dict[str, str]]:
    """``{"mentions": {handle: chat user id}}`` for the ``handles`` the game master mapped to
    their chat names (``webhook_mentions``); nothing when he mapped none of them."""
    try:
        mapped = parse_mentions(game.settings.get("webhook_mentions") or "")
    except ValueError:  # checked when set; an old game's odd value mentions nobody
        return {}
    found = {handle: mapped[handle] for handle in handles if handle in mapped}
    return {"mentions": found} if found else {}


def _standings(session: Session, game: Game, result: RoundResult) -> list[dict[str, Any]]:
    """The game's measures of who is ahead after ``result``, highest first."""
    players = [s.handle for s in queries.seats_of(session, game.id)]
    return [
        {
            "measure": m.key,
            "label": m.label,
            "lines": [
                {"player": p, "value": v}
                for p, v in sorted(
                    m.read(result.public_state, players).items(), key=lambda pv: -pv[1]
                )
            ],
        }
        for m in kind_of(game.kind).measures
    ]


def _event(game: Game, name: str, number: int, now: datetime, **payload: Any) -> dict[str, Any]:
    """An event in the generic schema (docs/webhooks.md), before its delivery id."""
    return {
        "event": name,
        "game": {"name": game.name, "kind": game.kind, "time_zone": game.time_zone},
        "round": number,
        "time": now.isoformat(),
        "payload": payload,
    }


def _opened(game: Game, name: str, round_: Round, now: datetime, **payload: Any) -> dict[str, Any]:
    deadline = round_.deadline
    return _event(
        game,
        name,
        round_.number,
        now,
        deadline=deadline.isoformat() if deadline else None,
        deadline_local=local_time(deadline, game.time_zone) if deadline else None,
        **payload,
    )


def _waiting(session: Session, game: Game, round_: Round) -> list[str] | None:
    """The handles the round still waits for, in seat order; None when the game master keeps
    it to himself (``show_waiting=false``)."""
    if game.settings.get("show_waiting") is False:
        return None
    movers = set(rules_of(game).to_move(game_state(game)))
    ordered = set(session.exec(select(OrderSet.seat_id).where(OrderSet.round_id == round_.id)))
    return [
        seat.handle
        for seat in queries.seats_of(session, game.id)
        if seat.active and seat.handle in movers and seat.id not in ordered
    ]


class WebhookSender:
    """Posts each envelope (a post ``WebhookChannel.prepare`` made, its URL) one after another
    and says how each went. Each post: the address resolved and checked, the connection made to
    the checked address with the name in the Host header and TLS's SNI, no redirect followed,
    a timeout on the connection and each read, at most ``max_response_bytes`` of the answer
    read."""

    def __init__(
        self,
        config: WebhooksConfig,
        *,
        resolver: Resolver = system_resolver,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.resolver = resolver
        self.clock = clock
        self._recent: dict[str, collections.deque[float]] = {}  # posts of the last minute
        self._client = httpx.AsyncClient(
            follow_redirects=False,
            timeout=httpx.Timeout(float(config.timeout_seconds)),
            trust_env=False,  # no proxy from the environment: the post goes where it was checked
        )

    async def send_batch(self, envelopes: Sequence[Envelope]) -> list[SendResult]:
        """The posts to one receiver one after another, in the batch's order (a receiver
        gets a game's events in the order they happened); several receivers at once."""
        by_url: dict[str, list[int]] = {}
        for index, (_message, _sender, url) in enumerate(envelopes):
            by_url.setdefault(url, []).append(index)
        results: list[SendResult | None] = [None] * len(envelopes)
        gate = asyncio.Semaphore(RECEIVERS_AT_ONCE)

        async def one_receiver(indexes: list[int]) -> None:
            async with gate:
                for index in indexes:
                    message, _sender, url = envelopes[index]
                    results[index] = await self.post(message, url)

        await asyncio.gather(*(one_receiver(indexes) for indexes in by_url.values()))
        return [result for result in results if result is not None]

    def _over_limit(self, url: str) -> bool:
        """Whether ``url``'s host had ``per_host_per_minute`` posts in the last minute (the
        post waits for its retry); else the post is counted."""
        limit = self.config.per_host_per_minute
        if limit <= 0:
            return False
        host = urlsplit(url).hostname or url
        now = time.monotonic()
        recent = self._recent.setdefault(host, collections.deque())
        while recent and now - recent[0] >= 60.0:
            recent.popleft()
        if len(recent) >= limit:
            return True
        recent.append(now)
        return False

    async def post(self, message: bytes, url: str) -> SendResult:
        post: Mapping[str, Any] = json.loads(message)
        if self._over_limit(url):
            return SendResult(SendStatus.TEMPORARY, None, "held back: too many posts", "post")
        try:
            target = await resolve_target(
                url,
                allow_hosts=self.config.allow_hosts,
                allow_http=self.config.allow_http,
                resolver=self.resolver,
            )
        except RefusedAddress as refused:
            return SendResult(SendStatus.PERMANENT, None, f"refused: {refused}", "post")
        except (OSError, UnicodeError) as error:
            return SendResult(SendStatus.TEMPORARY, None, f"resolving: {error}", "post")
        body = str(post["body"]).encode()
        headers = {
            "Host": target.host_header,
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            EVENT_HEADER: str(post["event"]),
            DELIVERY_HEADER: str(post["delivery"]),
        }
        if post.get("secret"):
            headers[SIGNATURE_HEADER] = signature(str(post["secret"]), body, at=int(self.clock()))
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        try:
            async with self._client.stream(
                "POST", target.pinned_url, content=body, headers=headers, extensions=extensions
            ) as response:
                read = 0
                async for chunk in response.aiter_raw():
                    read += len(chunk)
                    if read >= self.config.max_response_bytes:
                        break
                code = response.status_code
        except httpx.TimeoutException as error:
            return SendResult(SendStatus.TEMPORARY, None, f"timed out: {error!r}", "post")
        except httpx.HTTPError as error:
            return SendResult(SendStatus.TEMPORARY, None, f"{type(error).__name__}", "post")
        if 200 <= code < 300:
            return SendResult(SendStatus.SENT, code, "taken", "post")
        if code >= 500 or code in TEMPORARY_CODES:
            return SendResult(SendStatus.TEMPORARY, code, "receiver busy or failing", "post")
        what = "a redirect (not followed)" if 300 <= code < 400 else "refused"
        return SendResult(SendStatus.PERMANENT, code, what, "post")

    async def close(self) -> None:
        await self._client.aclose()
