"""A game with a webhook (issue 42, webhooks), played by mail to its end, its notices posted
to a real HTTP server on loopback (allowed only by the operator's ``[webhooks] allow_hosts``):
every event arrives, each signed as docs/webhooks.md says and checked with its recipe, a post
retried after a 500 carries the same delivery id, a receiver down for a round gets everything
once it is back, and a receiver that refuses for good is given up with the game master told
by mail once."""

from __future__ import annotations

import hashlib
import hmac
import random
import time
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from playing import Clock, new_game, newest_to, plain, player_mail, queued
from sqlmodel import Session, col, select
from webhook_receiver import Post, Receiver, deliver_webhooks, receiving

from adjudicator.base.config import Config, ServiceConfig, WebhooksConfig
from adjudicator.core.game import Setup
from adjudicator.games import kind_of
from adjudicator.notify.outbox import retry_delay
from adjudicator.notify.webhook import WebhookChannel
from adjudicator.readmodel.stored import game_state
from adjudicator.service import ServiceError
from adjudicator.service.app import App, make_app
from adjudicator.service.deadlines import queue_reminders
from adjudicator.service.games import Credentials, find_game
from adjudicator.service.gm_mail import renew_game_master
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, OutboxMail, OutboxStatus, RoundResult

SECRET = "s3cret-of-the-gm"
TRIO = ("alice", "bob", "carol")
START = {"alice": 90, "bob": 3, "carol": 3}


def verify(secret: str, header: str, body: bytes, tolerance: int = 300) -> bool:
    """The recipe of docs/webhooks.md, as a receiver writes it."""
    parts = dict(part.split("=", 1) for part in header.split(","))
    stamp, given = parts["t"], parts["v1"]
    if abs(time.time() - int(stamp)) > tolerance:
        return False
    expected = hmac.new(secret.encode(), stamp.encode() + b"." + body, hashlib.sha256)
    return hmac.compare_digest(expected.hexdigest(), given)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    config = Config(
        service=ServiceConfig(data_dir=str(tmp_path / "data"), address="judge@pbem.test"),
        webhooks=WebhooksConfig(allow_hosts=("127.0.0.1",), allow_http=True, give_up_hours=24),
    )
    application = make_app(config)
    application.clock = Clock()
    yield application
    application.engine.dispose()


def holdings(app: App) -> dict[str, int]:
    """What each player holds for the open round."""
    with Session(app.engine) as session:
        last = session.exec(select(RoundResult).order_by(col(RoundResult.id).desc())).first()
        return dict(last.public_state["holdings"]) if last else START


def play_round(app: App, creds: dict[str, Credentials], number: int) -> None:
    """Every player gives all he holds to the next, by mail; the round closes once all are
    in."""
    held = holdings(app)
    for i, handle in enumerate(TRIO):
        to = TRIO[(i + 1) % 3]
        body = f"PASSWORD {creds[handle].secret}\nGIVE {held[handle]} TO {to}\n"
        app.ingest(player_mail("gw1", handle, body, number=number * 10 + i), channel="t")
    app.report()


def finished(app: App) -> bool:
    with Session(app.engine) as session:
        game = session.exec(select(Game)).one()
        return game.finished_at is not None


def events(posts: list[Post]) -> list[tuple[str, int]]:
    """(event, round) of each delivery, once per delivery id."""
    seen: dict[str, tuple[str, int]] = {}
    for post in posts:
        seen.setdefault(
            post.headers["X-Adjudicator-Delivery"], (post.json["event"], post.json["round"])
        )
    return list(seen.values())


