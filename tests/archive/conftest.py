"""The played archive the site tests read: the games of :mod:`archivesite`, a game not yet
started, planted private values, then the site built from the database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from archivesite import (
    GAMES,
    PLAYER_DOMAIN,
    START,
    Played,
    make_test_app,
    plant_private_values,
)
from samplegames import play_samples

from adjudicator.archive import build_archive
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.storage.db import session_scope


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    folder = tmp_path_factory.mktemp("archive")
    app = make_test_app(folder)
    play_samples(app, START, GAMES)
    with session_scope(app.engine) as session:  # a game created but not started
        create_game(
            session,
            name="soon",
            kind="giveaway",
            players=[PlayerSpec(h, f"{h}@{PLAYER_DOMAIN}") for h in ("una", "vic", "wes")],
            options={"nmr": "lose"},
            now=app.clock(),
        )
    plant_private_values(app, "gw1")
    out = folder / "site"
    report = build_archive(app.engine, out, authority="pbem.example.org")
    yield Played(app, out, report)
    app.engine.dispose()
