"""Result mails rendered per second: a 20-player Giveaway round and a Rock, Scissors, Paper move.

Run: .venv/bin/python bench/render.py [--rounds 30] [--players 20] [--seed 1]

Everything the service does for a round's result mails except the database: the per-player
context, the plain and HTML templates, the MIME bytes (``render_mail``), one process on
one core. Three figures per game:

1. ``plain_html``: mails per second without pictures (target: 1,000);
2. ``pictures_round_ms``: what a round's pictures cost, once per round: drawing them (text and
   SVG, pure Python) and converting the SVGs to PNG (in process, libvips);
3. ``with_pictures``: mails per second with the pictures in both parts (the PNGs travel in
   every HTML mail), the per-round picture cost not included; ``round_ms`` is one whole round
   with its pictures.

The Giveaway round is the fifth of a game played with random legal orders plus two planted
rings, so the gift graph has rings and a full load of arrows. The last line is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from adjudicator.core.game import Setup
from adjudicator.core.replay import replay_rounds
from adjudicator.games import get_rules, kind_of, read_record
from adjudicator.mail.compose import Identity, Renderer, thread_root
from adjudicator.mail.images import inline_images
from adjudicator.notify.calendar import deadline_attachment
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.mail import mail_template, render_mail
from adjudicator.notify.notice import Threading
from adjudicator.service.pictures import make_pngs
from adjudicator.service.round_results import RoundExtras, result_context
from adjudicator.storage.models import Game, Round, RoundResult, Seat

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
RSP_RECORD = (
    Path(__file__).resolve().parent.parent / "tests/golden/rock-scissors-paper/standard-game.record"
)
NAMES = (
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
    "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "ursula", "victor",
    "walter", "xavier", "yvonne", "zach", "amber", "boris", "chen", "dmitri", "eva",
)  # fmt: skip


class Scene:
    """One adjudicated round, as ``round_result_mails`` sees it, without a database."""

    def __init__(self, kind: str, players: list[str], result: RoundResult, termination: str | None):
        self.game = Game(id=1, name="bench", kind=kind, time_zone="Europe/Berlin", created_at=NOW)
        self.seats = [
            Seat(id=i + 1, game_id=1, seat=i, handle=p, address=f"{p}@example.org", secret_hash="")
            for i, p in enumerate(players)
        ]
        self.round = Round(id=1, game_id=1, number=5, opened_at=NOW)
        self.next_round = Round(
            id=2, game_id=1, number=6, opened_at=NOW, deadline=NOW + timedelta(hours=72)
        )
        self.result = result
        self.termination = termination
        self.players = players


def giveaway_scene(players: int, seed: int) -> Scene:
    rules = get_rules("giveaway")
    names = list(NAMES[:players])
    state = rules.start(names, options={}, setup=Setup())
    rng = random.Random(seed)
    resolution = None
    for number in range(5):
        orders = {
            p: list(rules.check(state, p, rules.sample_orders(state, p, rng)).orders) for p in names
        }
        if number == 4:  # two rings: alice <-> bob and carol -> dave -> erin -> carol
            for ring in (("alice", "bob"), ("carol", "dave", "erin")):
                for giver, taker in zip(ring, ring[1:] + ring[:1], strict=True):
                    rest = state.holding(giver) - 1
                    lines = [f"GIVE 1 TO {taker}"] + (
                        [f"GIVE {rest} TO {names[-1]}"] if rest else []
                    )
                    orders[giver] = list(rules.check(state, giver, lines).orders)
        resolution = rules.resolve(state, orders)
        state = resolution.state
    assert resolution is not None
    return Scene("giveaway", names, _result(rules, resolution, orders_lines(orders, rules)), None)


def orders_lines(orders: dict[str, list[Any]], rules: Any) -> dict[str, list[str]]:
    return {p: [rules.format_order(o) for o in given] for p, given in orders.items()}


def rsp_scene() -> Scene:
    record = read_record(RSP_RECORD.read_text(encoding="utf-8"))
    rules = get_rules(record.game)
    replayed = [r for r in replay_rounds(record, rules) if r.report is not None]
    last = replayed[-2]  # a move in mid-game, not the end
    assert last.report is not None
    move = str(last.report.public["move"])
    result = RoundResult(
        round_id=1,
        orders={str(last.report.public["player"]): [move]},
        public_state=last.state,
        report={"public": dict(last.report.public), "private": {}, "codes": {}},
        state={},
        created_at=NOW,
    )
    return Scene(record.game, list(record.players), result, None)


def _result(rules: Any, resolution: Any, lines: dict[str, list[str]]) -> RoundResult:
    report = resolution.report
    return RoundResult(
        round_id=1,
        orders=lines,
        public_state=rules.public_state(resolution.state),
        report={"public": dict(report.public), "private": {}, "codes": dict(report.codes)},
        state=rules.dump(resolution.state),
        created_at=NOW,
    )


def render_round(ctx: ServiceContext, scene: Scene, extras: RoundExtras) -> int:
    """Every player's result mail of the round; the bytes written."""
    return sum(map(len, render_mails(ctx, scene, extras)))


