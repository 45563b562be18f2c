"""The contract every mail command keeps: one spec with all its parts
(``mail/command_specs.py``) and one handler that is given what the command needs
(``service/command_handlers.py``). A new command that lacks either fails here."""

from __future__ import annotations

import pytest

from adjudicator.base.shipped import TEMPLATES
from adjudicator.mail import command_types
from adjudicator.mail.command_specs import (
    SPECS,
    UnknownCommand,
    command_words,
    help_lines,
    line_readers,
    spec_of,
)
from adjudicator.mail.command_types import (
    Approve,
    Command,
    CommandSpec,
    CopyResults,
    GmCommand,
    Orders,
    RemovePlayer,
    ReplacePlayer,
    StandIn,
    Take,
    Unknown,
    Withdraw,
)
from adjudicator.mail.commands import read_section
from adjudicator.mail.parse import Section, SectionLine
from adjudicator.service.command_handlers import HANDLERS, NoHandler, handler_of
from adjudicator.service.conversation import command_list
from adjudicator.service.handling import PersonHandling, SeatedHandling, SectionHandling


def _commands(kind: type[Command] = Command) -> list[type[Command]]:
    """Every command type a mail can hold: the subclasses of ``Command`` in
    ``command_types.py``, less the base of the game master's."""
    found = []
    for sub in kind.__subclasses__():
        if sub.__module__ == command_types.__name__ and sub is not GmCommand:
            found.append(sub)
        found += _commands(sub)
    return found


COMMANDS = _commands()
NAMES = [kind.__name__ for kind in COMMANDS]

READ_WITH_THE_SECTION = {"Orders", "Press", "Announce"}
"""What no line reader reads: the lines no reader took, and the two commands that span lines."""
NOT_IN_HELP = {"Orders", "Approve", "Unknown"}
"""The players' commands HELP does not list: orders are the game's (HELP gw42 tells them),
APPROVE is the game master's answer to a JOIN, and a mistyped command is none (the game
master's commands have their own list)."""
WITHOUT_WORDS = {
    Orders,
    Take,
    Approve,
    ReplacePlayer,
    RemovePlayer,
    Withdraw,
    StandIn,
    CopyResults,
    Unknown,
}
"""Commands whose first word does not make a line a command: "Take care," is a sign-off,
"Replace my orders with these:" and "Withdraw my last order" are prose (their lines are read by their code or their
shape); orders and a mistyped command have no word of their own."""
NOT_A_COMMAND_ANSWER = {"remark"}
"""The answer to a section that asks nothing ("Good game!"): no command's."""


def test_the_command_types_are_found() -> None:
    assert {"Orders", "Help", "Press", "Pause", "Announce", "Unknown"} <= set(NAMES)
    assert "GmCommand" not in NAMES


@pytest.mark.parametrize("kind", COMMANDS, ids=NAMES)
def test_every_command_has_one_spec(kind: type[Command]) -> None:
    """A command a reader may give and no spec describes would be neither answered nor
    listed: each command type has exactly one spec, and the finder finds it."""
    assert [spec.command for spec in SPECS].count(kind) == 1
    assert spec_of(kind).command is kind


@pytest.mark.parametrize("kind", COMMANDS, ids=NAMES)
def test_every_command_has_one_handler(kind: type[Command]) -> None:
    """A command without a handler would be read and silently dropped; with two, answered
    twice."""
    assert sum(h.commands.count(kind) for h in HANDLERS) == 1
    assert kind in handler_of(kind).commands


def test_every_spec_and_every_handler_is_of_a_command() -> None:
    assert {spec.command for spec in SPECS} == set(COMMANDS)
    assert {kind for h in HANDLERS for kind in h.commands} == set(COMMANDS)


def test_a_command_without_a_spec_or_a_handler_is_named() -> None:
    class Nothing(Command):
        pass

    with pytest.raises(UnknownCommand, match="Nothing"):
        spec_of(Nothing)
    with pytest.raises(NoHandler, match="Nothing"):
        handler_of(Nothing)


