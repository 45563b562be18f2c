"""Logs: one line an event, JSON when asked for, the libraries' chatter kept out."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from typing import Any

import pytest
import structlog
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.base.logs import PlainRenderer, configure_logging, events, reopen
from adjudicator.mail.vips import VipsConverter


@pytest.fixture(autouse=True)
def _restore_logging() -> object:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


def test_json_lines_carry_the_event_and_its_ids() -> None:
    out = io.StringIO()
    configure_logging(log_format="json", stream=out)
    events("adjudicator.intake").info("mail.accepted", submission=12, game="gw42", round=3)
    logging.getLogger("adjudicator.serve").warning("SMTP down: %s", "connection refused")
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(lines) == 2
    assert lines[0]["event"] == "mail.accepted"
    assert (lines[0]["submission"], lines[0]["game"], lines[0]["round"]) == (12, "gw42", 3)
    assert lines[0]["level"] == "info"
    assert lines[0]["timestamp"].endswith("Z")
    assert lines[1]["event"] == "SMTP down: connection refused"
    assert lines[1]["level"] == "warning"
    assert lines[1]["logger"] == "adjudicator.serve"


def test_scheduler_chatter_is_off_by_default_and_on_for_debug() -> None:
    out = io.StringIO()
    configure_logging(log_format="json", stream=out)
    logging.getLogger("apscheduler.executors.default").info("Running job sweep")
    logging.getLogger("apscheduler.scheduler").warning("job missed")
    assert [json.loads(line)["event"] for line in out.getvalue().splitlines()] == ["job missed"]
    out = io.StringIO()
    configure_logging(log_format="json", level="debug", stream=out)
    logging.getLogger("apscheduler.executors.default").info("Running job sweep")
    assert "Running job sweep" in out.getvalue()


def test_text_lines_are_for_people_one_line_an_event() -> None:
    out = io.StringIO()
    configure_logging(log_format="text", stream=out)
    events("adjudicator.closing").info("round.closed", game="gw42", round=3)
    (line,) = out.getvalue().splitlines()
    assert "round.closed" in line
    assert "game=gw42" in line
    assert "round=3" in line
    assert "\x1b[" not in line  # no colours when the stream is not a terminal


_VALUES = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["gw42", "a b", "x=y", "it's", 'say "hi"', "tab\there", "", "line\nbreak"]),
    st.integers(),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(
    event=st.one_of(st.text(max_size=40), st.sampled_from(["mail.stored", "x" * 45])),
    level=st.sampled_from(["debug", "info", "warning", "error", "critical", "exception"]),
    source=st.text(max_size=30),
    timestamp=st.sampled_from(["2026-11-26T21:34:01.498071Z", ""]),
    fields=st.dictionaries(st.text(max_size=12), _VALUES, max_size=5),
)
def test_text_lines_are_the_console_renderers_lines(
    event: str, level: str, source: str, timestamp: str, fields: dict[str, Any]
) -> None:
    """The text format's renderer (PlainRenderer, made for speed) writes every line as
    structlog's console renderer without colours does: padding, quoting, field order, empty
    values, and the odd field names it leaves to that renderer."""
    usual = {"timestamp": timestamp, "level": level, "event": event, "logger": source}
    event_dict = usual | {k: v for k, v in fields.items() if k not in usual}
    reference = structlog.dev.ConsoleRenderer(colors=False, sort_keys=False)
    assert PlainRenderer()(None, "info", dict(event_dict)) == reference(
        None, "info", dict(event_dict)
    )


def test_a_line_with_a_traceback_is_the_console_renderers_line() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        event_dict = {
            "timestamp": "t",
            "level": "error",
            "event": "mail.failed",
            "logger": "adjudicator.intake",
            "exception": structlog.processors.format_exc_info(None, "", {"exc_info": True})[
                "exception"
            ],
        }
    line = PlainRenderer()(None, "error", dict(event_dict))
    reference = structlog.dev.ConsoleRenderer(colors=False, sort_keys=False)
    assert line == reference(None, "error", dict(event_dict))
    assert "ValueError: boom" in line


def test_a_rotated_log_file_is_reopened(tmp_path: Path) -> None:
    log_file = tmp_path / "adjudicator.log"
    configure_logging(log_format="json", log_file=str(log_file))
    events("adjudicator").info("first")
    log_file.rename(tmp_path / "adjudicator.log.1")  # what logrotate does
    reopen()
    events("adjudicator").info("second")
    assert json.loads(log_file.read_text())["event"] == "second"
    assert json.loads((tmp_path / "adjudicator.log.1").read_text())["event"] == "first"


def test_unknown_settings_are_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="text, json"):
        configure_logging(log_format="xml")
    with pytest.raises(ValueError, match="debug, info, warning, error"):
        configure_logging(level="loud")


def test_the_service_logs_one_line_per_mail_and_round_with_their_ids(tmp_path: Path) -> None:
    from email.message import EmailMessage

    from playing import Clock, new_game

    from adjudicator.base.config import Config, ServiceConfig
    from adjudicator.service.app import make_app

    out = io.StringIO()
    configure_logging(log_format="json", stream=out)
    app = make_app(Config(service=ServiceConfig(data_dir=str(tmp_path), address="judge@pbem.test")))
    app.clock = Clock()
    credentials = new_game(app, ["ann", "ben", "cat"], name="gw1")
    secrets = {handle: c.secret for handle, c in credentials.items()}
    for number, (handle, other) in enumerate((("ann", "ben"), ("ben", "cat"), ("cat", "ann"))):
        message = EmailMessage()
        message["From"] = f"{handle}@example.org"
        message["To"] = "judge@pbem.test"
        message["Subject"] = "[gw1] orders"
        message["Message-ID"] = f"<m{number}@example.org>"
        message.set_content(f"PASSWORD {secrets[handle]}\nGIVE 3 TO {other}")
        app.ingest(message.as_bytes(), channel="pipe")
    app.ingest(
        b"From: stranger@example.org\r\nSubject: [gw1] hi\r\n\r\nGIVE 3 TO ann\r\n", channel="pipe"
    )
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    by_event: dict[str, list[dict[str, object]]] = {}
    for line in lines:
        by_event.setdefault(str(line["event"]), []).append(line)
    assert [e["submission"] for e in by_event["mail.stored"]] == [1, 2, 3, 4]
    assert [e["message_id"] for e in by_event["mail.accepted"]] == [
        "<m0@example.org>",
        "<m1@example.org>",
        "<m2@example.org>",
    ]
    (rejected,) = by_event["mail.rejected"]
    assert rejected["submission"] == 4
    assert "refused for game gw1" in str(rejected["why"])
    (adjudicated,) = by_event["round.adjudicated"]
    assert (adjudicated["game"], adjudicated["round"]) == ("gw1", 1)
    (reported,) = by_event["round.reported"]
    assert (reported["game"], reported["round"]) == ("gw1", 1)
    app.engine.dispose()


def test_drawing_a_picture_logs_nothing_but_a_failure_is_said() -> None:
    """libvips reports each thread pool it ends at INFO ("threadpool completed with 2
    workers"): two lines a round, nothing an operator can act on. A picture that cannot be
    drawn is still said."""
    out = io.StringIO()
    configure_logging(log_format="json", stream=out)
    converter = VipsConverter()
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><text y="15">hi</text></svg>'
    assert converter.to_png(svg) is not None
    assert converter.to_png(svg * 2) is None  # two root elements: not a picture
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["level"] for line in lines] == ["warning"]
    assert lines[0]["event"].startswith("a picture could not be drawn")
