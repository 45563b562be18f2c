"""Every kind of HTML mail the service sends, as the service renders it, fits a phone and passes
axe-core's checks of WCAG 2.1 A and AA (issue 47: "A test in the suite renders every kind of
HTML mail ... in headless Chromium at 320 px and at 1280 px"); so do the archive's pages of a
tournament, the players' page and the rating lists with their charts.

The kinds of mail are taken from the code, as tests/service/test_every_mail_answerable.py takes
them: every mail template, the game master's notices one by one; and each game's own wording
of a kind (its result). The plays that make them are
the plays of the answerable tests (a game played, a sign-up, seats changing hands, deadlines
and what goes wrong) and of the tests of tournaments, former players, the loop guard, the
intake and REMOVE in SiSSYFiGHT, and a round of each game, each on a service of its own; every mail they render is recorded as the service
renders it (``Renderer.mail``), and the first and the longest HTML part of each kind is opened
in Chromium. A new kind of mail fails
:func:`test_every_kind_of_html_mail_the_service_sends_fits_a_phone_and_passes_axe` until a play
here makes it. tests/archive/test_accessibility.py checks the reviewed golden mails and the
sample games' archive the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import test_every_mail_answerable as answerable
import test_every_mail_answerable_deadlines as deadlines
import test_every_mail_answerable_seats as seats
import test_every_mail_answerable_webhooks as webhooks
import test_former_players as former
import test_loop_guard as loop_guard
import test_removed_from_the_fight as removed_fight
import test_tournament_changes as tournament_changes
import test_tournament_gm_mail as tournament_gm
import test_tournaments as tournaments
from axe import axe_browser, problems_of
from playing import (
    Clock,
    close_open_round,
    new_game,
    newest_to,
    plain,
    plain_mail,
    player_mail,
    queued,
)

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.base.shipped import GAME_TEMPLATES
from adjudicator.games import GAME_NAMES
from adjudicator.mail.compose import TEMPLATES, RenderedMail, Renderer
from adjudicator.service.app import App, make_app
from adjudicator.service.intake import MAX_SECTIONS

WIDTHS = (320, 1280)


@dataclass
class Rendered:
    """Every mail rendered, by kind: the HTML parts, and the kinds rendered only as plain
    text (a section of another mail)."""

    html: dict[str, list[str]] = field(default_factory=dict)
    plain: set[str] = field(default_factory=set)
    templates: set[str] = field(default_factory=set)
    """The templates rendered with an HTML part (``giveaway/result``, ``welcome``)."""

    def kinds(self) -> set[str]:
        return set(self.html) | self.plain


def kind_of(name: str, context: Mapping[str, Any]) -> str:
    """The kind of mail a template makes, as :func:`answerable.mail_kinds` names it: a game's
    own template (``giveaway/result``) by its kind, a game master's notice by its notice."""
    if name == "gm_notice":
        return f"gm:{context['notice']}"
    return name.rpartition("/")[2]


def made_with_anothers_template() -> set[str]:
    """The kinds filed under a label of their own but made with another kind's template (the
    answer to REPORT, ``report``, is a round's result): their HTML is that kind's, read here
    as it."""
    folder = Path(str(TEMPLATES)) / "mail"
    return {
        kind
        for kind in answerable.mail_kinds()
        if not kind.startswith("gm:") and not (folder / f"{kind}.txt.j2").exists()
    }


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> Rendered:
    """What every service's renderer renders from now on."""
    seen = Rendered()
    original = Renderer.mail

    def recording(
        self: Renderer, name: str, context: Mapping[str, Any], *, html: bool = True
    ) -> RenderedMail:
        made = original(self, name, context, html=html)
        kind = kind_of(name, context)
        if made.html is None:
            seen.plain.add(kind)
        else:
            seen.html.setdefault(kind, []).append(made.html)
            seen.templates.add(name)
        return made

    monkeypatch.setattr(Renderer, "mail", recording)
    return seen


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Callable[[], App]]:
    """A new service on a database of its own for each play (their games share names)."""
    made: list[App] = []

    def new() -> App:
        folder = tmp_path / f"service-{len(made)}"
        config = Config(
            service=ServiceConfig(
                data_dir=str(folder / "data"), database_url="", address="judge@pbem.test"
            )
        )
        app = make_app(config)
        app.clock = Clock()
        made.append(app)
        return app

    yield new
    for app in made:
        app.engine.dispose()


def games_own_mails() -> set[str]:
    """The kinds of mail a game words in a template of its own (``giveaway/result``): the
    service takes ``mail/<game>/<kind>.txt.j2`` for that kind of mail to a game of that kind
    (``notify.mail.mail_template``)."""
    kinds = answerable.mail_kinds()
    return {
        f"{path.parent.name}/{path.name.removesuffix('.txt.j2')}"
        for folder in GAME_TEMPLATES
        for path in (folder / "mail").glob("*/*.txt.j2")
        if path.name.removesuffix(".txt.j2") in kinds
    }


def _a_round_of_each_game(app: App) -> None:
    """A game of each kind, its players welcomed, its first round closed: each game's own
    result mail."""
    players = {"giveaway": 3, "sissyfight": 3}
    for number, kind in enumerate(GAME_NAMES):
        handles = ["alice", "bob", "carol"][: players.get(kind, 2)]
        new_game(app, handles, name=f"g{number}", kind=kind, welcome=True)
        close_open_round(app, f"g{number}")