@pytest.mark.parametrize("spec", SPECS, ids=[spec.command.__name__ for spec in SPECS])
def test_every_spec_has_all_its_parts(spec: CommandSpec) -> None:
    """Its reader (but for what is read with the section), its words and its lines in HELP's
    list (but for the commands named above, each for its reason), and the templates of its
    answer, which exist. Only a command that needs a seat may speak for the person."""
    name = spec.command.__name__
    assert (spec.reader is None) == (name in READ_WITH_THE_SECTION)
    assert bool(spec.words) == (spec.command not in WITHOUT_WORDS)
    in_help = not issubclass(spec.command, GmCommand) and name not in NOT_IN_HELP
    assert bool(spec.help) == in_help
    assert all(example for example, _ in spec.help[:1])  # a meaning that runs on follows one
    assert spec.answers
    for answer in spec.answers:
        assert (TEMPLATES / "mail" / f"{answer}.txt.j2").is_file(), answer
    assert spec.needs_seat or not spec.personal
    assert all(word == word.lower() and " " not in word for word in spec.words)


def test_every_answer_template_belongs_to_a_command() -> None:
    """A command's answer template that no spec names is a command's part gone astray."""
    answers = {answer for spec in SPECS for answer in spec.answers}
    folder = TEMPLATES / "mail" / "answer"
    found = {f"answer/{path.name.removesuffix('.txt.j2')}" for path in folder.glob("*.txt.j2")}
    assert found - answers == {f"answer/{name}" for name in NOT_A_COMMAND_ANSWER}


def test_a_handler_is_given_what_its_commands_need() -> None:
    """A handler of commands that need a seat is given the seat proven (and its game, but for
    the person's own settings, which may come with no game); a handler of commands that need
    none is given the section as it is, and runs for a stranger."""
    for handles in HANDLERS:
        specs = [spec_of(kind) for kind in handles.commands]
        seated = {spec.needs_seat for spec in specs}
        assert len(seated) == 1, handles.commands  # never both in one handler
        if not seated.pop():
            assert handles.given is SectionHandling
        elif any(spec.personal for spec in specs):
            assert handles.given is PersonHandling
        else:
            assert handles.given is SeatedHandling


def test_a_handler_refuses_a_section_whose_seat_is_not_proven() -> None:
    """The intake hands a seated command only to a seated section; were it ever to do
    otherwise, the handler is not run on a section without its seat."""
    handles = handler_of(Orders)
    section = object.__new__(SectionHandling)
    with pytest.raises(TypeError, match="SeatedHandling"):
        handles(section, [Orders()], [])


def test_the_tables_are_read_from_the_specs() -> None:
    """HELP's list, the command words and the readers come from the specs, in their order:
    the mistyped command's reader last, as it takes any near miss."""
    assert [(line["command"], line["meaning"]) for line in command_list()] == list(help_lines())
    assert help_lines()[0] == ("HELP", "this list")
    assert {"help", "set", "press", "endpress", "announce"} <= set(command_words())
    assert not {"take", "approve", "decline"} & set(command_words())
    assert line_readers()[-1] is spec_of(Unknown).reader
    assert len(line_readers()) == len(set(line_readers()))


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("SET ABSENCE 5d", "SetAbsence"),
        ("SET QUIET 22:00-07:00", "SetQuiet"),
        ("SET WEEKEND sat,sun", "SetWeekend"),
        ("SET TIMEZONE Europe/Paris", "SetTimeZone"),
        ("SET NOWAIT", "SetWait"),
        ("SET COLOUR blue", "SetTimeZone"),  # an unknown setting: a problem of SET
    ],
)
def test_a_set_line_is_read_by_its_own_reader_whatever_the_order(text: str, kind: str) -> None:
    """SET ABSENCE, QUIET and WEEKEND and the other SET commands have two readers; the one
    that takes any other SET line as an unknown setting leaves those of the other alone, so
    the order of the specs does not decide which reads a line."""
    section = read_section(Section("gw1", (SectionLine(1, text),)))
    found = [type(c).__name__ for c in section.commands if not isinstance(c, Orders)]
    found += [p.command.__name__ for p in section.problems]
    assert found == [kind]
