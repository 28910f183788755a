"""Iterative parameter mixing of PASequence against its serial passes, on a real tagging data set.

McDonald, Hall & Mann, *Distributed Training Strategies for the Structured
Perceptron*, NAACL 2010, Sec. 4: mixing the shards' models once at the end
(parameter mixing) falls short of the serial learner, while mixing them after
every epoch (iterative parameter mixing) reaches the serial accuracy after a
few epochs. Here on a tagging task made of real text: the statements of
Python's standard library (its own source files, present wherever Python
is), each token tagged with its syntactic role, read from the parser:

* a name: ``STORE`` / ``LOAD`` / ``DEL`` (its context), ``CALL`` (the name or
  attribute called), ``ATTR`` (an attribute), ``DEF`` / ``CLASS`` (the name
  defined), ``PARAM`` (a parameter), ``KWARG`` (a keyword argument's name),
  ``IMPORT`` (a name imported), ``KEYWORD``, ``NAME`` (anything else);
* ``OP``, ``NUMBER``, ``STRING``.

As in part-of-speech tagging, a word's identity leaves its tag open (``x``
may be stored, loaded, called, an attribute or a parameter) and the
neighbouring tokens settle it. Each token has the features of a POS tagger
(the word, lower-cased, its suffix, prefix and shape, and the words before
and after), written as a CoNLL file and hashed by :func:`olearn.data.load_conll`.
The files are taken in sorted order: the first ones give the training
statements (in their order), the next ones the test statements.

Run: ``python benchmarks/bench_sequence_mixing.py`` (a few minutes on 2
cores); ``--sentences`` / ``--shards`` / ``--epochs`` scale it.
"""

import argparse
import ast
import io
import keyword
import os
import re
import sysconfig
import tempfile
import tokenize

import numpy as np

_SKIPPED = {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
            tokenize.ENDMARKER, tokenize.NEWLINE}
_KINDS = {tokenize.OP: "OP", tokenize.NUMBER: "NUMBER", tokenize.STRING: "STRING"}


def stdlib_sources():
    """The standard library's top-level modules, sorted by name (empty if its source files are absent)."""
    root = sysconfig.get_paths()["stdlib"]
    if not os.path.isdir(root):
        return []
    return [os.path.join(root, name) for name in sorted(os.listdir(root)) if name.endswith(".py")]


def _roles(tree):
    """``{(line, column): tag}`` of the names whose role the syntax tree gives."""
    roles = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            roles.setdefault((node.lineno, node.col_offset), type(node.ctx).__name__.upper())
        elif isinstance(node, ast.Attribute):
            roles.setdefault((node.end_lineno, node.end_col_offset - len(node.attr)), "ATTR")
        elif isinstance(node, ast.arg):
            roles[(node.lineno, node.col_offset)] = "PARAM"
        elif isinstance(node, ast.keyword) and node.arg is not None:
            roles[(node.lineno, node.col_offset)] = "KWARG"
        elif isinstance(node, ast.alias):
            roles[(node.lineno, node.col_offset)] = "IMPORT"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                roles[(func.lineno, func.col_offset)] = "CALL"
            elif isinstance(func, ast.Attribute):
                roles[(func.end_lineno, func.end_col_offset - len(func.attr))] = "CALL"
    return roles


def tagged_statements(path):
    """The statements of one source file, each a list of (token, tag); [] for a file that does not parse
    here or holds non-ASCII text (the parser's columns count bytes, the tokenizer's characters)."""
    with open(path, "rb") as f:
        source = f.read()
    if not source.isascii():
        return []
    text = source.decode("ascii")
    try:
        roles = _roles(ast.parse(text))
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (SyntaxError, tokenize.TokenError, ValueError):
        return []
    statements, current, previous = [], [], None
    for token in tokens:
        if token.type == tokenize.NEWLINE and current:
            statements.append(current)
            current, previous = [], None
        if token.type in _SKIPPED:
            continue
        if token.type == tokenize.NAME:
            if keyword.iskeyword(token.string):
                tag = "KEYWORD"
            elif previous in ("def", "class"):
                tag = previous.upper()
            else:
                tag = roles.get(token.start, "NAME")
        else:
            tag = _KINDS.get(token.type, "OP")
        current.append((token.string, tag))
        previous = token.string
    return statements


def _shape(word):
    return "".join("X" if c.isupper() else "x" if c.islower() else "9" if c.isdigit() else c for c in word)[:6]


