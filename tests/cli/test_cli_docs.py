"""docs/cli.md describes the command line that ``olearn --help`` shows: its commands, algorithms and options."""

import pathlib
import re

import pytest

from olearn.cli import cli

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "cli.md"
pytestmark = pytest.mark.skipif(not DOC.exists(), reason="docs are not beside the tests")
NUMBERS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def _text():
    return DOC.read_text(encoding="utf-8")


def test_every_command_is_counted_listed_and_has_a_section():
    text = _text()
    assert f"It has {NUMBERS[len(cli.commands)]} commands" in text
    for name in cli.commands:
        assert f"| `olearn {name}` |" in text, name
        assert f"\n## `olearn {name}`\n" in text, name


def test_every_algorithm_of_run_is_in_the_usage_and_the_table():
    text = _text()
    choices = next(p for p in cli.commands["run"].params if p.name == "algo").type.choices
    table = re.search(r"\| `--algo` \| estimator \| options that apply \|\n\|---\|---\|---\|\n((?:\|.*\|\n)+)", text)
    assert table, "the algorithms table is missing or broken by a blank line"
    in_table = set(re.findall(r"`([a-z0-9-]+)`", "\n".join(row.split("|")[1] for row in table.group(1).splitlines())))
    assert in_table == set(choices)
    usage = text[text.index("olearn run --algo ALGO"):]
    for name in choices:
        assert f"`{name}`" in usage.split("(table below)")[0], name


def test_every_option_of_every_command_is_documented():
    text = _text()
    for name, command in cli.commands.items():
        for param in command.params:
            for option in (*param.opts, *param.secondary_opts):
                if option.startswith("--") and option != "--help":
                    assert option in text, f"olearn {name} {option}"
