"""Every schema change is a new version (issue 39, defect 9): a migration added without a new
``adjudicator.__version__`` and its changelog entry fails here."""

from __future__ import annotations

import re
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory

from adjudicator import __version__
from adjudicator.storage.db import MIGRATIONS, SCHEMA_HEAD, SCHEMA_VERSIONS

CHANGELOG = Path(__file__).resolve().parents[1] / "CHANGELOG.md"
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _sections() -> dict[str, str]:
    """Each release's changelog section, by version, newest first."""
    text = CHANGELOG.read_text(encoding="utf-8")
    found = list(RELEASE.finditer(text))
    ends = [match.start() for match in found[1:]] + [len(text)]
    return {m.group(1): text[m.end() : end] for m, end in zip(found, ends, strict=True)}


def test_every_alembic_revision_has_a_version_in_order() -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    scripts = ScriptDirectory.from_config(config)
    oldest_first = [script.revision for script in reversed(list(scripts.walk_revisions()))]
    assert list(SCHEMA_VERSIONS) == oldest_first, "add the new revision to SCHEMA_VERSIONS"
    assert oldest_first[-1] == SCHEMA_HEAD
    versions = [_version(v) for v in SCHEMA_VERSIONS.values()]
    assert versions == sorted(set(versions)), "each schema revision needs a newer version"


def test_the_package_version_is_at_least_its_newest_schemas() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    assert _version(__version__) >= _version(SCHEMA_VERSIONS[SCHEMA_HEAD]), (
        f"migration {SCHEMA_HEAD} came with version {SCHEMA_VERSIONS[SCHEMA_HEAD]}: "
        "raise adjudicator.__version__ to it"
    )


def test_the_changelog_has_this_version_first_and_each_schema_revision_in_its_version() -> None:
    sections = _sections()
    assert next(iter(sections)) == __version__, "CHANGELOG.md: a section for this version, first"
    for revision, version in SCHEMA_VERSIONS.items():
        assert version in sections, f"CHANGELOG.md: no section for {version} ({revision})"
        assert f"Schema revision {revision}" in sections[version], (version, revision)
    released = [_version(v) for v in sections]
    assert released == sorted(released, reverse=True), "newest first"
