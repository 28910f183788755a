"""A tagger reads, learns and decodes on the kernels compiled at install, as the paper and MurmurHash3 say.

``sequence_pass`` and ``sequence_predict`` (olearn._kernels._sequence, the
latter the Viterbi decoding), and the CoNLL reader's ``hash_names`` and
``sort_and_sum_rows`` are in the extension module
(olearn._kernels._compiled.KERNELS): their callers' arguments must have the
compiled types (else the guard sends them to numba, which compiles on a first
run). The tagger's model must be that of the NumPy transcription of the paper
(:mod:`oracles.sequence`), and the reader's rows those of MurmurHash3 as
scikit-learn computes it.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from oracles.sequence import brute_force_argmax, chain_score, pa_sequence
from sklearn.utils import murmurhash3_32

from olearn._kernels import _compiled
from olearn.data import load_conll
from olearn.sequence import PASequence

built = pytest.mark.skipif(_compiled.EXTENSION is None, reason="olearn was installed without the compiled kernels")
TAGS = ["ADJ", "DET", "NOUN", "VERB"]


def sentences():
    """Sentences of 1 to 3 words (short enough for the transcription's search over every labelling)."""
    rng = np.random.default_rng(11)
    X, y = [], []
    for _ in range(16):
        labels = [TAGS[i] for i in rng.integers(0, len(TAGS), rng.integers(1, 4))]
        X.append([{f"w={t}{rng.integers(3)}": 1.0, "shape": float(rng.random())} for t in labels])
        y.append(labels)
    return X, y


def no_numba(name):
    raise AssertionError(f"{name} went to numba: its caller's arguments are not the compiled types")


def papers_model(columns, X, y, average, **params):
    """(coef, intercept, transition, end_transition) of :func:`oracles.sequence.pa_sequence` on the dict rows ``X``,
    each name in its column of ``columns``; with ``average`` the mean of those after each sequence."""
    dense = [np.array([[row.get(name, 0.0) for name in sorted(columns, key=columns.get)] for row in sentence])
             for sentence in X]
    traces = [pa_sequence(dense[:t], y[:t], TAGS, **params) for t in (range(1, len(y) + 1) if average else [len(y)])]
    return dense, [np.mean([getattr(trace, name) for trace in traces], axis=0)
                   for name in ("coef", "intercept", "transition", "end_transition")]


@built
@pytest.mark.parametrize("params", [{}, {"average": True, "fit_intercept": True}, {"update": "max-loss"}])
def test_the_compiled_sequence_kernels_take_the_tagger_s_calls_and_learn_the_papers_model(params, monkeypatch):
    X, y = sentences()
    monkeypatch.setattr(_compiled, "_numba_kernel", no_numba)
    model = PASequence(C=0.5, random_state=0, **params)
    model.partial_fit(X[:8], y[:8]).partial_fit(X[8:], y[8:])
    tags = model.predict(X)
    columns = model.vocabulary_
    assert sorted(columns.values()) == list(range(len(columns)))  # one column per name
    dense, (coef, intercept, transition, end) = papers_model(
        columns, X, y, params.get("average", False), variant="pa1", C=0.5, update=params.get("update", "prediction"))
    for got, want in ((model.coef_, coef), (model.intercept_, intercept), (model.transition_, transition),
                      (model.end_transition_, end)):
        assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    for sentence, predicted in zip(dense, tags, strict=True):
        em = sentence @ coef.T + intercept
        best = brute_force_argmax(lambda labels, em=em: chain_score(em, transition, labels, end), len(sentence),
                                  range(len(TAGS)))
        assert list(predicted) == [TAGS[i] for i in best]
    assert np.abs(coef).sum() > 0.0 and len({t for s in tags for t in s}) > 1


def test_a_python_float_has_the_compiled_float64_type():
    types = tuple(_compiled.parse_type(code) for code in "f8 i8".split())
    assert _compiled.accepts(types, (0.5, 3)) and _compiled.accepts(types, (np.float64(0.5), 3))
    assert not _compiled.accepts(types, (1, 3)) and not _compiled.accepts(types, (np.float32(0.5), 3))


@built
def test_the_conll_reader_hashes_and_sorts_on_the_compiled_kernels(tmp_path, monkeypatch):
    """Each name's column is MurmurHash3 x86_32 of its UTF-8 bytes, seed 0, modulo 2**n_bits (scikit-learn's
    murmurhash3_32 here), the names of a token falling in one column summed, in sorted rows."""
    path = tmp_path / "tagged.conll"
    path.write_text("w=the the shape=x DET\nw=dog shape=x w=dog NOUN\n\nw=runs é=1 VERB\n", encoding="utf-8")
    monkeypatch.setattr(_compiled, "_numba_kernel", no_numba)
    X, y = load_conll(path, n_bits=4)
    assert [list(tags) for tags in y] == [["DET", "NOUN"], ["VERB"]]
    tokens = [[["w=the", "the", "shape=x"], ["w=dog", "shape=x", "w=dog"]], [["w=runs", "é=1"]]]
    for rows, sentence in zip(X, tokens, strict=True):
        expected = np.zeros((len(sentence), 16))
        for row, names in zip(expected, sentence):
            for name in names:
                row[murmurhash3_32(name.encode(), 0, positive=True) & 15] += 1.0
        assert rows.has_canonical_format and np.array_equal(rows.toarray(), expected)
    assert X[0][1].sum() == 3.0 and X[0][1].nnz <= 2  # "w=dog" twice: one feature of value 2
