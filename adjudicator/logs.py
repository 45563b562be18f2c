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
import sys
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


def configure_logging(
    *,
    log_format: str = "text",
    level: str = "info",
    log_file: str = "",
    stream: TextIO | None = None,
) -> None:
    """Set up the root logger and structlog. ``log_format`` is ``text`` (for people; colours on
    a terminal) or ``json`` (one object a line)."""
    if log_format not in FORMATS:
        raise ValueError(f"log_format must be one of {', '.join(FORMATS)}, not {log_format!r}")
    if level not in LEVELS:
        raise ValueError(f"log_level must be one of {', '.join(LEVELS)}, not {level!r}")
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