def test_a_game_played_by_mail_to_its_end_posts_every_event_signed_and_once(app: App) -> None:
    with receiving(Receiver(answers=[500])) as receiver:
        creds = new_game(
            app,
            TRIO,
            settings={"webhook": receiver.url, "webhook_secret": SECRET, "early_close": True},
            setup=Setup(start={"holdings": START}),
            welcome=True,
        )
        assert deliver_webhooks(app) == 0  # the receiver's 500: tried again after the backoff
        (first,) = receiver.posts
        app.clock.advance(seconds=retry_delay(1).total_seconds())
        assert deliver_webhooks(app) == 1
        again = receiver.posts[1]
        assert again.headers["X-Adjudicator-Delivery"] == first.headers["X-Adjudicator-Delivery"]
        assert again.body == first.body
        number = 1
        play_round(app, creds, number)
        assert deliver_webhooks(app) == 2  # round 1's result, round 2 opened
    # The receiver is down for a whole round: nothing is lost.
    while not finished(app) and number < 8:
        number += 1
        play_round(app, creds, number)
        assert deliver_webhooks(app) == 0
    assert finished(app)
    app.clock.advance(hours=1)
    with receiving(Receiver(port=receiver.port, posts=receiver.posts)):
        assert deliver_webhooks(app) > 0
    got = events(receiver.posts)
    expected = [("round.opened", 1)]
    for n in range(1, number + 1):
        expected.append(("round.result", n))
        expected.append(("round.opened", n + 1) if n < number else ("game.over", n))
    assert sorted(got) == sorted(expected)
    assert len(got) == len(set(got))  # no event twice but through a retry of its delivery
    for post in receiver.posts:
        assert post.path == "/hook"
        assert post.headers["X-Adjudicator-Event"] == post.json["event"]
        assert post.json["schema"] == "adjudicator.webhook/1"
        assert post.json["game"]["name"] == "gw1"
        assert verify(SECRET, post.headers["X-Adjudicator-Signature"], post.body)
        assert not verify("another secret", post.headers["X-Adjudicator-Signature"], post.body)
    result = next(p.json for p in receiver.posts if p.json["event"] == "round.result")
    (points,) = result["payload"]["standings"]
    assert {line["player"] for line in points["lines"]} == set(TRIO)
    opened = next(p.json for p in receiver.posts if p.json["event"] == "round.opened")
    assert opened["payload"]["deadline"] is not None
    with Session(app.engine) as session:
        rows = session.exec(select(OutboxMail).where(OutboxMail.channel == "webhook")).all()
        assert {row.status for row in rows} == {OutboxStatus.SENT}


def test_a_receiver_that_refuses_for_good_is_given_up_and_the_game_master_told_once(
    app: App,
) -> None:
    with receiving(Receiver(answers=[404] * 10)) as receiver:
        creds = new_game(
            app,
            TRIO,
            settings={"webhook": receiver.url, "early_close": True},
            setup=Setup(start={"holdings": START}),
            gm_address="gm@example.org",
            welcome=True,
        )
        deliver_webhooks(app)
        play_round(app, creds, 1)
        deliver_webhooks(app)
        assert len(receiver.posts) == 3
        assert "X-Adjudicator-Signature" not in receiver.posts[0].headers  # no secret set
    with Session(app.engine) as session:
        rows = session.exec(select(OutboxMail).where(OutboxMail.channel == "webhook")).all()
        assert {row.status for row in rows} == {OutboxStatus.FAILED}
    told = queued(app, "gm:webhook_gave_up")
    assert len(told) == 1
    assert told[0]["To"] == "gm@example.org"


def test_a_receiver_down_past_the_give_up_time_is_given_up(app: App) -> None:
    receiver = Receiver()
    with receiving(receiver):
        pass  # its port, now closed: nothing listens
    new_game(
        app,
        TRIO,
        settings={"webhook": receiver.url},
        gm_address="gm@example.org",
        welcome=True,
    )
    assert deliver_webhooks(app) == 0
    app.clock.advance(hours=23)
    assert deliver_webhooks(app) == 0
    with Session(app.engine) as session:
        (row,) = session.exec(select(OutboxMail).where(OutboxMail.channel == "webhook")).all()
        assert row.status == OutboxStatus.PENDING  # down for 23 hours: still tried
    app.clock.advance(hours=1, seconds=1)
    deliver_webhooks(app)
    with Session(app.engine) as session:
        (row,) = session.exec(select(OutboxMail).where(OutboxMail.channel == "webhook")).all()
        assert row.status == OutboxStatus.FAILED
    assert timedelta(hours=24) == WebhookChannel(WebhooksConfig()).give_up_after


def secret_in(app: App, address: str) -> str:
    """The secret the newest answer to ``address`` gives (SET WEBHOOK)."""
    text = plain(newest_to(app, address))
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "signed with this secret" in line)
    return lines[at + 2].strip()


