"""``olearn predict`` with a saved Pipeline reads the file's rows as the command line parses them (CSRRows): the
predictions are those of the pipeline in Python on the same rows (before: a TypeError traceback on a LIBSVM file)."""

import subprocess
import sys

import numpy as np
from sklearn.datasets import dump_svmlight_file

import olearn
from olearn.compose import Pipeline


def test_a_pipeline_predicts_a_libsvm_file_as_in_python(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 5))
    y = np.where(X[:, 0] - X[:, 2] > 0, 1, -1)
    path, model = tmp_path / "d.svm", tmp_path / "p.npz"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    pipeline = Pipeline(olearn.PAClassifier(variant="pa1"))
    pipeline.fit(X[:40], y[:40])
    pipeline.save(model)
    proc = subprocess.run([sys.executable, "-m", "olearn", "predict", "-m", str(model), str(path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert [int(v) for v in proc.stdout.split()] == pipeline.predict(X).tolist()
