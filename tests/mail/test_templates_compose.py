"""Writing mails: MIME that mail readers parse back exactly, the plain part as HTML, the
HTML part without its pictures when they cannot be drawn, and what each player may see."""

from __future__ import annotations

import logging
import sys
from datetime import UTC, datetime
from email import message_from_bytes, message_from_string, policy
from email.message import EmailMessage

import pytest

from adjudicator.games import kind_of
from adjudicator.mail import images, vips
from adjudicator.mail.compose import (
    Attachment,
    Identity,
    Inline,
    Renderer,
    compose,
    plain_to_html,
    with_picture_text,
)
from adjudicator.notify.context import ServiceContext
from adjudicator.pictures import Picture
from adjudicator.service.pictures import make_pngs
from adjudicator.service.round_results import RoundExtras, result_context
from adjudicator.storage.models import Game, Round, RoundResult, Seat

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
ME = Identity("judge@pbem.test", "Schiedsrichter Jürgen")


def _parse(raw: bytes) -> EmailMessage:
    message: EmailMessage = message_from_bytes(raw, policy=policy.default)
    return message


def test_a_full_mail_parses_back_part_for_part() -> None:
    text = "Hello ünïcödé,\n\n" + "a long line " * 20 + "\n-- \nsignature\n"
    raw = compose(
        identity=ME,
        to="alice@example.org",
        subject="[gw7] Runde 2 – Ergebnis für Jürgen, " + " ".join(["lang"] * 20),
        text=text,
        html='<p>Hello <img src="cid:board.1@pbem.test"></p>',
        key="result:1:1",
        now=NOW,
        in_reply_to="<root@pbem.test>",
        references=["<root@pbem.test>", "<other@example.org>"],
        attachments=[
            Attachment(
                "gw7-round-2.ics", b"BEGIN:VCALENDAR\r\n", "text", "calendar", "method=PUBLISH"
            )
        ],
        inline=[Inline("board.png", b"\x89PNG fake", "board.1@pbem.test")],
    )
    assert raw.isascii()  # 7-bit clean: quoted-printable, base64 and RFC 2047 words
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    message = _parse(raw)
    assert message["Subject"] == "[gw7] Runde 2 – Ergebnis für Jürgen, " + " ".join(["lang"] * 20)
    assert message["From"].addresses[0].display_name == "Schiedsrichter Jürgen"
    assert message["References"].split() == ["<root@pbem.test>", "<other@example.org>"]
    assert message["Auto-Submitted"] == "auto-generated"
    plain = message.get_body(preferencelist=("plain",))
    assert plain is not None
    assert plain.get_content() == text
    html = message.get_body(preferencelist=("html",))
    assert html is not None
    assert "cid:board.1@pbem.test" in html.get_content()
    (image,) = [p for p in message.walk() if p["Content-ID"]]
    assert image["Content-ID"] == "<board.1@pbem.test>"
    assert image.get_payload(decode=True) == b"\x89PNG fake"
    (calendar,) = list(message.iter_attachments())
    assert calendar.get_content_type() == "text/calendar"
    assert calendar.get_param("method") == "PUBLISH"
    assert calendar.get_payload(decode=True) == b"BEGIN:VCALENDAR\r\n"  # CRLF kept exactly


def test_the_same_mail_gives_the_same_bytes() -> None:
    def make() -> bytes:
        return compose(
            identity=ME, to="a@b.c", subject="s", text="t\n", html="<p>t</p>", key="k", now=NOW
        )

    assert make() == make()

    def message_id_of(key: str, text: str) -> str:
        mail = compose(identity=ME, to="a@b.c", subject="s", text=text, key=key, now=NOW)
        return str(_parse(mail)["Message-ID"])

    # named by its outbox key: a re-queued mail keeps its Message-ID, another mail gets another
    assert message_id_of("k", "t\n") == message_id_of("k", "changed\n")
    assert message_id_of("k", "t\n") != message_id_of("k2", "t\n")


def test_plain_text_becomes_safe_html() -> None:
    html = plain_to_html(
        "Hello <b>bob</b> & co,\n\nyour orders:\n\n    GIVE 1 TO <alice>\n\n"
        "  * first problem\n    Suggestion: GIVE 3 TO bob\n  * second\n\nwrite to judge@pbem.test\n-- \nfooter\n"
    )
    assert "<b>" not in html
    assert "&lt;b&gt;bob&lt;/b&gt; &amp; co" in html
    assert "GIVE&nbsp;1&nbsp;TO&nbsp;&lt;alice&gt;" in html  # orders keep their layout
    assert html.count("<li") == 2
    assert "Suggestion: GIVE 3 TO bob" in html
    assert '<a href="mailto:judge@pbem.test"' in html
    assert "footer" in html.split("<p")[-1]


def test_web_addresses_become_links_without_the_sentence_around_them() -> None:
    html = plain_to_html(
        "See https://pbem.example.org/games/gw7/round-2.html. Or (https://x.test/a?b=1&c=2).\n"
        "Not a link: javascript:alert(1) or http://\n"
    )
    assert '<a href="https://pbem.example.org/games/gw7/round-2.html"' in html
    assert "round-2.html</a>. Or" in html
    assert '<a href="https://x.test/a?b=1&amp;c=2"' in html  # escaped inside the attribute
    assert html.count("<a ") == 2