def render_mails(ctx: ServiceContext, scene: Scene, extras: RoundExtras) -> list[bytes]:
    """Every player's result mail of the round."""
    pictures = extras.picture_context()
    template = mail_template(ctx, scene.game.kind, "result")
    root = thread_root(scene.game.name, ctx.identity)
    mails = []
    for seat in scene.seats:
        context = result_context(
            scene.game,
            seat,
            round_=scene.round,
            next_round=scene.next_round,
            result=scene.result,
            termination=scene.termination,
            players=scene.players,
            pictures=pictures,
            calendar=bool(extras.attachments),
        )
        mails.append(
            render_mail(
                ctx,
                template=template,
                context=context,
                to=seat.address,
                key=f"result:1:{seat.id}",
                now=NOW,
                threading=Threading(in_reply_to=root, references=(root,)),
                attachments=extras.attachments,
                images=extras.images,
            )
        )
    return mails


def round_extras(ctx: ServiceContext, scene: Scene, *, pictures: bool) -> RoundExtras:
    """The round's deadline attachment, and with ``pictures`` its pictures made into PNGs."""
    calendar = deadline_attachment(ctx, scene.game, scene.next_round, now=NOW)
    attachments = [calendar] if calendar else []
    if not pictures:
        return RoundExtras([], [], attachments)
    drawn = kind_of(scene.game.kind).pictures(
        scene.result.public_state, scene.result.report["public"]
    )
    pngs = make_pngs(ctx, drawn)
    return RoundExtras(drawn, inline_images(drawn, domain="pbem.test", pngs=pngs), attachments)


def round_mails(ctx: ServiceContext, scene: Scene, *, pictures: bool) -> list[bytes]:
    """The round's result mails as the service writes them, with or without pictures."""
    return render_mails(ctx, scene, round_extras(ctx, scene, pictures=pictures))


def timed(repeat: int, work: Callable[[], object]) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return times


def bench_game(ctx: ServiceContext, scene: Scene, rounds: int) -> dict[str, Any]:
    kind = scene.game.kind
    public = scene.result.report["public"]
    bare = round_extras(ctx, scene, pictures=False)
    render_round(ctx, scene, bare)  # compile the templates once
    paint = timed(rounds, lambda: kind_of(kind).pictures(scene.result.public_state, public))
    pictures = kind_of(kind).pictures(scene.result.public_state, public)
    ctx.pngs.clear()
    convert = timed(max(3, rounds // 5), lambda: make_pngs(ctx, pictures))  # no cache in it
    extras = round_extras(ctx, scene, pictures=True)
    plain = timed(rounds, lambda: render_round(ctx, scene, bare))
    full = timed(rounds, lambda: render_round(ctx, scene, extras))
    mails = len(scene.seats)
    figures = {
        "players": mails,
        "plain_html_mails_per_s": round(mails / statistics.median(plain)),
        "plain_html_ms_per_mail": round(statistics.median(plain) / mails * 1000, 3),
        "pictures_round_ms": {
            "draw": round(statistics.median(paint) * 1000, 2),
            "png": round(statistics.median(convert) * 1000, 1),
        },
        "with_pictures_mails_per_s": round(mails / statistics.median(full)),
        "round_ms": round(
            (statistics.median(full) + statistics.median(paint) + statistics.median(convert))
            * 1000,
            1,
        ),
        "mail_kb": {
            "plain_html": round(render_round(ctx, scene, bare) / mails / 1024, 1),
            "with_pictures": round(render_round(ctx, scene, extras) / mails / 1024, 1),
        },
        "png_kb": {image.name: round(len(image.png) / 1024, 1) for image in extras.images},
    }
    print(
        f"{kind}: {mails} result mails a round\n"
        f"  plain+HTML, no pictures: {figures['plain_html_mails_per_s']:,} mails/s"
        f" ({figures['plain_html_ms_per_mail']} ms a mail, {figures['mail_kb']['plain_html']} KB)\n"
        f"  pictures, once a round:  drawing {figures['pictures_round_ms']['draw']} ms,"
        f" PNG {figures['pictures_round_ms']['png']} ms ({figures['png_kb']})\n"
        f"  with pictures:           {figures['with_pictures_mails_per_s']:,} mails/s"
        f" ({figures['mail_kb']['with_pictures']} KB a mail); whole round"
        f" {figures['round_ms']} ms"
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="timed repetitions of a round")
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ctx = ServiceContext(
        identity=Identity("judge@pbem.test"), renderer=Renderer(), receipt_key=b"k"
    )
    figures = {
        "giveaway": bench_game(ctx, giveaway_scene(args.players, args.seed), args.rounds),
        "rock-scissors-paper": bench_game(ctx, rsp_scene(), args.rounds * 5),
        "target_plain_html_mails_per_s": 1000,
    }
    print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
