"""The kernels compiled ahead of time (``olearn._kernels._compiled``): used only when exactly right.

The extension holds machine code that checks no type, so every call is
guarded: arguments of other types, an extension built from other sources, or
``OLEARN_KERNELS=jit`` send the call to the numba kernel. Where the extension
is used it must give what numba's kernel gives, bit for bit; the installed
package built by CI must have it. The learners of strided weights (diagonal
second-order and averaging ones) are checked against the NumPy transcriptions
of their papers (:mod:`oracles`) instead: compiling numba's kernels for them
cost a minute of the suite.
"""

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp
from oracles import binary as binary_oracle
from oracles import second_order as second_order_oracle
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import olearn
from fresh_cli import loaded_by
from olearn._kernels import _codes, _compiled
from olearn.data import load_vw
from olearn.second_order import SecondOrderClassifier

built = pytest.mark.skipif(_compiled.EXTENSION is None, reason="olearn was installed without the compiled kernels")


def test_ci_installs_the_compiled_kernels():
    """CI installs olearn as a user does (``pip install .``): the build must have compiled the kernels."""
    if not os.environ.get("CI"):
        pytest.skip("a source tree run without building the extension uses numba's kernels")
    assert _compiled.EXTENSION is not None
    assert _compiled.EXTENSION.source_key() == _compiled.key_number()
    # compiled for this machine's CPU where it can be identified, and named after it
    assert _compiled.EXTENSION.__name__ == f"olearn._kernels.{_compiled.extension_name(_compiled.cpu_identity())}"


def _types(name):
    return tuple(_compiled.parse_type(code) for code in _compiled.KERNELS[name][1].split())


def _summary_args():
    indptr = np.array([0, 2, 3], dtype=np.int64)
    indices = np.array([0, 4, 1], dtype=np.int32)
    return [indptr, indices, indices.view(np.uint32), np.uint32(5), np.array([1.0, 2.0, 3.0]), 5]


def test_the_guard_accepts_exactly_the_compiled_types():
    types = _types("csr_summary")
    assert _compiled.accepts(types, tuple(_summary_args()))
    wrong = {
        0: [np.array([0, 2, 3], dtype=np.int32), np.array([[0, 2, 3]]), np.arange(6)[::2], [0, 2, 3], None],
        3: [5, np.uint64(5), 5.0],
        4: [np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array([1.0, 2.0, 3.0], dtype=">f8")],
        5: [True, np.int32(5), 5.0, 2**63, -(2**63) - 1, np.uint64(5)],
    }
    for position, values in wrong.items():
        for value in values:
            args = _summary_args()
            args[position] = value
            assert not _compiled.accepts(types, tuple(args)), (position, value)
    for value in (np.int64(5), 2**63 - 1, -(2**63)):
        args = _summary_args()
        args[5] = value
        assert _compiled.accepts(types, tuple(args)), value


def test_the_guard_wants_writable_arrays_except_where_read_only_is_allowed():
    args = _summary_args()
    args[4].flags.writeable = False
    assert not _compiled.accepts(_types("csr_summary"), tuple(args))
    parse = _types("parse_libsvm")
    assert parse[0][3] and not parse[6][3]  # the text buffer may be read-only, the outputs may not


def test_trailing_none_arguments_may_be_left_out_but_not_given_otherwise():
    types = _types("binary_linear_pass")
    assert [kind for kind, *_ in types[-4:]] == ["none", "none", "none", "none"]
    args = (np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)) + tuple(
        np.zeros(1, dtype=np.int64) if code == "i8[:]" else np.zeros(1)
        for code in _compiled.KERNELS["binary_linear_pass"][1].split()[2:13])
    assert _compiled.accepts(types, args)
    assert _compiled.accepts(types, args + (None,))
    assert not _compiled.accepts(types, args + (np.zeros(1), np.zeros(2)))  # averaging: numba's kernel
    assert not _compiled.accepts(types, args + (None, None, np.uint64(3)))  # checking: a kernel of its own
    assert not _compiled.accepts(types, args + (None, None, None, np.zeros(1, dtype=bool)))  # held out: its own
    assert not _compiled.accepts(types, args + (None, None, None, None, None))


def test_a_bool_scalar_is_a_python_or_numpy_bool_only():
    types = tuple(_compiled.parse_type(code) for code in "b1 i8".split())
    assert _compiled.accepts(types, (True, 3)) and _compiled.accepts(types, (np.bool_(False), 3))
    for value in (1, 0, np.int64(1), 1.0, None, np.array([True])):
        assert not _compiled.accepts(types, (value, 3)), value