def _giveaway_result() -> tuple[Game, RoundResult, Round]:
    game = Game(id=1, name="gw7", kind="giveaway", created_at=NOW)
    report = {
        "round": 1,
        "gifts": [{"from": "alice", "to": "bob", "amount": 3, "paid": 3}],
        "no_orders": [],
        "rings": [],
        "broken_cycles": [],
        "broken_cycles_total": 0,
        "scores": {"alice": 0, "bob": 3},
        "holdings": {"alice": 3, "bob": 6},
        "result": "no-score-of-100-yet",
        "winner": None,
    }
    result = RoundResult(
        round_id=1,
        orders={"alice": ["GIVE 3 TO bob"]},
        rejected=[{"player": "bob", "order": "GIVE 9 TO alice", "error": "bob's own problem"}],
        public_state={"scores": report["scores"], "holdings": report["holdings"], "rings": []},
        report={
            "public": report,
            "private": {"bob": {"secret": "for bob only"}},
            "codes": {"alice": ["given"]},
        },
        created_at=NOW,
    )
    return game, result, Round(id=1, game_id=1, number=1, opened_at=NOW)


def test_each_player_sees_only_their_own_private_report_and_problems() -> None:
    game, result, round_ = _giveaway_result()
    contexts = {
        handle: result_context(
            game,
            Seat(id=n, game_id=1, seat=n, handle=handle, address=f"{handle}@x", secret_hash="h"),
            round_=round_,
            next_round=None,
            result=result,
            termination=None,
            players=["alice", "bob"],
            pictures=[],
        )
        for n, handle in enumerate(("alice", "bob"))
    }
    assert contexts["bob"]["private"] == {"secret": "for bob only"}
    assert contexts["alice"]["private"] == {}
    assert contexts["alice"]["rejected"] == []
    assert [r["order"] for r in contexts["bob"]["rejected"]] == ["GIVE 9 TO alice"]
    assert contexts["alice"]["codes"] == ["given"]
    assert contexts["bob"]["codes"] == []


