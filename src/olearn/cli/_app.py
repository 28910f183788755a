"""The ``olearn`` command group: shared error handling, version, entry point.

Only the command a command line names is loaded (``olearn run`` never
imports ``compare``, ``serve`` or ``demo``), and heavy modules (matplotlib,
rich, the bounds, the learner families) are imported inside the commands
that use them, so ``olearn run --algo pa1`` pays at start-up for little
more than the binary learner and its reader.
"""

import errno
import importlib
import signal

import click

from ..exceptions import OlearnError
from ._interrupt import INTERRUPTED_EXIT_CODE, caused_by_interrupt

# the commands, in the order ``olearn --help`` lists them; command NAME is registered by module ``_NAME``
COMMANDS = ("run", "predict", "inspect", "compare", "serve", "demo", "reproduce")

# What a user can cause with a bad file, a bad model or bad numbers: shown as
# one line, never as a traceback. Programming errors (TypeError, ...) still
# show a traceback, because then the bug is ours.
# EOFError: a truncated compressed file (click would otherwise report it as "Aborted!").
_USER_ERRORS = (OlearnError, ValueError, OSError, FloatingPointError, MemoryError, EOFError)
# An optional dependency missing: olearn's ImportErrors name the extra that installs it (olearn.distributed's
# require_dask, olearn.river, olearn serve); any other ImportError is ours and keeps its traceback.
_EXTRA_HINT = 'pip install "olearn['


class CommandError(click.ClickException):
    """A failure that is reported as ``olearn: error: <message>`` on one line."""

    def __init__(self, message, exit_code=1, prefix="olearn: error: "):
        super().__init__(" ".join(str(message).splitlines()))
        self.exit_code = exit_code
        self.prefix = prefix

    def show(self, file=None):
        click.echo(f"{self.prefix}{self.message}", err=True)


def describe_error(err):
    """A one-line, user-facing description of ``err``."""
    if isinstance(err, MemoryError):
        return ("out of memory: a learner keeps one weight per feature up to the largest feature index, and "
                "the full-covariance ones (arow-full, narow-full, cw-full, sop) a d x d matrix for that "
                "dimension d; check the data's largest index, fix the dimension with --n-features, hash the "
                "features (VW files, --bits) or use a diagonal learner (arow, narow, cw); "
                "--chunk-size only bounds the rows read at once")
    if isinstance(err, OSError) and err.strerror:
        where = err.filename if err.filename is not None else ""
        return f"{where}: {err.strerror}" if where else err.strerror
    text = str(err).strip()
    return text if text else type(err).__name__


class OlearnGroup(click.Group):
    """A click group that turns user errors into one-line messages and Ctrl-C into exit 130."""

    def list_commands(self, ctx):
        return sorted(self.commands, key=COMMANDS.index)  # in the order a user needs them

    def resolve_command(self, ctx, args):
        from . import _vw_habits

        if args and args[0] not in self.commands and (hint := _vw_habits.learn_command_hint(args[0])) is not None:
            ctx.fail(hint)
        name, command, rest = super().resolve_command(ctx, args)
        if name in _vw_habits.COMMANDS and (hint := _vw_habits.vw_flag_hint(rest, name)) is not None:
            raise CommandError(hint, exit_code=2)
        return name, command, rest

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except (KeyboardInterrupt, SystemError) as err:
            if not caused_by_interrupt(err):
                raise
            raise CommandError("interrupted", exit_code=INTERRUPTED_EXIT_CODE, prefix="olearn: ") from None
        except ImportError as err:
            if _EXTRA_HINT not in str(err):
                raise
            raise CommandError(describe_error(err)) from None
        except _USER_ERRORS as err:
            if isinstance(err, OSError) and err.errno == errno.EPIPE:
                raise  # click silences a closed pipe (``olearn predict ... | head``)
            raise CommandError(describe_error(err)) from None


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=OlearnGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(package_name="olearn", prog_name="olearn", message="%(prog)s %(version)s")
def cli():
    """olearn: online learning from streams, on compiled kernels.

    Every command reads LIBSVM, Vowpal Wabbit, CSV or olearn cache files,
    and CoNLL files of tagged sequences (plain or gzip/bzip2/xz compressed;
    the format is detected unless --format says it) and learns one example
    at a time: each example is first predicted, then learned (progressive
    validation).

    \b
    Examples:
      olearn run --algo pa1 -C 0.1 train.svm --save model.npz
      olearn predict --model model.npz test.svm > predictions.txt
      olearn inspect model.npz
      olearn compare --algos perceptron,pa1,ogd --plot mistakes.png train.svm
      olearn demo --out olearn-demo

    Run 'olearn COMMAND --help' for the options of a command.
    """


def load_commands(names=COMMANDS):
    """The ``olearn`` group with the commands ``names`` registered (importing each command's module, ``_<name>``,
    once)."""
    for name in names:
        importlib.import_module(f"{__package__}._{name}")
    return cli


def commands_named(args):
    """The commands a command line needs registered: the one it starts with, or all of them (for ``--help``,
    ``--version`` or a misspelt command, which click answers with the whole group)."""
    return args[:1] if args and args[0] in COMMANDS else COMMANDS


def run_commands(args):
    """Run the ``olearn`` group, its commands loaded by :func:`load_commands`, on ``args`` and exit."""
    try:
        return cli.main(args=args, prog_name="olearn")
    finally:
        # The command is over, its output written and its exit code set: a Ctrl-C now would only
        # interrupt Python's shutdown and replace that exit code.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