def _no_game_and_too_many_sections(app: App) -> None:
    """A stranger's mail that names no game; a player's mail with more game sections than
    are read (its answer says so in a section of its own)."""
    app.ingest(
        plain_mail("stranger@example.net", "GIVE 3 TO bob", subject="orders", message_id="<n@x>"),
        channel="t",
    )
    assert queued(app, "no_game")
    new_game(app, ["alice", "bob", "carol"])
    body = "\n\n".join(f"GAME gw{n}\nSTATUS" for n in range(1, MAX_SECTIONS + 3))
    app.ingest(
        plain_mail("alice@example.org", body, subject="many", message_id="<m@x>"), channel="t"
    )


def test_every_kind_of_html_mail_the_service_sends_fits_a_phone_and_passes_axe(
    rendered: Rendered, services: Callable[[], App], tmp_path: Path
) -> None:
    """Each kind of mail, made by a play and rendered by the service, at 320 px and 1280 px:
    no wider than the window, every picture with alt text, no axe violation. The tournament's
    play builds the archive: its tournament pages, the players' page and the rating lists
    (each player's rating history a chart) are checked the same way, light and dark."""
    answerable.test_replies_to_the_mails_of_a_game_played(services())
    answerable.test_a_reply_to_the_daily_digest_is_read_as_the_seats(services())
    webhooks.test_replies_to_the_mails_of_webhooks_given_up(services())
    seats.test_replies_to_the_mails_of_a_sign_up(services())
    seats.test_replies_to_the_mails_of_seats_changing_hands(services())
    deadlines.test_replies_to_the_mails_of_deadlines_and_what_goes_wrong(services())
    tournament_changes.test_players_sign_up_by_mail_and_the_game_master_decides(services())
    tournament_gm.test_withdraw_and_replace_by_mail(services())
    site = tmp_path / "tournament"
    site.mkdir()
    tournaments.test_a_round_robin_of_four_three_musketeers_on_both_sides(services(), site)
    former.test_a_replaced_player_replying_to_an_old_mail_is_told_his_seat_passed_on(services())
    loop_guard.test_a_robot_answering_our_answers_within_seconds_is_held_back_and_told_once(
        services()
    )
    _no_game_and_too_many_sections(services())
    _a_round_of_each_game(services())
    removed_fight.test_a_player_taken_out_is_out_at_the_end_of_the_turn_and_the_fight_can_end(
        services()
    )

    missing = answerable.mail_kinds() - rendered.kinds() - made_with_anothers_template()
    assert not missing, f"kinds of mail no play here makes: {sorted(missing)}"
    own = games_own_mails()
    assert "giveaway/result" in own
    left = sorted(own - rendered.templates)
    assert not left, f"games' own mails no play here makes: {left}"
    folder = tmp_path / "mails"
    folder.mkdir()
    pages = {}
    for kind, parts in sorted(rendered.html.items()):
        longest = max(range(len(parts)), key=lambda i: len(parts[i]))
        for which, index in (("first", 0), ("longest", longest)):
            if which == "longest" and index == 0:
                continue
            page = folder / f"{kind.replace(':', '-')}-{which}.html"
            page.write_text(parts[index], encoding="utf-8")
            pages[f"mail {kind} ({which})"] = page
    built = site / "site"
    archive = {
        f"page {path.relative_to(built)}": path
        for pattern in ("tournaments/*.html", "players.html", "ratings/three-musketeers.html")
        for path in sorted(built.glob(pattern))
    }
    assert len(archive) == 4, sorted(archive)  # the list, the tournament, players, ratings
    for name, path in archive.items():  # the trail's separators are not read out
        crumbs = path.read_text().split('<nav class="crumbs"', 1)[1].split("</nav>", 1)[0]
        assert crumbs.count("›") == crumbs.count('<span aria-hidden="true">›</span>'), name
        assert crumbs.count('aria-current="page"') == 1, name
    ratings = archive["page ratings/three-musketeers.html"].read_text()
    charts = ratings.count('<svg class="chart"')
    assert charts == 4  # a rating history for each player, each with its table: its text version
    assert ratings.count("<summary>The same as a table</summary>") == charts
    assert ratings.count('<th scope="col" class="num">Rating after it</th>') == charts
    with axe_browser() as chromium:
        problems = problems_of(chromium, pages | archive, widths=WIDTHS)
        problems += problems_of(chromium, archive, widths=(400,), dark=True)
    assert not problems, "\n".join(problems)


def test_the_rules_in_an_answer_to_help_are_formatted_in_its_html_part(app: App) -> None:
    """Without an archive to link to, HELP for a game answers with the rules at the end of the
    mail: the HTML part shows them as the formatted page they are, as the welcome does, not
    their plain text with its 72-dash rule lines (wider than a phone) and underlined
    headings."""
    new_game(app, ["alice", "bob", "carol"])
    app.ingest(player_mail("gw1", "bob", "HELP gw1", number=1), channel="t")
    answer = newest_to(app, "bob@example.org", kind="answer")
    rule = "-" * 72
    assert f"\n{rule}\nThe rules of Giveaway" in plain(answer)
    part = answer.get_body(preferencelist=("html",))
    assert part is not None
    html = str(part.get_content())
    assert rule not in html
    assert "The rules of Giveaway, as the service adjudicates them</p>" in html
    assert ">Giveaway (aka Order From Chaos)</h1>" in html
    assert "How to play Giveaway in game gw1" in html  # the answer before the rules
    assert "This is an automatic message" in html  # and its footer after them
