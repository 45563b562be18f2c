"""The mail templates, checked on golden playthroughs played through the real service.

A record of tests/golden/<game>/ becomes a game on a fresh SQLite database: welcome mails, then
each round's orders as real order mails (PASSWORD line and all) through the intake, then the
round closed as at its deadline. Secrets, reply tokens, the service key and the clock are fixed,
so every mail comes out the same each time. What the service queued is read back from the
outbox, in order.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import format_datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.base.security import bounced_seat
from adjudicator.games import get_rules, read_record
from adjudicator.mail.compose import Identity, message_id, thread_root
from adjudicator.service.app import App, make_app
from adjudicator.service.closing import close_and_adjudicate
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.notices import queue_gm_notice
from adjudicator.service.rounds import open_round_of, start_game
from adjudicator.service.welcome import queue_welcome
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, OutboxMail, Round

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
SERVICE = "judge@pbem.test"
KEY = b"golden-mail-fixed-key-not-a-secret"
TAGS = {
    "giveaway": "gw7",
    "sissyfight": "sf3",
    "three-musketeers": "tm1",
    "rock-scissors-paper": "rsp2",
    "starship-combat": "duel",
}
ZONES = ("Europe/Berlin", "America/New_York")
"""Seat 1 reads times in Berlin, seat 2 in New York, the rest in the game's zone (UTC)."""


@dataclass(frozen=True)
class Sent:
    kind: str
    recipient: str
    key: str
    envelope_sender: str | None
    raw: bytes

    @property
    def message(self) -> EmailMessage:
        parsed: EmailMessage = message_from_bytes(self.raw, policy=policy.default)
        return parsed


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def _fixed_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = itertools.count(1)
    monkeypatch.setattr("adjudicator.service.games.new_secret", lambda: f"secret{next(counter)}")
    monkeypatch.setattr("adjudicator.service.games.new_token", lambda: f"token{next(counter):0>10}")
    monkeypatch.setattr("adjudicator.service.games.new_gm_token", lambda: "gm-token")


def make_service(tmp_path: Path) -> App:
    data = tmp_path / "data"
    data.mkdir(parents=True)
    (data / "secret.key").write_bytes(KEY)
    app = make_app(Config(service=ServiceConfig(data_dir=str(data), address=SERVICE)))
    app.clock = Clock()
    return app


def order_mail(
    game: str, player: str, secret: str, lines: list[str], number: int, *, written: datetime
) -> bytes:
    """A player's mail, dated when it is written (``written``): a mail dated before its round
    opened would be taken for one written for an earlier round."""
    message = EmailMessage()
    message["From"] = f"{player}@example.org"
    message["To"] = SERVICE
    message["Subject"] = f"[{game}] orders"
    message["Message-ID"] = f"<{player}-{number}@example.org>"
    message["Date"] = format_datetime(written)
    message.set_content("\n".join([f"PASSWORD {secret}", *lines]) + "\n")
    return message.as_bytes()


def play(record_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Sent]:
    """Play ``record_path`` through the service; every mail it queued, in order."""
    _fixed_secrets(monkeypatch)
    record = read_record(record_path.read_text(encoding="utf-8"))
    app = make_service(tmp_path)
    clock = app.clock
    assert isinstance(clock, Clock)
    tag = TAGS[record.game]
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name=tag,
            kind=record.game,
            players=[
                PlayerSpec(p, f"{p}@example.org", ZONES[i] if i < len(ZONES) else None)
                for i, p in enumerate(record.players)
            ],
            options=record.options,
            setup=record.setup,
            schedule="72h",
            settings={"early_close": False},  # each round closes at its deadline, as recorded
            gm_address="gm@example.org",
            now=clock(),
        )
        first = start_game(session, game, now=clock())
        queue_welcome(
            session, ctx=app.ctx, game=game, credentials=credentials, first_round=first, now=clock()
        )
    secrets = {c.handle: c.secret for c in credentials}
    sequential = get_rules(record.game).sequential
    number = itertools.count(1)
    if sequential:  # the second seat writes before the first has moved: not their turn
        waiting = record.players[1]
        lines = [record.rounds[0].orders[0].text]
        app.ingest(
            order_mail(tag, waiting, secrets[waiting], lines, next(number), written=clock()),
            channel="test",
        )
    full = record_path.stem == FULL.get(record_path.parent.name)
    asker = record.players[0]
    for index, round_ in enumerate(record.rounds):
        grouped: dict[str, list[str]] = {}
        for order in round_.orders:
            grouped.setdefault(order.player, []).append(order.text)
        for player, lines in grouped.items():
            clock.now += timedelta(hours=1)
            app.ingest(
                order_mail(tag, player, secrets[player], lines, next(number), written=clock()),
                channel="test",
            )
        if not sequential:
            clock.now += timedelta(hours=72)
            _close_open_round(app, tag)
        if full and index == 0:  # a player asks for reports while the game is on
            asked = ["REPORT 1", "HISTORY", "REPORT 9"]
            app.ingest(
                order_mail(tag, asker, secrets[asker], asked, next(number), written=clock()),
                channel="test",
            )
    clock.now += timedelta(hours=1)
    # Orders after the end are answered as late (a remark alone would be acknowledged); a game
    # master is told of what needs a human.
    app.ingest(
        order_mail(tag, asker, secrets[asker], ["GIVE 1 TO bob"], next(number), written=clock()),
        channel="test",
    )
    if full:  # and the reports of a finished game
        asked = ["REPORT", "HISTORY"]
        app.ingest(
            order_mail(tag, asker, secrets[asker], asked, next(number), written=clock()),
            channel="test",
        )
    _gm_notices(app, tag)
    return outbox(app)


