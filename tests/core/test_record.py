"""The game-record parser (docs/record-format.md): the grammar, and errors that name their line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.core.errors import RecordError
from adjudicator.core.game import PieceSpec
from adjudicator.core.record import Record, format_record
from adjudicator.core.record import parse_record as parse_with
from adjudicator.games import vocabularies


def parse_record(text: str) -> Record:
    """Records of the five games, as ``adjudicate replay`` reads them."""
    return parse_with(text, vocabularies())


EXAMPLE = """\
# A comment runs from '#' to the end of the line. Blank lines are ignored.
game: giveaway                 # giveaway | sissyfight | ...
players: alice bob carol dave  # seat order
option: nmr=spread             # zero or more
start: holdings alice=5

round 1
alice: GIVE 3 TO bob
bob: GIVE 2 TO alice
bob: give 1 to carol           # several lines of one player form that player's orders
carol: GIVE 3 TO alice
# dave sends nothing: the game's no-orders rule applies

round 2
alice: GIVE 5 TO carol
"""


def test_the_documented_example_parses() -> None:
    record = parse_record(EXAMPLE)
    assert record.game == "giveaway"
    assert record.players == ("alice", "bob", "carol", "dave")
    assert record.options == {"nmr": "spread"}
    assert record.setup.start == {"holdings": {"alice": 5}}
    assert [r.number for r in record.rounds] == [1, 2]
    first = record.rounds[0]
    assert [(o.player, o.text) for o in first.orders] == [
        ("alice", "GIVE 3 TO bob"),
        ("bob", "GIVE 2 TO alice"),
        ("bob", "give 1 to carol"),
        ("carol", "GIVE 3 TO alice"),
    ]
    # Line numbers are those of the file, counting comments and blank lines.
    assert first.line == 7
    assert first.orders[0].line == 8


def test_board_game_headers() -> None:
    record = parse_record(
        "game: rock-scissors-paper\nplayers: w b\npiece: white paper D4 3\n"
        "piece: black flag I8\nto-move: black\noption: flags=2\n"
    )
    assert record.setup.pieces == (
        PieceSpec("white", "paper", "d4", 3),
        PieceSpec("black", "flag", "i8", 1),
    )
    assert record.setup.to_move == "black"
    assert record.options == {"flags": "2"}
    assert record.rounds == ()


def test_colours_and_case_folding() -> None:
    record = parse_record(
        "GAME: SiSSYFiGHT\nplayers: Alice BOB carol\ncolours: alice=RED bob=blue\n"
    )
    assert record.game == "sissyfight"
    assert record.players == ("alice", "bob", "carol")
    assert record.setup.colours == {"alice": "red", "bob": "blue"}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("players: a b\nround 1\n", 2, "no game"),
        ("game: giveaway\nround 1\n", 2, "no players"),
        ("game: chess\nplayers: a b\n", 1, "unknown game 'chess'"),
        ("game: giveaway\n\nplayers: a b a\n", 3, "listed twice"),
        ("game: giveaway\nplayers: a 9lives\n", 2, "not a player handle"),
        (
            "game: giveaway\nplayers: a b c\nround 1\na: GIVE 3 TO b\nround 3\n",
            5,
            "expected round 2",
        ),
        ("game: giveaway\nplayers: a b c\nround 1\nzed: GIVE 3 TO b\n", 4, "'zed' is not one"),
        ("game: giveaway\nplayers: a b c\nround 1\na GIVE 3 TO b\n", 4, "expected 'player: order'"),
        ("game: giveaway\nplayers: a b c\nround 1\na:\n", 4, "empty"),
        ("game: giveaway\nplayers: a b c\nfoo: bar\n", 3, "unknown header 'foo'"),
        ("game: giveaway\nplayers: a b c\nstart: gold a=1\n", 3, "unknown counter"),
        ("game: giveaway\nplayers: a b c\nstart: holdings a=x\n", 3, "not a whole number"),
        ("game: giveaway\nplayers: a b c\nstart: holdings d=1\n", 3, "'d' is not one"),
        ("game: giveaway\nplayers: a b c\noption: nmr\n", 3, "name=value"),
        ("game: giveaway\nplayers: a b c\noption: nmr=lose\noption: nmr=spread\n", 4, "twice"),
        ("game: rock-scissors-paper\nplayers: a b\npiece: red rock A1\n", 3, "unknown owner"),
        ("game: rock-scissors-paper\nplayers: a b\npiece: white king A1\n", 3, "unknown kind"),
        ("game: rock-scissors-paper\nplayers: a b\npiece: white paper A1 0\n", 3, "height"),
        ("game: rock-scissors-paper\nplayers: a b\npiece: white\n", 3, "expected <owner>"),
        ("game: rock-scissors-paper\nplayers: a b\nto-move: green\n", 3, "unknown side"),
        ("game: giveaway\ncolours: a=red\nplayers: a b\n", 2, "players: line must come first"),
        ("just some text\n", 1, "expected a header line"),
        ("", 1, "no game"),
    ],
)
def test_malformed_records_name_their_line(text: str, line: int, words: str) -> None:
    with pytest.raises(RecordError) as caught:
        parse_record(text)
    assert caught.value.line == line
    assert words in str(caught.value)
    assert str(caught.value).startswith(f"line {line}: ")


def test_format_record_round_trips() -> None:
    record = parse_record(EXAMPLE)
    again = parse_record(format_record(record))
    assert again.game == record.game
    assert again.players == record.players
    assert again.options == record.options
    assert again.setup == record.setup
    assert [[(o.player, o.text) for o in r.orders] for r in again.rounds] == [
        [(o.player, o.text) for o in r.orders] for r in record.rounds
    ]


@given(st.text())
def test_any_text_parses_or_raises_record_error(text: str) -> None:
    """Property: parsing any text either works or raises the parser's own error."""
    try:
        parse_record(text)
    except RecordError as error:
        assert error.line >= 1


_LINES = st.sampled_from(
    [
        "game: giveaway",
        "game: sissyfight",
        "players: a b c",
        "players: a",
        "option: nmr=lose",
        "start: chips a=3",
        "piece: white rock A1",
        "to-move: black",
        "round 1",
        "round 2",
        "a: GIVE 3 TO b",
        "b: anything",
        "# comment",
        "",
        "x:",
        ": y",
    ]
)


@given(st.lists(_LINES, max_size=12))
def test_record_shaped_text_parses_or_raises_record_error(lines: list[str]) -> None:
    """Property: near-valid records (shuffled real lines) never raise anything else."""
    try:
        parse_record("\n".join(lines))
    except RecordError as error:
        assert 1 <= error.line <= max(len(lines), 1)
