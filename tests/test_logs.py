"""Logs: one line an event, JSON when asked for, the libraries' chatter kept out."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest

from adjudicator.logs import configure_logging, events, reopen


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