def _close_open_round(app: App, tag: str) -> None:
    with session_scope(app.engine) as session:
        game = session.exec(select(Game).where(Game.name == tag)).one()
        round_ = open_round_of(session, game)
        if round_ is not None and round_.id is not None:
            close_and_adjudicate(session, round_.id, ctx=app.ctx, now=app.clock(), force=True)

    app.report()  # pictures made, then the result mails queued


def _gm_notices(app: App, tag: str) -> None:
    with session_scope(app.engine) as session:
        game = session.exec(select(Game).where(Game.name == tag)).one()
        last = session.exec(
            select(Round).where(Round.game_id == game.id).order_by(col(Round.number).desc())
        ).first()
        details = {
            "missed_rounds": {"player": "carol", "address": "carol@example.org", "missed": 3},
            "bounced": {
                "player": "carol",
                "address": "carol@example.org",
                "reason": "550 5.1.1 <carol@example.org>: Recipient address rejected",
            },
            "adjudication_failed": {"reason": "the round's work budget was exceeded"},
            "refused": {
                "player": "carol",
                "address": "carol@example.org",
                "reply": "550 5.1.1 <carol@example.org>: Recipient address rejected: User unknown",
                "mail_kind": "result",
                "outbox_id": 42,
            },
        }
        for notice, values in details.items():
            queue_gm_notice(
                session,
                ctx=app.ctx,
                game=game,
                notice=notice,
                key=f"golden:{notice}",
                now=app.clock(),
                round_=last,
                **values,
            )


def outbox(app: App) -> list[Sent]:
    with Session(app.engine) as session:
        rows = session.exec(select(OutboxMail).order_by(col(OutboxMail.id))).all()
        return [Sent(r.kind, r.recipient, r.key, r.envelope_sender, r.message) for r in rows]


# --- golden files ------------------------------------------------------------------------

MAIL_GOLDEN = GOLDEN / "mail"
FULL = {
    "giveaway": "nmr-and-rings",
    "sissyfight": "joint-win",
    "starship-combat": "mutual-destruction",
    "three-musketeers": "cardinal-wins-by-a-line",
    "rock-scissors-paper": "two-flags-custom",
}
"""For these playthroughs every kind of mail is kept; for the others, only the last result."""
RECORDS = sorted(GOLDEN.glob("*/*.record"))
ONCE = ("welcome", "confirmation", "rejection", "not_your_turn", "late")


def chosen(record: Path, sent: list[Sent]) -> dict[str, Sent]:
    """The mails of a playthrough that get golden files, by file stem."""
    results = [s for s in sent if s.kind == "result"]
    first_seat = results[0].recipient if results else ""
    picked: dict[str, Sent] = {}
    if record.stem == FULL.get(record.parent.name):
        for kind in ONCE:
            found = next((s for s in sent if s.kind == kind), None)
            if found is not None:
                picked[f"{record.stem}-{kind}"] = found
        picked[f"{record.stem}-result-round-1"] = results[0]
        for kind in ("report", "history", "request_problem"):
            picked[f"{record.stem}-{kind}"] = next(s for s in sent if s.kind == kind)
        picked[f"{record.stem}-history-final"] = [s for s in sent if s.kind == "history"][-1]
        picked[f"{record.stem}-report-final"] = [s for s in sent if s.kind == "report"][-1]
        if record.parent.name == "giveaway":
            for sent_mail in sent:
                if sent_mail.kind.startswith("gm:"):
                    picked[f"gm-notice-{sent_mail.kind[3:]}"] = sent_mail
    last = [s for s in results if s.recipient == first_seat][-1]
    others = [s for s in results if s.key.split(":")[1] == last.key.split(":")[1]]
    picked[f"{record.stem}-result-last"] = last
    picked[f"{record.stem}-result-last-seat-2"] = others[1]
    return picked


