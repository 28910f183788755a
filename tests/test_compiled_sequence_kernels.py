"""A tagger reads, learns and decodes on the kernels compiled at install, as numba's do.

``sequence_pass`` and ``sequence_predict`` (olearn._kernels._sequence, the
latter the Viterbi decoding), and the CoNLL reader's ``hash_names`` and
``sort_and_sum_rows`` are in the extension module
(olearn._kernels._compiled.KERNELS): their callers' arguments must have the
compiled types (else the guard sends them to numba, which compiles on a first
run), and the compiled code must answer bit for bit as numba's kernels of the
same source.
"""

import numpy as np
import pytest

from olearn._kernels import _compiled, _hash_names, _parse_rows, _sequence
from olearn.data import load_conll
from olearn.sequence import PASequence

built = pytest.mark.skipif(_compiled.EXTENSION is None, reason="olearn was installed without the compiled kernels")


def sentences():
    rng = np.random.default_rng(11)
    tags = np.array(["DET", "NOUN", "VERB", "ADJ"])
    X, y = [], []
    for _ in range(60):
        labels = tags[rng.integers(0, tags.size, rng.integers(1, 9))]
        X.append([{f"w={t}{rng.integers(3)}": 1.0, "shape": float(rng.random())} for t in labels])
        y.append(list(labels))
    return X, y


def learned(**params):
    X, y = sentences()
    model = PASequence(C=0.5, random_state=0, **params)
    model.partial_fit(X[:30], y[:30]).partial_fit(X[30:], y[30:])
    return model, model.predict(X)


def no_numba(name):
    raise AssertionError(f"{name} went to numba: its caller's arguments are not the compiled types")


@built
@pytest.mark.parametrize("params", [{}, {"average": True, "fit_intercept": True}, {"update": "max-loss"}])
def test_the_compiled_sequence_kernels_take_the_tagger_s_calls_and_answer_as_numba(params, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(_compiled, "_numba_kernel", no_numba)
        compiled, compiled_tags = learned(**params)
    monkeypatch.setattr(_compiled, "sequence_pass", _sequence.sequence_pass)
    monkeypatch.setattr(_compiled, "sequence_predict", _sequence.sequence_predict)
    jitted, jitted_tags = learned(**params)
    assert np.array_equal(compiled._emission, jitted._emission)
    assert np.array_equal(compiled._transition, jitted._transition)
    assert all(np.array_equal(a, b) for a, b in zip(compiled_tags, jitted_tags, strict=True))
    assert np.abs(compiled._emission).sum() > 0.0 and len({t for s in compiled_tags for t in s}) > 1


def test_a_python_float_has_the_compiled_float64_type():
    types = tuple(_compiled.parse_type(code) for code in "f8 i8".split())
    assert _compiled.accepts(types, (0.5, 3)) and _compiled.accepts(types, (np.float64(0.5), 3))
    assert not _compiled.accepts(types, (1, 3)) and not _compiled.accepts(types, (np.float32(0.5), 3))


@built
def test_the_conll_reader_hashes_and_sorts_on_the_compiled_kernels_as_numba(tmp_path, monkeypatch):
    path = tmp_path / "tagged.conll"
    path.write_text("w=the the shape=x DET\nw=dog shape=x w=dog NOUN\n\nw=runs é=1 VERB\n", encoding="utf-8")
    with monkeypatch.context() as patch:
        patch.setattr(_compiled, "_numba_kernel", no_numba)
        X, y = load_conll(path, n_bits=4)
    monkeypatch.setattr(_compiled, "hash_names", _hash_names.hash_names)
    monkeypatch.setattr(_compiled, "sort_and_sum_rows", _parse_rows.sort_and_sum_rows)
    X_numba, y_numba = load_conll(path, n_bits=4)
    assert [list(tags) for tags in y] == [list(tags) for tags in y_numba] == [["DET", "NOUN"], ["VERB"]]
    for compiled, jitted in zip(X, X_numba, strict=True):
        assert np.array_equal(compiled.indptr, jitted.indptr) and np.array_equal(compiled.indices, jitted.indices)
        assert np.array_equal(compiled.data, jitted.data)
    assert X[0][1].sum() == 3.0 and X[0][1].nnz <= 2  # "w=dog" twice: one feature of value 2
