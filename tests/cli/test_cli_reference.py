"""README.md and docs/cli.md list the commands and their options exactly as ``olearn --help`` prints them.

Both files hold the same generated block between two HTML comments. After a
change to the command line, rewrite the blocks with::

    python tests/cli/test_cli_reference.py
"""

import pathlib
import re
import sys

import click
import pytest
from click.formatting import join_options
from click.testing import CliRunner

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = (ROOT / "README.md", ROOT / "docs" / "cli.md")
BEGIN = "<!-- the commands as `olearn --help` prints them; rewritten by: python tests/cli/test_cli_reference.py -->"
END = "<!-- end of the commands -->"
BLOCK = re.compile(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), re.S)


def _printed_commands(group, ctx):
    """{name: description} as the Commands section of ``olearn --help`` prints them."""
    text = group.get_help(ctx)
    described = {}
    for line in text[text.index("Commands:"):].splitlines()[1:]:
        name, _, description = line.strip().partition(" ")
        if line.startswith("  ") and not line.startswith("   "):
            described[name] = description.strip()
        elif line.strip():  # a description wrapped onto the next line
            described[next(reversed(described))] += " " + line.strip()
    return described


def _option_names(param):
    """An option's names as ``--help`` prints them: ``-a, --algo``, ``--zero-based / --one-based``."""
    return " / ".join(join_options(names)[0] for names in (param.opts, param.secondary_opts) if names)


def reference():
    """The generated block: one row per command, in ``olearn --help``'s order."""
    from olearn.cli import cli

    ctx = click.Context(cli, info_name="olearn", **cli.context_settings)
    described = _printed_commands(cli, ctx)
    rows = ["| usage | what it does | options |", "|---|---|---|"]
    for name, description in described.items():
        command = cli.commands[name]
        sub = click.Context(command, info_name=name, parent=ctx)
        usage = " ".join(["olearn", name, *command.collect_usage_pieces(sub)])
        options = ", ".join(f"`{_option_names(p)}`" for p in command.get_params(sub) if isinstance(p, click.Option))
        rows.append(f"| `{usage}` | {description} | {options} |")
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_file_lists_every_command_and_option_as_help_prints_them(path):
    if not path.exists():
        pytest.skip("docs are not beside the tests")
    found = BLOCK.search(path.read_text(encoding="utf-8"))
    assert found, f"{path.name} has no block between {BEGIN!r} and {END!r}"
    assert found.group(1) == reference(), f"{path.name} is out of date: run python tests/cli/test_cli_reference.py"


def test_the_reference_has_a_row_per_command_and_the_options_help_prints():
    from olearn.cli import cli

    text = reference()
    assert [re.match(r"\| `olearn (\S+)", row).group(1) for row in text.splitlines()[2:]] == list(
        cli.list_commands(None))
    run_help = CliRunner().invoke(cli, ["run", "--help"]).output
    row = next(line for line in text.splitlines() if line.startswith("| `olearn run "))
    # every option named in the row is in run --help, and the other way round
    assert set(re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", row.split("|")[3])) == (
        set(re.findall(r"(?:^|[ ,/])(--?[A-Za-z][\w-]*)", "\n".join(
            line for line in run_help[run_help.index("\nOptions:"):].splitlines() if line.startswith("  -")))))


def _rewrite():
    block = reference()
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        if not BLOCK.search(text):
            sys.exit(f"{path}: add the lines {BEGIN} and {END} where the list belongs")
        path.write_text(BLOCK.sub(lambda _: f"{BEGIN}\n{block}{END}", text), encoding="utf-8")
        print(f"rewrote {path}")


if __name__ == "__main__":
    _rewrite()