def readable(sent: Sent) -> tuple[str, str | None]:
    """A mail as a person reviews it: the envelope, the headers that matter, the layout of
    its parts, the plain part and any calendar event or record attached; and the HTML part on
    its own."""
    message = sent.message
    lines = [
        f"Envelope-From: {sent.envelope_sender or '(the service default)'}",
        *(
            f"{name}: {message[name]}"
            for name in ("From", "To", "Subject", "Date", "Reply-To", "Auto-Submitted")
            if message[name]
        ),
        f"Parts: {structure(message)}",
        "",
    ]
    plain = message.get_body(preferencelist=("plain",))
    assert plain is not None
    lines.append(str(plain.get_content()).rstrip("\n"))
    for part in message.walk():
        attached = part.get_content_type() == "text/plain" and part.get_filename()
        if part.get_content_type() == "text/calendar" or attached:
            lines += ["", f"----- {part.get_filename()} -----"]
            lines.append(part.get_payload(decode=True).decode("utf-8").replace("\r\n", "\n"))
    html = message.get_body(preferencelist=("html",))
    return "\n".join(lines).rstrip("\n") + "\n", None if html is None else str(html.get_content())


def structure(part: EmailMessage) -> str:
    if part.is_multipart():
        inner = ", ".join(structure(p) for p in part.iter_parts())  # type: ignore[arg-type]
        return f"{part.get_content_type()} [{inner}]"
    name = part.get_filename()
    return part.get_content_type() + (f" {name}" if name else "")


@pytest.fixture(scope="module")
def playthroughs(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, list[Sent]]:
    played = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        for record in RECORDS:
            played[record] = play(record, tmp_path_factory.mktemp(record.stem), monkeypatch)
    return played