def test_without_a_renderer_the_html_goes_out_without_pictures(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """As on a machine where the renderer's library cannot load: said once, mail still sent."""
    monkeypatch.setattr(vips, "_vips", None)
    monkeypatch.setattr(vips, "_failed", None)
    monkeypatch.setitem(sys.modules, "pyvips", None)  # the import fails
    game, result, _ = _giveaway_result()
    ctx = ServiceContext(identity=ME, renderer=Renderer(), receipt_key=b"k")
    pictures = kind_of(game.kind).pictures(result.public_state, result.report["public"])
    with caplog.at_level(logging.WARNING):
        made = make_pngs(ctx, pictures)
    assert made == {}
    extras = RoundExtras(pictures, images.inline_images(pictures, domain="pbem.test", pngs=made))
    assert [p.name for p in extras.pictures] == ["gifts", "standings"]
    assert extras.images == []
    assert "pictures cannot be drawn" in caplog.text
    shown = extras.picture_context()
    assert all(p["cid"] is None for p in shown)
    rendered = ctx.renderer.mail(
        "result",
        {
            **result_context(
                game,
                Seat(id=1, game_id=1, seat=0, handle="alice", address="a@x", secret_hash="h"),
                round_=Round(id=1, game_id=1, number=1, opened_at=NOW),
                next_round=None,
                result=result,
                termination=None,
                players=["alice", "bob"],
                pictures=shown,
            ),
        },
    )
    assert rendered.html is not None
    assert "cid:" not in rendered.html
    assert "<img" not in rendered.html
    assert "alice&nbsp;&nbsp;-&gt;&nbsp;bob&nbsp;3" in rendered.html  # the text diagram instead


def test_pictures_become_sharp_pngs_shown_at_the_svgs_size() -> None:
    (picture,) = kind_of("starship-combat").pictures(
        {},
        {
            "round": 1,
            "choices": {"a": "FIRE", "b": "SHIELD"},
            "no_orders": [],
            "missiles": {"a": 2, "b": 3},
            "power": {"a": 6, "b": 5},
            "destroyed": [],
        },
    )
    ctx = ServiceContext(identity=ME, renderer=Renderer(), receipt_key=b"k")
    (image,) = images.inline_images([picture], domain="pbem.test", pngs=make_pngs(ctx, [picture]))
    width, height = images.svg_size(picture.svg)
    assert (image.width, image.height) == (width, height)
    png_width = int.from_bytes(image.png[16:20], "big")  # the IHDR chunk
    png_height = int.from_bytes(image.png[20:24], "big")
    assert (png_width, png_height) == (round(width * images.ZOOM), round(height * images.ZOOM))
    assert image.content_id.startswith("ships.")
    assert image.content_id.endswith("@pbem.test")


def test_a_broken_svg_is_left_out_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    broken = Picture(
        "board", "The board", "text", '<svg width="10" height="10"><unclosed', "The board in words"
    )
    ctx = ServiceContext(identity=ME, renderer=Renderer(), receipt_key=b"k")
    with caplog.at_level(logging.WARNING):
        made = make_pngs(ctx, [broken])
    assert made == {}
    assert images.inline_images([broken], domain="pbem.test", pngs=made) == []
    assert "a picture could not be drawn" in caplog.text


@pytest.mark.parametrize(
    ("to", "name", "address"),
    [
        ("bob@example.org", "", "bob@example.org"),
        ('"Smith, Bob" <bob@example.org>', "Smith, Bob", "bob@example.org"),
        ("Jürgen Müller <gm@example.org>", "Jürgen Müller", "gm@example.org"),
        ("jürgen@example.org", "", "jürgen@example.org"),
    ],
)
def test_recipients_read_back_as_the_same_name_and_address(
    to: str, name: str, address: str
) -> None:
    raw = compose(
        identity=ME,
        to=to,
        reply_to=to,
        subject="s",
        text="t\n",
        key="k",
        now=NOW,
    )
    message = message_from_string(raw.decode("utf-8"), policy=policy.default)  # RFC 6532
    for field in ("To", "Reply-To"):
        [parsed] = message[field].addresses
        assert (parsed.display_name, parsed.addr_spec) == (name, address)


def test_a_picture_marker_quoted_from_a_player_stays_text_in_both_parts() -> None:
    picture = {"name": "gifts", "title": "Gifts", "text": "", "cid": "g@x", "width": 1, "height": 1}
    marked = "Hello,\n\n[[picture:gifts]]\n\nnot read as orders:\n\n    [[picture:gifts]]\n"
    html = plain_to_html(marked, [picture])
    assert html.count("<img") == 1  # the template's marker only
    assert "[[picture:gifts]]" in html  # the player's line, as text
    assert "    [[picture:gifts]]" in with_picture_text(marked, [picture])
    # a picture without image nor text diagram: an empty box, not a crash
    assert "monospace" in plain_to_html("[[picture:gifts]]\n", [picture | {"cid": None}])


def test_a_table_marker_is_columns_in_the_plain_part_and_a_table_in_the_html_part() -> None:
    """Issue 47: "Score tables in the report and history mails are space-aligned text, with
    no table markup". A picture and a table of the same name (SiSSYFiGHT's chips) stay apart."""
    picture = {"name": "chips", "title": "Chips", "text": "#### 4\n", "cid": "c@x"}
    picture |= {"width": 1, "height": 1, "words": "alice 4 chips."}
    table = {
        "name": "chips",
        "text": "round  start  1\nalice      4  4\n",
        "rows": [["Player", "Start", "Round 1"], ["alice", "4", "4"]],
    }
    marked = "Chips:\n\n[[table:chips]]\n\nAfter round 1:\n\n[[picture:chips]]\n"
    plain = with_picture_text(marked, [picture], [table])
    assert plain == (
        "Chips:\n\n  round  start  1\n  alice      4  4\n\nAfter round 1:\n\n  #### 4\n"
    )
    html = str(plain_to_html(marked, [picture], [table]))
    assert html.count("<table") == 1
    assert '<th scope="col"' in html
    assert ">Round 1</th>" in html
    assert html.count('<th scope="row"') == 1
    assert ">alice</th>" in html
    assert 'alt="alice 4 chips."' in html  # the picture's words, not its caption again
    assert html.count(">Chips<") == 1  # the caption under the picture, once


def test_a_monospace_box_scrolls_and_a_keyboard_reaches_it() -> None:
    """WCAG 2.1.1: a box that scrolls sideways on a phone can be focused to scroll it."""
    html = str(plain_to_html("Orders:\n\n  GIVE 1 TO bob\n"))
    assert '<div tabindex="0"' in html
    assert "overflow-x:auto" in html


@pytest.mark.parametrize("shape", ["plain", "alternative", "related", "mixed", "mixed-related"])
def test_every_shape_of_mail_parses_without_a_defect_under_the_strict_policy(shape: str) -> None:
    """Every mail the service sends is one of these shapes (``mail/mime.py``); RFC 2046 5.1.1
    wants a blank line between a multipart's header fields and its first boundary, and a strict
    parser reports anything else as a defect."""
    html = '<p>Hello <img src="cid:board.1@pbem.test"></p>' if shape != "plain" else None
    raw = compose(
        identity=ME,
        to="alice@example.org",
        subject="[gw7] Runde 2 – Ergebnis",
        text="Hello,\n\nyour orders are stored.\n-- \nsignature\n",
        html=html,
        key=f"shape:{shape}",
        now=NOW,
        attachments=[Attachment("gw7-round-2.ics", b"BEGIN:VCALENDAR\r\n", "text", "calendar")]
        if shape.startswith("mixed")
        else [],
        inline=[Inline("board.png", b"\x89PNG fake", "board.1@pbem.test")]
        if shape.endswith("related")
        else [],
    )
    message = message_from_bytes(raw, policy=policy.default.clone(raise_on_defect=True))
    assert all(not part.defects for part in message.walk())
    plain = message.get_body(preferencelist=("plain",))
    assert plain is not None
    assert plain.get_content().startswith("Hello,")