def test_a_player_sets_his_own_webhook_by_mail_and_gets_his_own_notices_signed(
    app: App,
) -> None:
    with receiving(Receiver()) as game_hook, receiving(Receiver()) as own:
        creds = new_game(
            app,
            TRIO,
            settings={"webhook": game_hook.url, "webhook_secret": SECRET, "early_close": True},
            setup=Setup(start={"holdings": START}),
        )
        body = f"PASSWORD {creds['alice'].secret}\nSET WEBHOOK {own.url}\n"
        app.ingest(player_mail("gw1", "alice", body, number=1), channel="t")
        secret = secret_in(app, "alice@example.org")
        assert len(secret) >= 24
        play_round(app, creds, 1)
        deliver_webhooks(app)
        got = [(p.json["event"], p.json["round"], p.json["payload"]["player"]) for p in own.posts]
        assert sorted(got) == [("orders.confirmed", 1, "alice"), ("round.result", 1, "alice")]
        for post in own.posts:
            assert verify(secret, post.headers["X-Adjudicator-Signature"], post.body)
            assert not verify(SECRET, post.headers["X-Adjudicator-Signature"], post.body)
            assert "GIVE" not in post.body.decode()  # never the orders themselves
        assert {p.json["event"] for p in game_hook.posts} == {"round.result", "round.opened"}
        body = f"PASSWORD {creds['alice'].secret}\nSET WEBHOOK OFF\n"
        app.ingest(player_mail("gw1", "alice", body, number=2), channel="t")
        assert "SET WEBHOOK OFF" in plain(newest_to(app, "alice@example.org"))
        before = len(own.posts)
        play_round(app, creds, 2)
        deliver_webhooks(app)
        assert len(own.posts) == before


def test_a_players_webhook_given_up_is_told_to_him_once(app: App) -> None:
    with receiving(Receiver(answers=[410] * 10)) as own:
        creds = new_game(
            app, TRIO, settings={"early_close": True}, setup=Setup(start={"holdings": START})
        )
        body = f"PASSWORD {creds['alice'].secret}\nSET WEBHOOK {own.url}\n"
        app.ingest(player_mail("gw1", "alice", body, number=1), channel="t")
        play_round(app, creds, 1)
        deliver_webhooks(app)
        assert len(own.posts) == 2
    (told,) = queued(app, "webhook_gave_up")
    assert told["To"] == "alice@example.org"
    assert own.url in plain(told)