def write_conll(path, statements):
    """Each token's POS-tagger features and its tag, one token a line, a blank line after each statement."""
    with open(path, "w") as f:
        for statement in statements:
            words = ["<s>"] + [re.sub(r"\s", "_", word)[:30] for word, _ in statement] + ["</s>"]
            for i, (_, tag) in enumerate(statement, start=1):
                w = words[i]
                f.write(f"w={w} l={w.lower()} s3={w[-3:]} p2={w[:2]} sh={_shape(w)} "
                        f"-1={words[i - 1]} +1={words[i + 1]} -1t={words[i - 1]}|{w} {tag}\n")
            f.write("\n")


def tagging_data(n_train, n_test):
    """(train statements, test statements) of the standard library's files in sorted order."""
    statements = []
    for path in stdlib_sources():
        statements += tagged_statements(path)
        if len(statements) >= n_train + n_test:
            break
    if len(statements) < n_train + n_test:
        raise RuntimeError(f"the standard library's sources hold {len(statements)} statements here, "
                           f"fewer than {n_train + n_test}")
    return statements[:n_train], statements[n_train : n_train + n_test]


_PUNCTUATION = ("OP", "KEYWORD", "NUMBER", "STRING")


def token_accuracy(model, X, y):
    """(accuracy over every token, over the names: the tokens whose tag the parser gives from their context)."""
    predicted = model.predict(X)
    right = sum(int(np.count_nonzero(p == t)) for p, t in zip(predicted, y))
    names = [~np.isin(t, _PUNCTUATION) for t in y]
    right_names = sum(int(np.count_nonzero((p == t) & m)) for p, t, m in zip(predicted, y, names))
    return right / sum(len(t) for t in y), right_names / sum(int(m.sum()) for m in names)


def mixed_once(make, shards, epochs):
    """McDonald et al.'s (non-iterative) parameter mixing: every shard learns ``epochs`` passes alone, then the
    models are averaged once, tag by tag (the same rule as the mixing, applied by NumPy here)."""
    from olearn.distributed._models import mix_states

    models = [make() for _ in shards]
    for model, (X, y) in zip(models, shards):
        for _ in range(epochs):
            model.partial_fit(X, y)
    mixed = make()
    mixed._set_state(*mix_states("sequence", [m._get_state() for m in models], np.full(len(models),
                                                                                        1 / len(models))))
    return mixed


def reproduce(n_train, n_test, n_shards, epochs, bits=18, client=None):
    """Token accuracy on the test statements after each epoch: serial passes, iterative parameter mixing,
    and parameter mixing once at the end. Returns rows (epoch, serial, iterative, once), each accuracy a pair
    (every token, the names: :func:`token_accuracy`)."""
    from olearn.data import load_conll
    from olearn.distributed import parameter_mixing
    from olearn.sequence import PASequence

    train, test = tagging_data(n_train, n_test)
    with tempfile.TemporaryDirectory() as work:
        write_conll(os.path.join(work, "train.conll"), train)
        write_conll(os.path.join(work, "test.conll"), test)
        X, y = load_conll(os.path.join(work, "train.conll"), n_bits=bits)
        X_test, y_test = load_conll(os.path.join(work, "test.conll"), n_bits=bits)

    def make():
        return PASequence(variant="pa1", C=1.0, n_bits=bits)

    shards = [(X[i::n_shards], y[i::n_shards]) for i in range(n_shards)]
    serial, mixing = make(), make()
    rows = []
    for epoch in range(1, epochs + 1):
        serial.partial_fit(X, y)
        parameter_mixing(mixing, shards, epochs=1, client=client)
        rows.append((epoch, token_accuracy(serial, X_test, y_test), token_accuracy(mixing, X_test, y_test),
                     token_accuracy(mixed_once(make, shards, epoch), X_test, y_test)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=20_000, help="training statements")
    parser.add_argument("--test", type=int, default=5_000, help="test statements")
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=6)
    args = parser.parse_args()
    from olearn.distributed import connect

    with connect(workers=2, quiet=True) as client:
        rows = reproduce(args.sentences, args.test, args.shards, args.epochs, client=client)
    print(f"{args.sentences:,} training statements, {args.test:,} test statements, {args.shards} shards")
    print("token accuracy (on the names alone)")
    print("| epochs | serial | iterative parameter mixing | parameter mixing once |")
    print("|---|---|---|---|")
    for epoch, *accuracies in rows:
        print(f"| {epoch} | " + " | ".join(f"{every:.4f} ({names:.4f})" for every, names in accuracies) + " |")


if __name__ == "__main__":
    main()
