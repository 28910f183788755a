"""At its exit a command's process freezes what is left (``gc.freeze``) instead of collecting it once more, and
what the command wrote is whole: the predictions, the saved model, the summary."""

import subprocess
import sys
import textwrap

import numpy as np

import olearn

# runs ``olearn ARGS...``; a handler registered before the command's own runs after it (atexit is last in, first
# out) and tells how many objects were frozen by then
SCRIPT = textwrap.dedent("""
    import atexit, gc, sys
    atexit.register(lambda: sys.stderr.write(f"frozen {gc.get_freeze_count()}\\n"))
    from olearn.cli import main
    main(sys.argv[1:])
""")


def test_the_exit_freezes_the_objects_left_and_the_outputs_are_whole(tmp_path):
    rows = [f"{1 if i % 3 else -1} |a x{i % 7}:0.5 y |b z{i % 5}\n" for i in range(300)]
    data = tmp_path / "train.vw"
    data.write_text("".join(rows))
    predictions, model = tmp_path / "p.txt", tmp_path / "model.npz"
    proc = subprocess.run([sys.executable, "-c", SCRIPT, "run", "-a", "pa1", "-b", "10", "-p", predictions,
                           "--save", model, data], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    frozen = [line for line in proc.stderr.splitlines() if line.startswith("frozen ")]
    assert len(frozen) == 1 and int(frozen[0].split()[1]) > 10_000  # the modules' objects, at least
    assert "examples      300" in proc.stdout
    labels = predictions.read_text().split()
    assert len(labels) == 300 and set(labels) <= {"-1", "1"}
    est = olearn.load(model)
    X, _, _ = olearn.data.load_vw(data, n_bits=10)
    assert set(np.unique(est.predict(X))) <= {-1, 1}