def gm_mail(to: str, body: str, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = "gm@example.org"
    message["To"] = to
    message["Subject"] = "Re: [gw1] the game"
    message["Message-ID"] = f"<gm-{number}@example.org>"
    message.set_content(body)
    return message.as_bytes()


def test_the_game_master_sets_the_games_webhook_by_mail(app: App) -> None:
    with receiving(Receiver()) as receiver:
        creds = new_game(
            app,
            TRIO,
            settings={"early_close": True},
            setup=Setup(start={"holdings": START}),
            gm_address="gm@example.org",
        )
        with session_scope(app.engine) as session:
            renew_game_master(
                session, find_game(session, "gw1"), address=None, ctx=app.ctx, now=app.clock()
            )
        reply_to = str(queued(app, "gm:game_master")[0]["Reply-To"])
        body = f"WEBHOOK {receiver.url}\nWEBHOOK SECRET {SECRET}\nWEBHOOK FORMAT slack\n"
        app.ingest(gm_mail(reply_to, body, 1), channel="t")
        answer = " ".join(plain(queued(app, "answer")[-1]).split())
        assert f"the game's public notices are posted to {receiver.url} too" in answer
        assert SECRET not in answer.replace(f"WEBHOOK SECRET {SECRET}", "")
        play_round(app, creds, 1)
        deliver_webhooks(app)
        assert {p.headers["X-Adjudicator-Event"] for p in receiver.posts} == {
            "round.result",
            "round.opened",
        }
        for post in receiver.posts:
            assert verify(SECRET, post.headers["X-Adjudicator-Signature"], post.body)
            assert "gw1" in post.json["text"]  # Slack's format
        app.ingest(gm_mail(reply_to, "WEBHOOK ftp://nowhere\nWEBHOOK OFF\n", 2), channel="t")
        answer = " ".join(plain(queued(app, "answer")[-1]).split())
        assert "nothing more is posted to a webhook for this game" in answer
        before = len(receiver.posts)
        play_round(app, creds, 2)
        deliver_webhooks(app)
        assert len(receiver.posts) == before


def test_a_reminder_tells_the_webhook_who_the_round_still_waits_for_once(app: App) -> None:
    with receiving(Receiver()) as receiver:
        creds = new_game(
            app,
            TRIO,
            settings={"webhook": receiver.url, "webhook_format": "discord", "reminders": ["24h"]},
            setup=Setup(start={"holdings": START}),
        )
        body = f"PASSWORD {creds['alice'].secret}\nGIVE 90 TO bob\n"
        app.ingest(player_mail("gw1", "alice", body, number=1), channel="t")
        app.clock.advance(hours=48, minutes=1)  # 24 hours before the deadline of 72h
        with session_scope(app.engine) as session:
            round_ = open_round_of(session, find_game(session, "gw1"))
            assert round_ is not None
            assert queue_reminders(session, round_, ctx=app.ctx, now=app.clock()) == 2
        deliver_webhooks(app)
        (post,) = receiver.posts
        assert post.headers["X-Adjudicator-Event"] == "round.waiting"
        text = post.json["content"]
        assert "round 1 still waits for bob and carol" in text
        assert "Thursday 05 March 2026, 12:00 UTC" in text
        assert post.json["allowed_mentions"] == {"parse": []}


def test_a_game_played_in_turns_tells_whose_turn_it_is(app: App) -> None:
    with receiving(Receiver()) as receiver:
        creds = new_game(
            app,
            ["ann", "ben"],
            kind="three-musketeers",
            settings={"webhook": receiver.url},
            welcome=True,
        )
        deliver_webhooks(app)
        (first,) = receiver.posts
        assert (first.json["event"], first.json["round"]) == ("turn", 1)
        mover = first.json["payload"]["to_move"]
        assert len(mover) == 1
        with Session(app.engine) as session:
            game = find_game(session, "gw1")
            stand_in = kind_of(game.kind).stand_in
            assert stand_in is not None
            move = stand_in(game_state(game), mover[0], random.Random(7))
        body = f"PASSWORD {creds[mover[0]].secret}\n" + "\n".join(move) + "\n"
        app.ingest(player_mail("gw1", mover[0], body, number=1), channel="t")
        app.report()
        deliver_webhooks(app)
        got = [(p.json["event"], p.json["round"]) for p in receiver.posts[1:]]
        assert sorted(got) == [("round.result", 1), ("turn", 2)]
        (turn,) = [p.json for p in receiver.posts[1:] if p.json["event"] == "turn"]
        assert turn["payload"]["to_move"] == [h for h in ("ann", "ben") if h != mover[0]]


def test_a_deadline_moved_by_the_game_master_is_posted_with_the_new_deadline(app: App) -> None:
    with receiving(Receiver()) as receiver:
        new_game(
            app,
            TRIO,
            settings={"webhook": receiver.url},
            gm_address="gm@example.org",
        )
        with session_scope(app.engine) as session:
            renew_game_master(
                session, find_game(session, "gw1"), address=None, ctx=app.ctx, now=app.clock()
            )
        reply_to = str(queued(app, "gm:game_master")[0]["Reply-To"])
        app.ingest(gm_mail(reply_to, "EXTEND 24h\n", 1), channel="t")
        deliver_webhooks(app)
        (post,) = receiver.posts
        assert post.headers["X-Adjudicator-Event"] == "round.deadline"
        assert post.json["payload"]["deadline"] == "2026-03-06T12:00:00+00:00"  # 72h + 24h


@pytest.mark.parametrize(
    ("chat", "mentions", "shown"),
    [
        ("discord", "bob:<@123456>,carol:<@789>", ["bob (<@123456>)", "carol (<@789>)"]),
        ("slack", "bob:<@U0BOB>,carol:<@U0CAROL>", ["bob (<@U0BOB>)", "carol (<@U0CAROL>)"]),
    ],
)
def test_the_post_of_who_the_round_waits_for_mentions_the_chat_names_the_gm_mapped(
    app: App, chat: str, mentions: str, shown: list[str]
) -> None:
    """The game master maps handles to chat names (``webhook_mentions``): the post of the
    players still to order mentions them, Discord allowing exactly those users; alice, who
    has ordered, is mapped too and is not mentioned."""
    with receiving(Receiver()) as receiver:
        creds = new_game(
            app,
            TRIO,
            settings={
                "webhook": receiver.url,
                "webhook_format": chat,
                "reminders": ["24h"],
                "webhook_mentions": f"alice:<@111>,{mentions}",
            },
            setup=Setup(start={"holdings": START}),
        )
        body = f"PASSWORD {creds['alice'].secret}\nGIVE 90 TO bob\n"
        app.ingest(player_mail("gw1", "alice", body, number=1), channel="t")
        app.clock.advance(hours=48, minutes=1)
        with session_scope(app.engine) as session:
            round_ = open_round_of(session, find_game(session, "gw1"))
            assert round_ is not None
            queue_reminders(session, round_, ctx=app.ctx, now=app.clock())
        deliver_webhooks(app)
        (post,) = receiver.posts
        text = post.json["content" if chat == "discord" else "text"]
        assert f"still waits for {shown[0]} and {shown[1]}" in text
        assert "111" not in text
        if chat == "discord":
            assert post.json["allowed_mentions"] == {"parse": [], "users": ["123456", "789"]}


def test_a_game_played_in_turns_mentions_the_player_to_move(app: App) -> None:
    with receiving(Receiver()) as receiver:
        new_game(
            app,
            ["ann", "ben"],
            kind="three-musketeers",
            settings={
                "webhook": receiver.url,
                "webhook_format": "discord",
                "webhook_mentions": "ann:<@1>,ben:<@2>",
            },
            welcome=True,
        )
        deliver_webhooks(app)
        (post,) = receiver.posts
        (mover,) = post.json["allowed_mentions"]["users"]
        assert mover in ("1", "2")
        handle = {"1": "ann", "2": "ben"}[mover]
        assert f"{handle} (<@{mover}>) to move" in post.json["content"]


@pytest.mark.parametrize(
    "mentions", ["bob:@everyone", "bob:<@&42>", "bob:<!channel>", "bob", "bob:<@1> x"]
)
def test_a_mapping_that_is_not_one_users_mention_is_refused(app: App, mentions: str) -> None:
    with pytest.raises(ServiceError, match="webhook_mentions"):
        new_game(
            app, TRIO, settings={"webhook": "https://example.org/h", "webhook_mentions": mentions}
        )


@pytest.mark.parametrize("anonymous", [False, True])
def test_press_to_every_player_is_posted_once_with_its_text_neutralised(
    app: App, anonymous: bool
) -> None:
    """PRESS (to every player) is told to the game's webhook once, not once a reader, its text
    unable to mention or link; press to some players only is never posted."""
    with receiving(Receiver()) as receiver:
        creds = new_game(
            app,
            TRIO,
            settings={
                "webhook": receiver.url,
                "webhook_format": "discord",
                "anonymous_press": anonymous,
            },
            setup=Setup(start={"holdings": START}),
        )
        body = (
            f"PASSWORD {creds['alice'].secret}\nPRESS\n"
            "@everyone peace, says <@123> at https://evil.example\nENDPRESS\n"
        )
        app.ingest(player_mail("gw1", "alice", body, number=1), channel="t")
        body = f"PASSWORD {creds['bob'].secret}\nPRESS TO carol\nour secret plan\nENDPRESS\n"
        app.ingest(player_mail("gw1", "bob", body, number=2), channel="t")
        deliver_webhooks(app)
        (post,) = receiver.posts
        assert post.headers["X-Adjudicator-Event"] == "press.public"
        assert post.json["allowed_mentions"] == {"parse": []}
        text = post.json["content"]
        assert "peace, says" in text
        assert "@everyone" not in text
        assert "<@123>" not in text
        assert "https://" not in text
        assert ("alice" in text) != anonymous
        assert "secret plan" not in post.body.decode()


def test_the_game_master_maps_chat_names_by_mail(app: App) -> None:
    with receiving(Receiver()) as receiver:
        creds = new_game(
            app,
            TRIO,
            settings={"reminders": ["24h"]},
            setup=Setup(start={"holdings": START}),
            gm_address="gm@example.org",
        )
        with session_scope(app.engine) as session:
            renew_game_master(
                session, find_game(session, "gw1"), address=None, ctx=app.ctx, now=app.clock()
            )
        reply_to = str(queued(app, "gm:game_master")[0]["Reply-To"])
        body = (
            f"WEBHOOK {receiver.url}\nWEBHOOK FORMAT discord\n"
            "WEBHOOK MENTIONS bob:<@123>, carol:<@456>\nWEBHOOK MENTIONS dan:@everyone\n"
        )
        app.ingest(gm_mail(reply_to, body, 1), channel="t")
        answer = " ".join(plain(queued(app, "answer")[-1]).split())
        assert "mentions the players you mapped (bob:<@123>,carol:<@456>)" in answer
        assert "is not handle:<@user id>" in answer  # the second is refused, with the reason
        body = f"PASSWORD {creds['alice'].secret}\nGIVE 90 TO bob\n"
        app.ingest(player_mail("gw1", "alice", body, number=1), channel="t")
        app.clock.advance(hours=48, minutes=1)
        with session_scope(app.engine) as session:
            round_ = open_round_of(session, find_game(session, "gw1"))
            assert round_ is not None
            queue_reminders(session, round_, ctx=app.ctx, now=app.clock())
        deliver_webhooks(app)
        (post,) = receiver.posts
        assert "still waits for bob (<@123>) and carol (<@456>)" in post.json["content"]
        assert post.json["allowed_mentions"] == {"parse": [], "users": ["123", "456"]}
