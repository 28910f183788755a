"""Vowpal Wabbit's namespace options of ``olearn run``: -q/--quadratic, --cubic, --interactions, --ignore, --keep,
--ngram, --skips (docs/cli.md, "Interactions")."""

import functools

import click

_NAMES = ("quadratic", "cubic", "interactions", "ignore", "keep", "ngram", "skips")


def namespace_options(func):
    """Add the options, handed to ``func`` as one ``namespaces`` argument: a checked
    :class:`~olearn.data._namespaces.Namespaces`, or None when none is given."""
    options = [
        click.option("--quadratic", "-q", multiple=True, metavar="AB",
                     help="VW files: cross the namespaces starting with A with those starting with B (VW's -q; "
                          "':' for every namespace). Repeatable."),
        click.option("--cubic", multiple=True, metavar="ABC", help="VW files: cross three namespaces. Repeatable."),
        click.option("--interactions", multiple=True, metavar="AB...",
                     help="VW files: cross two namespaces or more ('abcd'). Repeatable."),
        click.option("--ignore", multiple=True, metavar="LETTERS",
                     help="VW files: drop the namespaces starting with these letters."),
        click.option("--keep", multiple=True, metavar="LETTERS",
                     help="VW files: keep only the namespaces starting with these letters."),
        click.option("--ngram", multiple=True, metavar="[A]N",
                     help="VW files: add the 2- to N-grams of the features of namespace A (of every namespace "
                          "without A)."),
        click.option("--skips", multiple=True, metavar="[A]N",
                     help="VW files: with --ngram, n-grams also skipping up to N features in all."),
    ]

    @functools.wraps(func)
    def wrapper(**params):
        given = {name: params.pop(name) for name in _NAMES}
        params["namespaces"] = namespaces_of(**given)
        return func(**params)

    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


def namespaces_of(quadratic=(), cubic=(), interactions=(), ignore=(), keep=(), ngram=(), skips=()):
    """The options as a :class:`~olearn.data._namespaces.Namespaces` (None if none is given); a usage error if
    malformed."""
    from ..data._namespaces import Namespaces

    for flag, terms, size in (("-q/--quadratic", quadratic, 2), ("--cubic", cubic, 3)):
        for term in terms:
            if len(term) != size:
                quiet = "; quiet is spelt --quiet" if flag.startswith("-q") and len(term) > size else ""
                raise click.UsageError(f"{flag} {term!r}: give {size} namespace letters (--interactions crosses any "
                                       f"number){quiet}")
    try:
        return Namespaces.of([*quadratic, *cubic, *interactions], "".join(ignore), "".join(keep), list(ngram),
                             list(skips))
    except ValueError as err:
        raise click.UsageError(str(err).replace("ignore and keep", "--ignore and --keep")) from None
