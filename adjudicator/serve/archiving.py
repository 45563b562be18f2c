"""Keeping the archive site current while the service runs.

Whoever reported a round (this instance's scheduler, the intake applying a sequential move, a
game master's command, another instance), the round's ``reported_at`` says so: each pass
rebuilds the pages of the games with rounds reported since the last pass. Every instance keeps
its own copy of the site. A failure is logged and retried on the next pass; it never holds up
mail.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from adjudicator.archive import update_game, write_rules
from adjudicator.base.config import Config
from adjudicator.mail.compose import Renderer
from adjudicator.storage.db import unavailable
from adjudicator.storage.models import Game, Round

log = logging.getLogger("adjudicator.archive")


MARGIN = timedelta(minutes=10)  # clocks of several instances may differ by this much


class ArchiveKeeper:
    def __init__(self, engine: Engine, config: Config, *, authority: str) -> None:
        self.engine = engine
        self.out_dir = config.archive_path
        self.authority = authority
        self.base_url = config.service.archive_url or None
        self.since: datetime | None = None  # None: everything, on the first pass
        self.archived: dict[int, datetime] = {}  # round id -> reported_at, within the margin
        self.stopping = threading.Event()  # set on shutdown: the pass ends after its game
        self.rules_written = False  # the rules pages, linked from the first welcome on
        # One set of templates for every pass: compiled once, not once per game rebuilt.
        self.renderer = Renderer()
        # Who rebuilds a game's pages: this process, or a worker process (``runner.py``).
        self.builder: Callable[[str], None] = self.build

    def _reported(self) -> list[tuple[int, str, datetime]]:
        query = (
            select(Round.id, Game.name, Round.reported_at)
            .join(Game, col(Game.id) == col(Round.game_id))
            .where(col(Round.reported_at).is_not(None))
        )
        if self.since is not None:
            query = query.where(col(Round.reported_at) > self.since - MARGIN)
        with Session(self.engine) as session:
            return [(i, n, at) for i, n, at in session.exec(query) if i is not None and at]

    def build(self, name: str) -> None:
        """Rebuild the pages of the game ``name`` (and the index, style sheet and rules pages
        beside them); pages whose bytes are unchanged are not written again."""
        update_game(
            self.engine,
            name,
            self.out_dir,
            base_url=self.base_url,
            authority=self.authority,
            renderer=self.renderer,
        )

    def run_once(self) -> list[str]:
        """Rebuild the games with newly reported rounds; their names. The first pass also
        writes the rules pages, which mails link to before any round is reported."""
        if not self.rules_written:
            try:
                write_rules(self.out_dir, renderer=self.renderer)
                self.rules_written = True
            except Exception:
                log.exception("rules pages not written; trying again later")
        try:
            reported = self._reported()
        except OperationalError as error:  # the database is away: the next pass tries again
            log.warning("archive pass skipped, database unavailable: %s", unavailable(error))
            return []
        fresh = [row for row in reported if row[0] not in self.archived]
        done: list[str] = []
        for name in sorted({name for _, name, _ in fresh}):
            if self.stopping.is_set():
                break
            try:
                self.builder(name)
            except OperationalError as error:
                log.warning(
                    "archive of game %s not updated, database unavailable: %s; trying again later",
                    name,
                    unavailable(error),
                )
                break  # the other games would fail the same way
            except Exception:
                log.exception("archive of game %s not updated; trying again later", name)
                continue
            done.append(name)
            self.archived.update({i: at for i, n, at in fresh if n == name})
        if self.archived:
            self.since = max(self.archived.values())
            self.archived = {i: at for i, at in self.archived.items() if at > self.since - MARGIN}
        return done
