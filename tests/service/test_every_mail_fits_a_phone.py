"""Every kind of mail fits a phone (issue 40, finding 15: "test every HTML mail at 400 px in
Chromium, as the archive is"). tests/archive/test_accessibility.py looks at the golden mails,
which hold some kinds; here the plays of the property test of finding 5
(tests/service/test_every_mail_answerable*.py), which make every kind of mail a game sends to
its seats and its game master, are played again, and the HTML part of the first mail of each
kind, and of the answer to ``HELP game`` in every game, is laid out in headless Chromium at
400 px: nothing is wider than the window, and every picture has a text equivalent."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from answering import KIND_OF_ROW
from playing import Clock, new_game, newest_to, player_mail
from sqlmodel import Session, col, select
from test_every_mail_answerable import NOT_A_SEATS, _play, mail_kinds
from test_every_mail_answerable_deadlines import (
    test_replies_to_the_mails_of_deadlines_and_what_goes_wrong as play_deadlines,
)
from test_every_mail_answerable_seats import (
    test_replies_to_the_mails_of_a_sign_up as play_sign_up,
)
from test_every_mail_answerable_seats import (
    test_replies_to_the_mails_of_seats_changing_hands as play_seats,
)

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service.app import App, make_app
from adjudicator.storage.models import OutboxMail

# headless.py, which devtools.py drives Chromium with, lives with the archive's tests.
sys.path.append(str(Path(__file__).resolve().parents[1] / "archive"))
from devtools import Browser, browser
from headless import BrowserError, find_chromium
from needs import unavailable

WIDTH = 400
MEASURE = """({width: document.documentElement.scrollWidth, window: window.innerWidth,
  images: Array.prototype.filter.call(document.images,
    function (i) { return !i.getAttribute("alt"); }).length})"""
PLAYS: dict[str, Callable[[App], None]] = {
    "played": _play,
    "sign-up": play_sign_up,
    "seats": play_seats,
    "deadlines": play_deadlines,
}


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    if find_chromium() is None:
        unavailable("chromium is not installed (apt-get install chromium)")
    try:
        with browser() as driven:
            yield driven
    except BrowserError as error:
        unavailable(f"chromium could not be driven: {error}")


def _html_of_each_kind(tmp_path: Path) -> dict[str, Path]:
    """Each kind's first HTML part, from the plays, as a file Chromium opens."""
    pages: dict[str, Path] = {}
    for name, play in PLAYS.items():
        config = ServiceConfig(data_dir=str(tmp_path / name), address="judge@pbem.test")
        app = make_app(Config(service=config))
        app.clock = Clock()
        try:
            play(app)
            with Session(app.engine) as session:
                rows = list(session.exec(select(OutboxMail).order_by(col(OutboxMail.id))))
        finally:
            app.engine.dispose()
        for row in rows:
            kind = KIND_OF_ROW.get(row.kind, row.kind)
            if kind in pages:
                continue
            mail: EmailMessage = message_from_bytes(row.message, policy=policy.default)
            part = mail.get_body(preferencelist=("html",))
            if part is None or part.get_content_type() != "text/html":
                continue
            page = tmp_path / "pages" / f"{kind.replace(':', '-')}.html"
            page.parent.mkdir(exist_ok=True)
            page.write_text(str(part.get_content()), encoding="utf-8")
            pages[kind] = page
    return pages


SEATS = {
    "giveaway": ["alice", "bob", "carol"],
    "sissyfight": ["alice", "bob", "carol"],
    "starship-combat": ["kirk", "kang"],
    "three-musketeers": ["athos", "richelieu"],
    "rock-scissors-paper": ["wanda", "boris"],
}


def _help_of_every_game(tmp_path: Path) -> dict[str, Path]:
    """The answer to ``HELP game`` in a game of each kind, on a service without an archive:
    it carries the game's rules, headings and tables, the longest of the answers."""
    config = ServiceConfig(data_dir=str(tmp_path / "help"), address="judge@pbem.test")
    app = make_app(Config(service=config))
    app.clock = Clock()
    pages: dict[str, Path] = {}
    try:
        for number, (kind, seats) in enumerate(SEATS.items()):
            name = f"g{number}"
            new_game(app, seats, name=name, kind=kind)
            app.ingest(player_mail(name, seats[0], f"HELP {name}\n", number=number), channel="t")
            answer = newest_to(app, f"{seats[0]}@example.org", kind="answer")
            part = answer.get_body(preferencelist=("html",))
            assert part is not None
            page = tmp_path / "pages" / f"help-{kind}.html"
            page.parent.mkdir(exist_ok=True)
            page.write_text(str(part.get_content()), encoding="utf-8")
            pages[f"answer to HELP in {kind}"] = page
    finally:
        app.engine.dispose()
    return pages


def test_the_html_part_of_every_kind_of_mail_fits_400_px(chromium: Browser, tmp_path: Path) -> None:
    pages = _html_of_each_kind(tmp_path)
    # Every kind a game's seats or its game master get, less those that go to neither.
    wanted = mail_kinds() - set(NOT_A_SEATS)
    assert wanted - set(pages) == set(), "kinds without an HTML part in the plays"
    pages |= _help_of_every_game(tmp_path)
    chromium.window(WIDTH)
    problems = []
    for kind, page in sorted(pages.items()):
        chromium.load(page)
        measured = chromium.evaluate(MEASURE)
        if measured["width"] > measured["window"]:
            problems.append(f"{kind}: {measured['width']} px wide at {WIDTH} px")
        if measured["images"]:
            problems.append(f"{kind}: {measured['images']} image(s) without alt text")
    assert not problems, "\n".join(problems)
