"""Configuration: TOML file, environment overrides, defaults without any external server."""

from __future__ import annotations

from pathlib import Path

import pytest
from needs import require_extra

from adjudicator.base.config import ConfigError, load_config


def test_defaults_need_no_external_server(tmp_path: Path) -> None:
    config = load_config(None, env={})
    assert config.database_url.startswith("sqlite:///")
    assert config.database_url.endswith("/data/adjudicator.db")
    assert config.smtp.host == ""
    assert config.imap.host == ""
    assert config.maildir_path == Path("data/maildir")


def test_the_example_file_is_valid_and_annotated() -> None:
    path = Path(__file__).resolve().parents[1] / "config" / "adjudicator.example.toml"
    config = load_config(path, env={})
    assert config.service.address
    assert "#" in path.read_text(encoding="utf-8")


def test_file_values_and_environment_overrides(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text(
        '[service]\ndata_dir = "/srv/adj"\n[smtp]\nhost = "mail.example.org"\nport = 587\n'
        'tls = "starttls"\n[imap]\nssl = true\n',
        encoding="utf-8",
    )
    require_extra("psycopg", package="psycopg", extra="postgresql")
    config = load_config(
        path,
        env={"ADJUDICATOR_SMTP_PORT": "2525", "ADJUDICATOR_DATABASE_URL": "postgresql://db/adj"},
    )
    assert config.smtp.host == "mail.example.org"
    assert config.smtp.port == 2525
    assert config.smtp.tls == "starttls"
    assert config.imap.ssl is True
    assert config.database_url == "postgresql://db/adj"
    assert config.maildir_path == Path("/srv/adj/maildir")


def test_config_file_from_environment(tmp_path: Path) -> None:
    path = tmp_path / "b.toml"
    path.write_text('[service]\naddress = "gm@example.org"\n', encoding="utf-8")
    assert load_config(None, env={"ADJUDICATOR_CONFIG": str(path)}).service.address == (
        "gm@example.org"
    )


@pytest.mark.parametrize(
    ("text", "env", "words"),
    [
        ("[smtpp]\nhost='x'\n", {}, "unknown table [smtpp]"),
        ("[smtp]\nhots='x'\n", {}, "has no key 'hots'"),
        ("[smtp]\nport='many'\n", {}, "smtp.port: expected a whole number"),
        ("", {"ADJUDICATOR_IMAP_SSL": "maybe"}, "ADJUDICATOR_IMAP_SSL: expected true or false"),
        ("[smtp\n", {}, "a.toml"),
    ],
)
def test_bad_configuration_names_the_key(
    tmp_path: Path, text: str, env: dict[str, str], words: str
) -> None:
    path = tmp_path / "a.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=words.replace("[", r"\[").replace(".", r"\.")):
        load_config(path, env=env)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no configuration file"):
        load_config(tmp_path / "nope.toml", env={})