def test_only_the_any_layout_code_takes_a_strided_column():
    """A diagonal second-order learner's mean and variances are columns of one (d + 1, 2 or 3) array: "f8[:]A"
    (numba's layout "A", compiled to read the strides) takes them and contiguous arrays; "f8[:]" only the latter."""
    records = np.zeros((5, 3))
    column, contiguous = records[:, 1], np.zeros(5)
    assert not column.flags.c_contiguous
    strided, plain = (_compiled.parse_type(code) for code in ("f8[:]A", "f8[:]"))
    assert strided == ("array", np.float64, 1, False, True) and plain == ("array", np.float64, 1, False, False)
    assert _compiled.accepts((strided,), (column,)) and _compiled.accepts((strided,), (contiguous,))
    assert not _compiled.accepts((plain,), (column,)) and _compiled.accepts((plain,), (contiguous,))
    read_only = records[:, 0]
    read_only.flags.writeable = False
    for refused in (read_only, records[:, :2], records.astype(np.float32)[:, 0], records.ravel()[1::3].view(np.int64)):
        assert not _compiled.accepts((strided,), (refused,)), refused


def test_a_call_takes_the_export_of_the_first_signature_its_arguments_have(monkeypatch):
    """``sort_and_sum_rows`` has two signatures (int32 or int64 ``indptr``): each its own export, else numba."""
    assert len(_compiled.signatures("sort_and_sum_rows")) == 2
    exports = {_compiled.export_name("sort_and_sum_rows", n): (lambda *args, n=n: f"compiled {n}") for n in (0, 1)}
    assert len(exports) == 2
    monkeypatch.setattr(_compiled, "_numba_kernel", lambda name: lambda *args: f"numba {name}")
    kernel = _compiled._guarded("sort_and_sum_rows", type("Extension", (), exports))
    indices, scratch = np.zeros(2, dtype=np.int32), np.zeros(3, dtype=np.int64)
    for indptr_dtype, data, want in [(np.int32, np.ones(2), "compiled 0"), (np.int64, np.ones(2), "compiled 1"),
                                     (np.int16, np.ones(2), "numba sort_and_sum_rows"),
                                     (np.int64, np.ones(2, dtype=np.float32), "numba sort_and_sum_rows")]:
        indptr = np.array([0, 1, 2], dtype=indptr_dtype)
        assert kernel(indptr, indices, data, 2, scratch, scratch.copy(), np.empty(2)) == want, indptr_dtype


@built
def test_the_extension_exports_every_signature_of_every_kernel():
    for name in _compiled.KERNELS:
        for n in range(len(_compiled.signatures(name))):
            assert callable(getattr(_compiled.EXTENSION, _compiled.export_name(name, n))), (name, n)


def test_an_extension_of_other_sources_or_the_jit_switch_is_not_used(monkeypatch):
    assert _compiled._load_extension(key="0" * 20) is None
    monkeypatch.setenv("OLEARN_KERNELS", "jit")
    assert _compiled._load_extension() is None


_CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
model name\t: Some CPU
flags\t\t: fpu sse2 avx2

processor\t: 1
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
flags\t\t: fpu sse2 avx2 other
"""


def test_the_cpu_identity_is_the_first_processors_vendor_family_model_and_flags(tmp_path):
    path = tmp_path / "cpuinfo"
    path.write_text(_CPUINFO)
    assert _compiled.cpu_identity(path) == "vendor_id: AuthenticAMD\ncpu family: 25\nmodel: 17\nflags: fpu sse2 avx2\n"
    path.write_text("processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n")
    assert _compiled.cpu_identity(path) is None  # an ARM machine lists other fields: the generic CPU then
    assert _compiled.cpu_identity(tmp_path / "missing") is None


def test_the_extension_is_named_after_the_cpu_it_is_compiled_for():
    identity = "vendor_id: GenuineIntel\ncpu family: 6\nmodel: 1\nflags: fpu\n"
    name = _compiled.extension_name(identity)
    assert name.startswith("_precompiled_") and name.isidentifier()
    assert name != _compiled.extension_name(identity.replace("fpu", "fpu sse2"))  # one flag more: another CPU
    assert _compiled.extension_name(None) == "_precompiled"  # the generic CPU


def test_an_extension_compiled_for_another_cpu_is_not_used():
    other = "vendor_id: GenuineIntel\ncpu family: 6\nmodel: 1\nflags: fpu\n"
    if _compiled.extension_name(_compiled.cpu_identity()) == _compiled.GENERIC_NAME:
        pytest.skip("this machine's CPU cannot be identified: its build targets the generic CPU, which any runs")
    assert _compiled._load_extension(identity=other) is None
    if _compiled.EXTENSION is not None:
        assert _compiled._load_extension(identity=_compiled.cpu_identity()) is _compiled.EXTENSION


# Calls that the compiled code would misread but numba's kernel reads right (other dtypes, layouts, scalar
# types, read-only outputs): each must give numba's answer. In a subprocess, so that a guard that let one
# through crashes that process, not the test runner.
_MISTYPED_CALLS = textwrap.dedent("""
    import numpy as np
    from olearn._kernels import _codes, _compiled
    from olearn._kernels._rows import csr_summary

    assert _compiled.EXTENSION is not None
    indptr = np.array([0, 2, 3, 3, 5])
    wide = np.array([3, 1, 7, 0, 2])
    narrow = wide.astype(np.int32)
    data = np.array([1.0, np.nan, 2.0, 4.0, 5.0])
    read_only = data.copy()
    read_only.flags.writeable = False
    cases = [
        (indptr, wide, wide.view(np.uint64), np.uint64(5), data, 5),
        (indptr, narrow, narrow.view(np.uint32), np.uint32(5), data.astype(np.float32), 5),
        (indptr, narrow, narrow.view(np.uint32), 5, data, 5),
        (indptr, narrow, narrow.view(np.uint32), np.uint32(5), np.repeat(data, 2)[::2], 5),
        (indptr, narrow, narrow.view(np.uint32), np.uint32(5), read_only, 5),
        (indptr, narrow, narrow.view(np.uint32), np.uint32(5), data, np.int32(5)),
    ]
    for args in cases:
        assert _compiled.csr_summary(*args) == csr_summary(*args), args
    print("ok", len(cases))