@pytest.mark.parametrize("record", RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_mails_match_their_golden_files(record: Path, playthroughs: dict[Path, list[Sent]]) -> None:
    """Every mail kind of every game, rendered from the golden playthroughs, as reviewed.
    ``UPDATE_GOLDEN=1`` rewrites the files: read every changed one before committing it."""
    folder = MAIL_GOLDEN / record.parent.name
    update = os.environ.get("UPDATE_GOLDEN") == "1"
    differ = []
    for stem, sent in chosen(record, playthroughs[record]).items():
        text, html = readable(sent)
        for suffix, content in ((".txt", text), (".html", html)):
            if content is None:
                continue
            path = folder / f"{stem}{suffix}"
            if update:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
            elif not path.exists() or path.read_text(encoding="utf-8") != content:
                differ.append(path.name)
    assert not differ, f"mails differ from their golden files: {differ} (UPDATE_GOLDEN=1 rewrites)"


def test_every_golden_file_is_still_produced(playthroughs: dict[Path, list[Sent]]) -> None:
    """A golden file no playthrough writes any more is a review nobody sees fail."""
    produced = set()
    for record, sent in playthroughs.items():
        for stem, mail in chosen(record, sent).items():
            suffixes = (".txt", ".html") if readable(mail)[1] is not None else (".txt",)
            produced |= {MAIL_GOLDEN / record.parent.name / f"{stem}{s}" for s in suffixes}
    assert set(MAIL_GOLDEN.rglob("*.*")) == produced


# --- what every mail must be -------------------------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
FORBIDDEN = {"script", "style", "link", "iframe", "object", "embed", "form"}


class _HtmlCheck(HTMLParser):
    """Well-formed enough for any mail client: every element closed in order, no scripts or
    style sheets (inline styles only), no event handlers; collects the images' sources."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.problems: list[str] = []
        self.images: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in FORBIDDEN:
            self.problems.append(f"<{tag}>")
        self.problems += [f"{tag} {name}=" for name, _ in attrs if name.startswith("on")]
        if tag == "img":
            self.images.append(dict(attrs))
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.open[-1] if self.open else ''}>")
        else:
            self.open.pop()


def _all_mails(playthroughs: dict[Path, list[Sent]]) -> list[tuple[Path, Sent]]:
    return [(record, sent) for record, mails in playthroughs.items() for sent in mails]


def test_every_html_part_parses_and_shows_only_images_it_carries(
    playthroughs: dict[Path, list[Sent]],
) -> None:
    for record, sent in _all_mails(playthroughs):
        message = sent.message
        html = message.get_body(preferencelist=("html",))
        assert html is not None, f"{record.stem} {sent.key}: no HTML part"
        checker = _HtmlCheck()
        checker.feed(str(html.get_content()))
        checker.close()
        assert not checker.problems, f"{record.stem} {sent.key}: {checker.problems}"
        assert checker.open == [], f"{record.stem} {sent.key}: unclosed {checker.open}"
        carried = {
            str(part["Content-ID"]).strip("<>"): part
            for part in message.walk()
            if part["Content-ID"] is not None
        }
        shown = [str(image.get("src")) for image in checker.images]
        assert all(src.startswith("cid:") for src in shown), shown  # nothing fetched from afar
        assert {src[4:] for src in shown} == set(carried), f"{record.stem} {sent.key}"
        for image in checker.images:
            assert image.get("alt")
            assert image.get("width")
            assert image.get("height")
        for part in carried.values():
            assert part.get_content_type() == "image/png"
            assert part.get_payload(decode=True).startswith(b"\x89PNG")


def test_result_mails_show_every_picture_of_their_game(
    playthroughs: dict[Path, list[Sent]],
) -> None:
    wanted = {
        "giveaway": {"gifts.png", "standings.png"},
        "sissyfight": {"chips.png"},
        "starship-combat": {"ships.png"},
        "three-musketeers": {"board.png"},
        "rock-scissors-paper": {"board.png"},
    }
    for record, sent in _all_mails(playthroughs):
        if sent.kind == "result":
            names = {p.get_filename() for p in sent.message.walk() if p["Content-ID"]}
            assert names == wanted[record.parent.name], f"{record.stem} {sent.key}"


def test_mail_to_a_player_carries_the_seats_own_bounce_address(
    playthroughs: dict[Path, list[Sent]],
) -> None:
    """A bounce comes back to an address that names the seat it was sent to."""
    for record, sent in _all_mails(playthroughs):
        player = sent.recipient.partition("@")[0]
        if player not in read_record(record.read_text(encoding="utf-8")).players:
            assert sent.envelope_sender is None  # the game master, or a stranger
            continue
        assert sent.envelope_sender is not None, f"{record.stem} {sent.key}"
        seat_id = bounced_seat(KEY, sent.envelope_sender)
        players = read_record(record.read_text(encoding="utf-8")).players
        assert seat_id == players.index(player) + 1  # seats are numbered from 1 in a new db


def test_a_games_mails_thread_together_with_stable_ids(
    playthroughs: dict[Path, list[Sent]],
) -> None:
    for record, mails in playthroughs.items():
        tag = TAGS[record.parent.name]
        root = thread_root(tag, Identity(SERVICE))
        ids = [sent.message["Message-ID"] for sent in mails]
        assert len(set(ids)) == len(ids)
        for sent in mails:
            assert root in str(sent.message["References"]).split(), f"{record.stem} {sent.key}"
            assert sent.message["Message-ID"] == message_id(sent.key, Identity(SERVICE))


def test_result_and_welcome_mails_fit_a_terminal(playthroughs: dict[Path, list[Sent]]) -> None:
    for record, sent in _all_mails(playthroughs):
        if sent.kind in ("result", "welcome"):
            plain = sent.message.get_body(preferencelist=("plain",))
            assert plain is not None
            long = [line for line in str(plain.get_content()).splitlines() if len(line) > 100]
            assert not long, f"{record.stem} {sent.key}: {long}"


def test_only_the_players_a_round_waits_for_get_its_deadline(
    playthroughs: dict[Path, list[Sent]],
) -> None:
    """In a sequential game the player who moved next waits: their mail has no calendar."""
    record = GOLDEN / "three-musketeers" / "cardinal-wins-by-a-line.record"
    first = [s for s in playthroughs[record] if s.key.startswith("result:1:")]
    calendars = {
        s.recipient: [
            p.get_filename() for p in s.message.walk() if p.get_content_type() == "text/calendar"
        ]
        for s in first
    }
    assert calendars == {"athos@example.org": [], "richelieu@example.org": ["tm1-round-2.ics"]}


def test_every_mail_parses_without_a_defect_under_the_strict_policy(
    playthroughs: dict[Path, list[Sent]],
) -> None:
    """RFC 2046 5.1.1: a multipart body follows its header fields after a blank line, and each
    boundary starts a line. Every kind of mail the service sends (welcome, confirmation,
    rejection, late, not your turn, results with pictures and calendar, reports, history,
    request problems, game master notices) must parse with no defect at all."""
    strict = policy.default.clone(raise_on_defect=True)
    kinds = set()
    for record, sent in _all_mails(playthroughs):
        message = message_from_bytes(sent.raw, policy=strict)
        defects = [(part.get_content_type(), part.defects) for part in message.walk()]
        assert all(not found for _, found in defects), f"{record.stem} {sent.key}: {defects}"
        kinds.add(sent.kind.split(":")[0])
    assert {"welcome", "confirmation", "rejection", "result", "gm"} <= kinds
