"""Logging: one line per event that matters, readable on a terminal, JSON for a log collector.

Events are logged through structlog with a name and fields (``mail.accepted submission=12
game=gw42 round=3 message_id=<...>``); the standard library's loggers (ours and the libraries')
go through the same formatter, so every line has one shape. The libraries' routine chatter
(APScheduler's "Running job ..." every 30 seconds, Alembic's context lines, libvips' thread
pools) is kept below WARNING unless ``log_level = "debug"``.

With ``log_file`` set, lines go to that file through a handler that reopens it when it was
rotated; ``reopen`` (wired to SIGHUP by ``adjudicate serve``) reopens it at once.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import structlog

FORMATS = ("text", "json")
LEVELS = ("debug", "info", "warning", "error")
CHATTY = ("apscheduler", "alembic", "aiosmtplib", "imapclient", "mail.log", "asyncio", "pyvips")
"""Libraries whose INFO lines say nothing an operator needs (libvips: "threadpool completed
with 2 workers", twice for every round's pictures)."""

_SHARED: list[Any] = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]


_QUOTED = frozenset(" \t=\r\n\"'")
"""Characters for which the console renderer shows a string field with its quotes."""


class PlainRenderer:
    """The lines of structlog's console renderer without colours, exactly, for a fraction of
    its time: the service logs three lines a mail (stored, processed, sent), and the console
    renderer's columns and padding took a third of each line's cost. A line with a traceback,
    a stack or another unusual field goes to the console renderer itself."""

    _USUAL = frozenset({"timestamp", "level", "event", "logger"})
    _UNUSUAL = frozenset({"stack", "exception", "exc_info", "logger_name", ""})

    def __init__(self) -> None:
        self.console = structlog.dev.ConsoleRenderer(colors=False, sort_keys=False)
        widths = {
            column.key: getattr(column.formatter, "width", 0) for column in self.console.columns
        }
        self._level_width = int(widths["level"])
        self._event_width = int(widths["event"])

    def __call__(self, logger: Any, name: str, event_dict: dict[str, Any]) -> str:
        if not event_dict.keys() >= self._USUAL or not self._UNUSUAL.isdisjoint(event_dict):
            return str(self.console(logger, name, event_dict))
        timestamp = str(event_dict.pop("timestamp"))
        level = str(event_dict.pop("level"))
        event = str(event_dict.pop("event"))
        source = str(event_dict.pop("logger"))
        parts = [
            timestamp,
            f"[{level.ljust(self._level_width)}]",
            event.ljust(self._event_width),
            f"[{source}]",
        ]
        parts += [f"{key}={_shown(value)}" for key, value in event_dict.items()]
        return " ".join(part for part in parts if part).rstrip(" ")


def _shown(value: Any) -> str:
    if isinstance(value, str) and _QUOTED.isdisjoint(value):
        return value
    return repr(value)


@dataclass(frozen=True)
class LogProblem:
    """A log setting the service cannot start with: what is wrong, and how to fix it."""

    message: str
    fix: str

    def __str__(self) -> str:
        return f"{self.message}; fix: {self.fix}"


def log_problems(*, log_format: str, level: str, log_file: str) -> list[LogProblem]:
    """Every log setting ``configure_logging`` would refuse, judged without logging anything:
    ``adjudicate doctor`` shows them, ``serve`` refuses to start with the first."""
    problems = []
    if log_format not in FORMATS:
        problems.append(
            LogProblem(
                f"service.log_format is {log_format!r}; it must be one of {', '.join(FORMATS)}",
                'set service.log_format (ADJUDICATOR_LOG_FORMAT) to "text" for people or '
                '"json" for a log collector',
            )
        )
    if level not in LEVELS:
        problems.append(
            LogProblem(
                f"service.log_level is {level!r}; it must be one of {', '.join(LEVELS)}",
                'set service.log_level (ADJUDICATOR_LOG_LEVEL) to "info" (or debug, warning, '
                "error)",
            )
        )
    if log_file:
        problem = log_file_problem(Path(log_file))
        if problem is not None:
            problems.append(problem)
    return problems


def log_file_problem(path: Path) -> LogProblem | None:
    """Whether this user may append to ``path`` (``WatchedFileHandler`` creates the file, not
    its folder)."""
    key = "service.log_file (ADJUDICATOR_LOG_FILE)"
    elsewhere = f"or set {key} to a file in a folder the service's user may write, or to empty "
    elsewhere += "for standard error (systemd's journal)"
    if path.is_dir():
        return LogProblem(f"service.log_file {str(path)!r} is a folder, not a file", elsewhere)
    if path.exists():
        if os.access(path, os.W_OK):
            return None
        return LogProblem(
            f"service.log_file {str(path)!r} cannot be written by this user",
            f"give the service's user write access to it (chown), {elsewhere}",
        )
    folder = path.parent
    if not folder.is_dir():
        return LogProblem(
            f"the folder of service.log_file, {str(folder)!r}, does not exist",
            f"create it for the service's user (install -d -o adjudicator {folder}), {elsewhere}",
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        return LogProblem(
            f"service.log_file {str(path)!r} cannot be created: this user may not write in "
            f"{str(folder)!r}",
            f"give the service's user write access to {folder}, {elsewhere}",
        )
    return None


def configure_logging(
    *,
    log_format: str = "text",
    level: str = "info",
    log_file: str = "",
    stream: TextIO | None = None,
) -> None:
    """Set up the root logger and structlog. ``log_format`` is ``text`` (for people; colours on
    a terminal) or ``json`` (one object a line). Raises ``ValueError`` with the first of
    ``log_problems`` (what is wrong and how to fix it)."""
    problems = log_problems(log_format=log_format, level=level, log_file=log_file)
    if problems:
        raise ValueError(str(problems[0]))
    stream = stream or sys.stderr
    handler: logging.Handler
    if log_file:
        handler = logging.handlers.WatchedFileHandler(log_file, encoding="utf-8")
    else:
        handler = logging.StreamHandler(stream)
    renderer: Any
    if log_format == "json":
        renderer = structlog.processors.JSONRenderer()
    else:
        colors = not log_file and stream.isatty()
        renderer = (
            structlog.dev.ConsoleRenderer(colors=True, sort_keys=False)
            if colors
            else PlainRenderer()
        )
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=_SHARED,
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    # No line shows the thread, the process or the caller's file and line (the fields are
    # structlog's, ``_SHARED``): the standard library need not find them for every record,
    # which took a fifth of a line's cost (its "Optimization" advice, in the logging HOWTO).
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    logging._srcfile = None
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in CHATTY:
        logging.getLogger(name).setLevel(logging.DEBUG if level == "debug" else logging.WARNING)
    structlog.configure(
        processors=[*_SHARED, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def reopen() -> None:
    """Reopen the log file (after logrotate moved it); a no-op when logging to a stream."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.handlers.WatchedFileHandler):
            handler.reopenIfNeeded()
            handler.acquire()
            try:
                handler.close()
                handler.stream = handler._open()
            finally:
                handler.release()


def _unconfigured() -> None:
    """Before ``configure_logging`` (a command that only prints, a test, a benchmark), events go
    to the standard library's logging like every other line: nowhere below WARNING, nothing on
    standard output."""
    structlog.configure(
        processors=[*_SHARED, structlog.stdlib.render_to_log_kwargs],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )


_unconfigured()


def events(name: str) -> Any:
    """The event logger of one part of the service: ``events(__name__).info("round.closed",
    game=..., round=...)``."""
    return structlog.get_logger(name)