""")


@built
def test_calls_of_other_types_go_to_numba_and_answer_as_numba():
    proc = subprocess.run([sys.executable, "-c", _MISTYPED_CALLS], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok", "6"]


def _jit(name):
    return _compiled._numba_kernel(name)


@built
@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_input_check_answers_as_numba(seed):
    rng = np.random.default_rng(seed)
    n_rows, n_columns = 300, 50
    lengths = rng.integers(0, 6, size=n_rows)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    indices = rng.integers(-2 if seed == 3 else 0, n_columns + (3 if seed >= 2 else 0), size=indptr[-1]).astype(np.int32)
    data = rng.normal(size=indptr[-1])
    if seed == 1:
        data[rng.integers(data.size)] = np.inf
    args = (indptr, indices, indices.view(np.uint32), np.uint32(n_columns), data, n_columns)
    assert _compiled.EXTENSION.csr_summary(*args) == _jit("csr_summary")(*args)


@built
def test_the_compiled_span_gathering_copies_as_numba():
    rng = np.random.default_rng(3)
    buf = rng.integers(33, 127, size=500).astype(np.uint8)
    buf.flags.writeable = False  # as a file's bytes are
    starts = rng.integers(0, 480, size=40)
    spans = np.stack([starts, starts + rng.integers(1, 20, size=40), np.zeros(40, int), np.zeros(40, int)], axis=1)
    outs = [np.full((30, 20), 7, dtype=np.uint8) for _ in range(2)]
    _compiled.EXTENSION.gather_spans(buf, spans, 5, 35, outs[0])
    _jit("gather_spans")(buf, spans, 5, 35, outs[1])
    assert np.array_equal(outs[0], outs[1])
    assert outs[0][0].tobytes().rstrip(b"\0") == buf[spans[5, 0]:spans[5, 1]].tobytes()


@built
def test_the_compiled_scores_are_numba_s():
    rng = np.random.default_rng(4)
    indptr = np.array([0, 3, 3, 7], dtype=np.int64)
    indices = np.array([0, 2, 5, 1, 2, 3, 6], dtype=np.int32)
    data, w = rng.normal(size=7), rng.normal(size=8)
    state = np.zeros(_codes.N_STATE)
    state[_codes.S_SCALE] = 0.75
    params = np.zeros(_codes.N_PARAMS)
    params[_codes.P_BIAS] = 1.0
    outs = [np.empty(3), np.empty(3)]
    _compiled.EXTENSION.binary_linear_scores(indptr, indices, data, w, state, params, outs[0])
    _jit("binary_linear_scores")(indptr, indices, data, w, state, params, outs[1])
    assert np.array_equal(outs[0], outs[1])
    assert outs[0][1] == pytest.approx(0.75 * w[-1])  # an empty row scores the intercept's weight only


@built
def test_the_compiled_margin_losses_are_numba_s_and_the_losses_of_the_paper():
    """The losses ``olearn run -t`` reports: hinge max(0, 1 - m), logistic log(1 + e^-m), squared (1 - m)^2 / 2."""
    margins = np.array([-800.0, -3.5, -1e-300, 0.0, 0.25, 1.0, 2.0, 40.0, 800.0])
    by_hand = {
        _codes.LOSS_HINGE: [801.0, 4.5, 1.0, 1.0, 0.75, 0.0, 0.0, 0.0, 0.0],
        _codes.LOSS_LOGISTIC: [800.0, 3.5 + math.log1p(math.exp(-3.5)), math.log(2.0), math.log(2.0),
                               math.log1p(math.exp(-0.25)), math.log1p(math.exp(-1.0)), math.log1p(math.exp(-2.0)),
                               math.exp(-40.0), 0.0],
        _codes.LOSS_SQUARED: [0.5 * 801.0 ** 2, 0.5 * 4.5 ** 2, 0.5, 0.5, 0.5 * 0.75 ** 2, 0.0, 0.5, 0.5 * 39.0 ** 2,
                              0.5 * 799.0 ** 2],
    }
    for loss, want in by_hand.items():
        outs = [np.empty(margins.size), np.empty(margins.size)]
        _compiled.EXTENSION.margin_losses(loss, margins, outs[0])
        _jit("margin_losses")(loss, margins, outs[1])
        assert np.array_equal(outs[0], outs[1])
        np.testing.assert_allclose(outs[0], want, rtol=1e-15, atol=0.0)


@built
@pytest.mark.parametrize("variant, C", [("pa", 1.0), ("pa1", 0.05), ("pa2", 0.3)])
@pytest.mark.parametrize("kernel, sparse", [("binary_linear_pass", False), ("checking_linear_pass", True)])
def test_the_compiled_pass_learns_bit_identical_weights(kernel, sparse, variant, C):
    """A dense batch is checked, then learned by the plain pass; a CSR batch by the pass that checks its rows."""
    from olearn._kernels import _binary_linear

    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 30)) * (rng.random((400, 30)) < 0.3)
    y = np.where(X @ rng.normal(size=30) + 0.3 * rng.normal(size=400) > 0, 1.0, -1.0)
    X = sp.csr_matrix(X) if sparse else X
    learners = [olearn.PAClassifier(variant=variant, C=C) for _ in range(2)]
    calls = []

    def recorded(*args):
        calls.append(args)
        return getattr(_binary_linear, kernel)(*args)

    learners[0].partial_fit(X, y, classes=[-1.0, 1.0])
    # the same stream through numba's kernel: the second learner's pass is called with a stand-in
    original = getattr(_compiled, kernel)
    try:
        setattr(_compiled, kernel, recorded)
        learners[1].partial_fit(X, y, classes=[-1.0, 1.0])
    finally:
        setattr(_compiled, kernel, original)
    assert calls, "the learner did not call the pass through _compiled"
    assert _compiled.accepts(_types(kernel), calls[0])  # so the first learner's pass was compiled
    assert np.array_equal(learners[0].coef_, learners[1].coef_)
    assert np.array_equal(learners[0].intercept_, learners[1].intercept_)
    assert learners[0].coef_.any()


@built
@pytest.mark.parametrize("kind", ["index past", "indptr decreasing", "nan", "inf", "unsorted", "duplicate",
                                  "indptr start", "indptr end"])
def test_the_compiled_checking_pass_stops_where_numba_s_stops(kind):
    from fuzz._learners import csr_broken_at, sorted_csr

    rng = np.random.default_rng(5)
    row = 0 if kind == "indptr start" else 29 if kind == "indptr end" else 13
    X, stop = csr_broken_at(sorted_csr(30, 6, rng), kind, row)
    codes = np.zeros(_codes.N_CODES, dtype=np.int64)
    codes[_codes.K_STEP] = _codes.STEP_PA1
    params = np.zeros(_codes.N_PARAMS)
    params[_codes.P_C] = 1.0
    y, empty = np.where(rng.random(30) < 0.5, -1.0, 1.0), np.empty(0)
    outcomes = []
    for kernel in (_compiled.EXTENSION.checking_linear_pass, _jit("checking_linear_pass")):
        w, state, totals = np.zeros(7), np.array([0.0, 1.0, 0.0]), np.zeros(_codes.N_TOTALS)
        stopped = kernel(X.indptr.astype(np.int64), X.indices, X.data, np.uint64(6), y, empty, w, state, params,
                         codes, empty, empty, empty, totals)
        outcomes.append((stopped, w, state, totals))
    (stopped, w, state, totals), (jit_stopped, jit_w, jit_state, jit_totals) = outcomes
    assert stopped == jit_stopped == stop
    assert totals[_codes.T_ROUNDS] == stop
    for a, b in ((w, jit_w), (state, jit_state), (totals, jit_totals)):
        assert np.array_equal(a, b)


def _no_numba(name):
    raise AssertionError(f"{name} went to numba: its caller's arguments are not the compiled types")


def _iterates(learner, X, y):
    """(coef, intercept) of the learner's NumPy transcription of its paper (:mod:`oracles`) after each round 0..n,
    one row each (a run of the transcription on each prefix of the stream), and the trace of the whole stream."""
    oracle = second_order_oracle if isinstance(learner, SecondOrderClassifier) else binary_oracle
    traces = [oracle.for_estimator(type(learner).__name__, learner.get_params(), X[:t], y[:t])
              for t in range(len(y) + 1)]
    return np.array([np.append(trace.coef, trace.intercept) for trace in traces]), traces[-1]


def _close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-12)


_DIAGONAL = ("diagonal_pass", "checking_diagonal_pass", "mean_scores")
_AVERAGED = ("averaged_linear_pass", "checking_averaged_pass", "averaged_scores")


@built
@pytest.mark.parametrize("make, kernels", [
    (lambda: olearn.AROW(covariance="diag", r=0.5), _DIAGONAL),
    (lambda: olearn.AdaGrad(eta=0.3, average=True), _DIAGONAL),
    (lambda: olearn.NAROW(covariance="diag", b=0.1, fit_intercept=False), _DIAGONAL),
    (lambda: olearn.PAClassifier(variant="pa1", C=0.3, average=True), _AVERAGED),
], ids=["arow", "adagrad-averaged", "narow", "pa1-averaged"])
def test_learners_of_strided_weights_take_the_compiled_passes_and_learn_the_papers_models(make, kernels,
                                                                                         monkeypatch):
    """AROW, AdaGrad and NAROW with a diagonal covariance, and an averaging linear learner: a dense batch (checked,
    then the plain pass), a CSR batch (the pass that checks its rows) and the scores must all be compiled calls
    (their weights are strided columns: the "f8[:]A" code; numba's kernels are out of reach here) and give the
    model of the NumPy transcription of the paper, averaged as the mean of its iterates after each round."""
    plain, checking, scoring = kernels
    rng = np.random.default_rng(8)
    X = rng.normal(size=(80, 8)) * (rng.random((80, 8)) < 0.5)
    y = np.where(X @ rng.normal(size=8) + 0.3 * rng.normal(size=80) > 0, 1.0, -1.0)
    calls = {name: [] for name in kernels}

    def recorded(name, kernel):
        def call(*args):
            calls[name].append(args)
            return kernel(*args)
        return call

    for name in kernels:
        monkeypatch.setattr(_compiled, name, recorded(name, getattr(_compiled, name)))
    monkeypatch.setattr(_compiled, "_numba_kernel", _no_numba)
    learner = make()
    for Xb, yb in ((X[:40], y[:40]), (sp.csr_matrix(X[40:]), y[40:])):
        learner.partial_fit(Xb, yb, classes=[-1.0, 1.0])
    scores = learner.decision_function(X)
    assert calls[plain] and calls[checking], "the learner did not call its passes through _compiled"
    assert calls[scoring] or kernels is _DIAGONAL and learner.average  # there, averages score by their own
    assert not calls[plain][0][5].flags.c_contiguous  # the weights: a strided column
    iterates, trace = _iterates(learner, X, y)
    model = iterates[1:].mean(axis=0) if learner.average else iterates[-1]
    _close(learner.coef_.ravel(), model[:-1])
    _close(learner.intercept_, model[-1:])
    _close(scores, X @ model[:-1] + model[-1])
    if kernels is _DIAGONAL:
        _close(learner.accumulator_ if isinstance(learner, olearn.AdaGrad) else learner.covariance_, trace.covariance)
    assert learner.coef_.any() and np.count_nonzero(trace.taus) > 10


@built
@pytest.mark.parametrize("n_bits", [18, 2])  # 2 bits: the crossed features share columns with the plain ones
def test_vw_rows_are_crossed_on_the_compiled_kernels_as_vw_hashes_them(tmp_path, monkeypatch, n_bits):
    """``load_vw(interactions=...)``: the parse keeping each entry's namespace, the crossing and the sort of the
    crossed rows (int64 row pointers) are second signatures of their kernels or kernels of their own; each must
    take the reader's call (not numba) and give VW's features: MurmurHash3 of the name seeded with the namespace's,
    crossed as ``(h_a * 16777619) ^ h_b`` of value the product (a plain transcription)."""
    from sklearn.utils import murmurhash3_32

    def hashed(namespace, name):
        return murmurhash3_32(name, murmurhash3_32(namespace, 0, positive=True), positive=True)

    path = tmp_path / "crossed.vw"
    path.write_text("1 |a x:2 y:3 |b z:5\n-1 0.5 |b z |c w\n")
    monkeypatch.setattr(_compiled, "_numba_kernel", _no_numba)
    X, y, weight = load_vw(path, n_bits=n_bits, interactions=["ab"])
    mask = (1 << n_bits) - 1
    ax, ay, bz, cw = hashed("a", "x"), hashed("a", "y"), hashed("b", "z"), hashed("c", "w")
    rows = [[(ax, 2.0), (ay, 3.0), (bz, 5.0), (((ax * 16777619) & 0xFFFFFFFF) ^ bz, 10.0),
             (((ay * 16777619) & 0xFFFFFFFF) ^ bz, 15.0)], [(bz, 1.0), (cw, 1.0)]]
    expected = np.zeros((2, 1 << n_bits))
    for r, row in enumerate(rows):
        for column, value in row:
            expected[r, column & mask] += value
    assert np.array_equal(X.toarray(), expected)
    assert y.tolist() == [1.0, -1.0] and weight.tolist() == [1.0, 0.5]


@pytest.fixture(scope="module", params=["svm", "vw"])
def stream(request, tmp_path_factory):
    """3,000 rows as LIBSVM (numbers of 16-17 digits: the parser leaves them to the fix-up conversion) or as
    VW text (named features in two namespaces, every third row with an importance weight): (the file, the rows as
    the file holds them, the labels, the importance weights or None). The LIBSVM rows are read back by scikit-learn's
    reader; VW's 40 names are 40 columns (they fall in distinct columns of the 2**18, else no score would match)."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(3000, 40)) * (rng.random((3000, 40)) < 0.2)
    y = np.where(X @ rng.normal(size=40) > 0, 1, -1)
    path = tmp_path_factory.mktemp("compiled") / f"train.{request.param}"
    if request.param == "svm":
        dump_svmlight_file(X, y, str(path), zero_based=False)
        return str(path), load_svmlight_file(str(path), n_features=40)[0].toarray(), y, None
    lines = []
    for i, (row, label) in enumerate(zip(X, y)):
        weight = f" {1 + i % 5 / 2}" if i % 3 == 0 else ""
        left = " ".join(f"a{j}:{float(row[j])!r}" for j in np.flatnonzero(row[:20]))
        right = " ".join(f"b{j}:{row[j]:.6g}" for j in 20 + np.flatnonzero(row[20:]))
        lines.append(f"{label}{weight} |left {left} |right {right}\n")
    path.write_text("".join(lines))
    written = np.hstack([X[:, :20], np.vectorize(lambda v: float(f"{v:.6g}"))(X[:, 20:])])
    return str(path), written, y, np.where(np.arange(3000) % 3 == 0, 1 + np.arange(3000) % 5 / 2, 1.0)


def _olearn(*args):
    """The modules loaded by ``olearn ARGS`` in a fresh process, where the compiled kernels may be used."""
    return loaded_by(*args, env={**os.environ, "OLEARN_KERNELS": ""})[1]


@built
def test_runs_on_the_compiled_kernels_start_no_numba_and_answer_as_the_paper(stream, tmp_path):
    """A run (the raw scores of every round, and the model) and a prediction with the model: PA-I's scores (the
    NumPy transcription of the paper; an importance weight s makes C sC) and the labels of its last weights."""
    path, X, y, weights = stream
    loaded = _olearn("run", "--algo", "pa1", "-C", "0.1", "-p", tmp_path / "scores.txt", "--raw", "--quiet",
                     "--save", tmp_path / "model.npz", path)
    loaded |= _olearn("predict", "-m", tmp_path / "model.npz", "-o", tmp_path / "labels.txt", path)
    assert "numba" not in loaded and _compiled.EXTENSION.__name__ in loaded
    trace = binary_oracle.passive_aggressive(X, y, variant="pa1", C=0.1, sample_weight=weights)
    scores = np.array((tmp_path / "scores.txt").read_text().split(), dtype=float)
    labels = np.array((tmp_path / "labels.txt").read_text().split(), dtype=float)
    _close(scores, trace.scores)
    assert np.array_equal(labels, np.where(X @ trace.coef > 0, 1, -1))
    assert np.unique(labels).size == 2 and np.unique(scores).size > 1000


@built
def test_the_losses_of_a_frozen_model_start_no_numba(tmp_path):
    """``olearn run -t -i MODEL`` of a binary linear model reports its losses through the compiled kernels."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 5))
    data = tmp_path / "train.svm"
    dump_svmlight_file(X, np.where(X[:, 0] > 0, 1, -1), str(data), zero_based=False)
    subprocess.run([sys.executable, "-m", "olearn", "run", "--algo", "ogd", "--set", "loss=logistic", "--quiet",
                    "-f", str(tmp_path / "model.npz"), str(data)], check=True, timeout=600)
    loaded = _olearn("run", "-t", "-i", tmp_path / "model.npz", data)
    assert "numba" not in loaded and _compiled.EXTENSION.__name__ in loaded


@built
def test_a_run_crossing_vw_namespaces_starts_no_numba(tmp_path):
    """``olearn run -q ab --ngram a2``: the parse keeping the namespaces, the crossing and the sort of the crossed
    rows are all compiled at install (a user's first such run compiled them for tens of seconds)."""
    path = tmp_path / "train.vw"
    path.write_text("".join(f"{1 - 2 * (i % 2)} |a x:{i % 5} u{i % 3} |b z:{i % 7 - 3} t\n" for i in range(40)))
    loaded = _olearn("run", "--algo", "pa1", "-q", "ab", "--ngram", "a2", "--quiet", path)
    assert "numba" not in loaded and _compiled.EXTENSION.__name__ in loaded


def _scores_of_passes(learner, X, y, passes, every=10):
    """What ``olearn run --passes PASSES --raw -p`` writes of ``learner`` (every row of every pass, in file order),
    and its final (coef, intercept), from the learner's NumPy transcription: a learned row is scored by the weights of
    its moment; with several passes the rows at positions ``every``, 2 ``every``, ... are held out, never learned and
    scored by the weights of their moment, averaged when the learner averages (docs/cli.md, "Held-out examples")."""
    held = np.arange(1, len(y) + 1) % every == 0 if passes > 1 else np.zeros(len(y), dtype=bool)
    rows = np.tile(np.arange(len(y)), passes)
    learned = ~held[rows]
    iterates, _ = _iterates(learner, X[rows[learned]], y[rows[learned]])
    means = np.vstack([iterates[:1], np.cumsum(iterates[1:], axis=0) / np.arange(1, len(iterates))[:, None]])
    moment = np.cumsum(learned) - learned  # the rounds learned before each row
    weights = np.where((held[rows] & bool(learner.average))[:, None], means[moment], iterates[moment])
    final = means[-1] if learner.average else iterates[-1]
    return np.einsum("ij,ij->i", weights[:, :-1], X[rows]) + weights[:, -1], final


@built
@pytest.mark.parametrize("algo, make", [
    (["arow"], lambda: olearn.AROW(covariance="diag")),
    (["pa1", "--set", "average=true"], lambda: olearn.PAClassifier(variant="pa1", average=True)),
], ids=["arow", "pa1-averaged"])
def test_a_run_of_strided_weights_starts_no_numba_and_answers_as_the_paper(tmp_path, algo, make):
    """``olearn run -a arow`` or an averaging linear learner (one pass, then two with a hold-out) and ``olearn
    predict`` with its model: their passes and scores are compiled at install (a user's first such run compiled
    them for tens of seconds), and give the scores and labels of the NumPy transcription of the paper."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(100, 10)) * (rng.random((100, 10)) < 0.5)
    y = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
    assert X.any(axis=1).all()  # no row scores exactly 0, whose label would be a convention
    data = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(data), zero_based=False)
    loaded = _olearn("run", "-a", *algo, "-p", tmp_path / "run.txt", "--raw", "--quiet", data)
    loaded |= _olearn("run", "-a", *algo, "--passes", "2", "-p", tmp_path / "passes.txt", "--raw", "--quiet",
                      "--save", tmp_path / "model.npz", data)
    loaded |= _olearn("predict", "-m", tmp_path / "model.npz", "-o", tmp_path / "labels.txt", data)
    assert "numba" not in loaded and _compiled.EXTENSION.__name__ in loaded
    learner = make()
    for passes, name in ((1, "run.txt"), (2, "passes.txt")):
        scores, final = _scores_of_passes(learner, X, y, passes)
        _close(np.array((tmp_path / name).read_text().split(), dtype=float), scores)
    labels = np.array((tmp_path / "labels.txt").read_text().split(), dtype=float)
    assert np.array_equal(labels, np.where(X @ final[:-1] + final[-1] > 0, 1, -1))


# Whether a call releases the GIL, without timing it: with a switch interval of 1000 s, the main thread gives the GIL
# up only when it blocks or a call releases it, so a second thread that waits for the GIL runs during a call only if
# that call releases it. The script prints what the second thread saw: True (it ran during a call) or False.
_RELEASES_GIL = textwrap.dedent("""
    import sys, threading

    def releases_gil(call, repeats=50):
        state = {"in_call": False, "seen": None}
        go = threading.Event()

        def watch():
            go.wait()
            state["seen"] = state["in_call"]

        sys.setswitchinterval(1000)
        watcher = threading.Thread(target=watch)
        watcher.start()  # it runs until it waits for go, holding the GIL
        go.set()  # from now on it waits for the GIL
        for _ in range(repeats):
            state["in_call"] = True
            call()
            state["in_call"] = False
            if state["seen"] is not None:
                break
        watcher.join()
        return state["seen"]
""")

_PARSE_RELEASES_GIL = _RELEASES_GIL + textwrap.dedent("""
    import numpy as np
    from olearn._kernels import _compiled
    from olearn._kernels import _parse_codes as K

    text = b"1 1:0.5 2:0.25 3:0.125\\n" * 400_000
    buf = np.frombuffer(text, np.uint8)
    n = 400_000

    # allocated once: numpy releases the GIL to allocate a large array
    outputs = (np.zeros(n + 1, np.int32), np.empty(3 * n, np.int32), np.empty(3 * n), np.empty(n), None, None)
    counts, unsorted, fixups = np.zeros(K.N_COUNTS, np.int64), np.empty((16, 2), np.int64), np.empty((256, 4), np.int64)

    def parse():
        counts[:] = 0
        parse_libsvm(buf, 0, len(text), 1, 10, n, *outputs, counts, unsorted, fixups)
        assert counts[K.C_STATUS] == K.OK and counts[K.C_ROWS] == n

    parse_libsvm = _compiled.EXTENSION.parse_libsvm if sys.argv[1] == "compiled" else _compiled.parse_libsvm
    parse()  # numba's kernel compiles (or loads) first
    print(releases_gil(parse))
""")


@pytest.mark.parametrize("kernels", [pytest.param("compiled", marks=built), "jit"])
def test_the_parse_kernel_releases_the_gil(kernels):
    """Blocks of a file are parsed on several cores only if the kernel lets other threads run meanwhile."""
    env = {**os.environ, "OLEARN_KERNELS": "" if kernels == "compiled" else "jit"}
    proc = subprocess.run([sys.executable, "-c", _PARSE_RELEASES_GIL, kernels], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True"]


# builds a module of one function with the build's compiler, then one with the GIL release switched off, which the
# build must refuse
_BUILD_TINY = textwrap.dedent("""
    import contextlib, sys
    from olearn._kernels import _build

    def spin(n):
        if n < 0:
            raise ValueError("n must not be negative")
        total = 0.0
        for i in range(n):
            total += (i % 7) ** 0.5
        return total

    def build(name):
        cc = _build.ReleasingCC(name)
        cc.output_dir = sys.argv[1]
        cc.export("spin", "f8(i8)")(spin)
        cc.compile()

    build("tiny_releasing")
    _build.releasing_gil = lambda compiled: contextlib.nullcontext()
    try:
        build("tiny_holding")
    except RuntimeError as err:
        print(err)
""")

_TINY_RELEASES_GIL = _RELEASES_GIL + textwrap.dedent("""
    import tiny_releasing

    try:
        tiny_releasing.spin(-1)
    except ValueError as err:
        print(repr(err))
    print(tiny_releasing.spin(7) == sum(i ** 0.5 for i in range(7)))
    print(releases_gil(lambda: tiny_releasing.spin(20_000_000)))
""")


def test_the_build_compiles_functions_that_release_the_gil_and_raise_their_errors(tmp_path):
    proc = subprocess.run([sys.executable, "-c", _BUILD_TINY, str(tmp_path)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "numba.pycc compiled spin without releasing the GIL"
    assert [p.name.split(".")[0] for p in tmp_path.iterdir()] == ["tiny_releasing"]
    proc = subprocess.run([sys.executable, "-c", _TINY_RELEASES_GIL], capture_output=True, text=True, cwd=tmp_path,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:3] == ["ValueError('n must not be negative')", "True", "True"]


def _fnv1a_halved(data):
    """The 64-bit FNV-1a hash of the bytes ``data``, halved to a non-negative int (a transcription of its
    definition: offset basis 0xcbf29ce484222325, prime 0x100000001b3)."""
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) % 2**64
    return h >> 1


@built
def test_the_compiled_reading_of_a_batch_body_answers_as_read_by_hand():
    """The extension's scan, table of names and rows of a small body, against the offsets, hashes, numbers and
    rows read off the body by hand (no numba: its kernels' compilation cost the suite 19 s)."""
    text = b'{"x": [{"b": 1.5, "a": -0.0}, {}, {"c": 2e3, "a": 0.1234567890123456, "b": 1e23}], "y": [1, 2, 3]}'
    body = np.frombuffer(text, dtype=np.uint8)
    status, x_end, spans, counts, keys, hashes, values, fixups = _compiled.EXTENSION.scan_batch(body, 10, 10)
    assert status == 0 and x_end == text.index(b"]") + 1
    opens = [i for i, byte in enumerate(text) if byte == ord("{")][1:]  # the examples' objects
    closes = [i + 1 for i, byte in enumerate(text) if byte == ord("}")][:3]
    assert spans.tolist() == [[s, e] for s, e in zip(opens, closes)] and counts.tolist() == [2, 0, 3]
    quoted = [(text.index(b'"' + name + b'"', start) + 1) for name, start in
              [(b"b", opens[0]), (b"a", opens[0]), (b"c", opens[2]), (b"a", opens[2]), (b"b", opens[2])]]
    assert keys.tolist() == [[q, q + 1] for q in quoted]
    assert hashes.tolist() == [_fnv1a_halved(text[q:q + 1]) for q in quoted]
    assert values[:4].tobytes() == np.array([1.5, -0.0, 2e3, 0.1234567890123456]).tobytes()
    start = text.index(b"1e23")  # a halfway point between two doubles: left to float()
    assert fixups.tolist() == [[start, start + 4, 4]]
    values[4] = float(text[start:start + 4])

    names = np.frombuffer(b"abc", dtype=np.uint8).copy()
    bounds = np.array([[0, 1], [1, 2], [2, 3]], dtype=np.int64)
    slots, table_hashes = np.full(8, -1, dtype=np.int64), np.empty(3, dtype=np.int64)
    _compiled.EXTENSION.insert_names(slots, names, bounds, table_hashes, 0, 3)
    assert table_hashes.tolist() == [_fnv1a_halved(name) for name in (b"a", b"b", b"c")]
    assert sorted(slots[slots >= 0].tolist()) == [0, 1, 2]
    columns = np.array([4, 0, 2], dtype=np.int64)  # a, b, c
    status, indptr, indices, data, width = _compiled.EXTENSION.packed_rows(
        body, counts, keys, hashes, values, slots, names, bounds, table_hashes, columns, False)
    assert status == 0 and width == 5 and indptr.tolist() == [0, 2, 2, 5]
    assert indices.tolist() == [0, 4, 0, 2, 4]  # each row's columns in order: b a | | b c a
    assert data.tobytes() == np.array([1.5, -0.0, 1e23, 2e3, 0.1234567890123456]).tobytes()
    # "c" unknown to a table of a and b: refused, or left out of its row for a prediction
    slots2, hashes2 = np.full(8, -1, dtype=np.int64), np.empty(2, dtype=np.int64)
    _compiled.EXTENSION.insert_names(slots2, names, bounds[:2], hashes2, 0, 2)
    assert _compiled.EXTENSION.packed_rows(body, counts, keys, hashes, values, slots2, names, bounds[:2], hashes2,
                                           columns[:2], False)[0] == 1
    status, indptr, indices, data, width = _compiled.EXTENSION.packed_rows(
        body, counts, keys, hashes, values, slots2, names, bounds[:2], hashes2, columns[:2], True)
    assert status == 0 and indptr.tolist() == [0, 2, 2, 4] and indices.tolist() == [0, 4, 0, 4]
    assert data.tobytes() == np.array([1.5, -0.0, 1e23, 0.1234567890123456]).tobytes()
