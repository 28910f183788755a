"""The command line's start: ``import olearn`` loads nothing heavy, and Ctrl-C while the commands load exits 130.

Each interrupt is sent by the process to itself when the import system is
first asked for a given module, so the test knows the signal came during the
imports that ``olearn run`` makes before it reads anything.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

import interruptible
import olearn
from fresh_cli import loaded_by
from olearn._kernels import _compiled

# what loads the kernels of a binary run: the extension compiled at install, or else numba
KERNEL_LOADER = "numba" if _compiled.EXTENSION is None else _compiled.EXTENSION.__name__

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

# what the console script does, with SIGINT sent the first time the import system looks for TARGET
SCRIPT = textwrap.dedent("""
    import os, signal, sys

    TARGET = sys.argv[1]

    class InterruptOnImport:
        def find_spec(self, name, path=None, target=None):
            if name == TARGET:
                sys.meta_path.remove(self)
                sys.stderr.write("signal sent\\n")
                os.kill(os.getpid(), signal.SIGINT)
            return None

    sys.meta_path.insert(0, InterruptOnImport())
    from olearn.cli import main
    sys.exit(main(sys.argv[2:]))
""")


def _fresh(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()


def test_import_olearn_loads_no_numerical_library_and_names_still_resolve():
    heavy = ("numpy", "scipy", "numba", "sklearn", "click")
    loaded = _fresh(f"import sys, olearn; print(*[m for m in {heavy!r} if m in sys.modules])")
    assert loaded == []
    # each public name resolves, in a fresh interpreter, to the object its home module defines
    names = _fresh("import olearn; print(*[getattr(olearn, n).__module__.split('.')[1] "
                   "for n in olearn.__all__ if not isinstance(getattr(olearn, n), type(olearn))])")
    assert len(names) == len([n for n in olearn.__all__ if n not in olearn._SUBPACKAGES])
    assert set(dir(olearn)) >= set(olearn.__all__)
    with pytest.raises(AttributeError, match="has no attribute 'PAClassifer'"):
        olearn.PAClassifer  # noqa: B018  (a misspelling)


@pytest.fixture(scope="module")
def train(tmp_path_factory):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 6))
    path = tmp_path_factory.mktemp("startup") / "train.svm"
    dump_svmlight_file(X, np.where(X[:, 0] > 0, 1, -1), str(path), zero_based=False)
    return str(path)


@pytest.mark.parametrize("target", ["click", "numpy", KERNEL_LOADER, "olearn.data", "olearn.linear"])
def test_ctrl_c_while_the_command_loads_exits_130_without_a_traceback(train, target):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = interruptible.run([sys.executable, "-c", SCRIPT, target, "run", "--algo", "pa1", train],
                             capture_output=True, text=True, env=env, timeout=300)
    assert "signal sent" in proc.stderr, f"{target} was never imported: the test did not interrupt anything"
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "olearn: interrupted"
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_without_an_interrupt_the_same_script_runs_the_command(train):
    proc = subprocess.run([sys.executable, "-c", SCRIPT, "no.such.module", "run", "--algo", "pa1", train],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "signal sent" not in proc.stderr and "200" in proc.stdout


# what a binary ``olearn run`` on a LIBSVM file has no use for: other commands, learner families, readers and
# libraries (each was imported at start-up once, and together they cost about a third of the run); the sequence
# path, the cost reader, the cache and CoNLL readers and the Mercer engine were imported on every run until the
# questions that needed them (is it a CoNLL file? which kernel codes?) were answered without them; scipy.sparse
# (0.2 s) until the chunks of a LIBSVM file came as olearn._sparse.CSRRows; numpy.ma (a tenth of the start) until
# the classes of a chunk were told apart without np.unique, which asks numpy.ma whether its array is masked; the
# model file's reader and writer (zipfile and json, 8 ms of a 0.2 s run) until they were imported by saving or loading
NOT_NEEDED_BY_A_BINARY_RUN = (
    "sklearn", "scipy.sparse", "scipy.stats", "scipy.optimize", "matplotlib", "dask", "urllib.request", "numpy.ma",
    "zipfile", "json", "olearn._model_archive",
    "olearn.cli._compare", "olearn.cli._serve", "olearn.cli._demo", "olearn.cli._reproduce", "olearn.cli._cached",
    "olearn.cli._predict", "olearn.cli._as_trained", "olearn.cli._sequences", "olearn.cli._sequence_report",
    "olearn.cli._costs",
    "olearn.sequence", "olearn.multiclass", "olearn.multilabel", "olearn.uniclass", "olearn.second_order",
    "olearn.quasi_additive", "olearn.dual", "olearn.compose", "olearn.preprocessing", "olearn.bounds",
    "olearn.distributed", "olearn.serve", "olearn.plots", "olearn.experiments",
    "olearn.data._digits", "olearn.data._download", "olearn.data._csv", "olearn.data._vw", "olearn.data._synthetic",
    "olearn.data._cache", "olearn.data._conll",
    "olearn._kernels._mercer", "olearn._kernels._mercer_binary", "olearn._kernels._mercer_multiclass",
    "olearn.linear._perceptron", "olearn.linear._regressor",
)

def test_a_binary_run_imports_only_what_it_needs(train):
    out, loaded = loaded_by("run", "--algo", "pa1", train)
    assert "200" in out  # the command ran, with the modules it needs
    assert {"olearn.linear._pa", "olearn.data._libsvm", "olearn.evaluate", KERNEL_LOADER} <= loaded
    assert sorted(loaded.intersection(NOT_NEEDED_BY_A_BINARY_RUN)) == []
    if _compiled.EXTENSION is not None:  # its three kernels compiled at install: numba is never started
        assert sorted(m for m in loaded if m == "numba" or m.startswith(("numba.", "llvmlite"))) == []


def test_a_second_order_run_imports_its_own_learner_only(train):
    out, loaded = loaded_by("run", "--algo", "arow", train)
    assert "200" in out
    family = {f"olearn.second_order._{name}" for name in ("arow", "adagrad", "cw", "narow", "sop")}
    assert sorted(loaded & family) == ["olearn.second_order._arow"]


def test_predict_with_a_binary_model_does_not_import_the_sequence_family(train, tmp_path):
    model = str(tmp_path / "model.npz")
    loaded_by("run", "--algo", "pa1", "--save", model, train)
    out, loaded = loaded_by("predict", "-m", model, train)
    assert len(out.split()) == 200 and "olearn.cli._predict" in loaded  # one label per example
    assert sorted(m for m in loaded if m == "olearn.sequence" or m.startswith("olearn.sequence.")) == []
    assert "scipy.sparse" not in loaded  # the file's chunks are CSRRows, as for olearn run


def test_all_estimators_lists_every_estimator_in_a_fresh_interpreter():
    # the names load on first use, so the list cannot come from what happens to be loaded already
    fresh = _fresh("import olearn; print(*[name for name, _ in olearn.all_estimators()])")
    expected = sorted(name for name in olearn.__all__ if isinstance(getattr(olearn, name), type)
                      and hasattr(getattr(olearn, name), "_task"))
    assert fresh == expected and len(fresh) == 21
