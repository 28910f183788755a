"""What a service's start loads: not the theorems' reports (:mod:`olearn.bounds._report` and the learner families
it covers), scikit-learn, scipy.optimize nor scipy.special, which only ``GET /bound`` needs (the papers' competitors
are fitted there), although the start asks :mod:`olearn.bounds` whether the learner has theorems."""

import subprocess
import sys
import textwrap

from serve_helpers import PATIENCE, require_serve_extra

require_serve_extra()

# a new state learns one update, then a restart recovers it (the log replayed), as `olearn serve` does at its start
_START_AND_RESTART = textwrap.dedent("""
    import asyncio, sys
    import olearn
    from olearn.serve import _service
    from olearn.serve._app import Settings, create_app
    from olearn.serve._auth import Access
    from olearn.serve._feedback import Pending
    from olearn.serve._metrics import Metrics
    from olearn.serve._requests import Limits, read_labelled
    from olearn.serve._store import Store
    from olearn.serve._warmup import warm_up
    from olearn.serve._writer import Writer

    async def start(state):
        store = Store(state)
        model = store.open(olearn.PAClassifier, pending=Pending(), say=lambda text: None)
        warm_up(model.estimator)
        writer = Writer(model, store, Metrics(), 1000, 60.0)
        create_app(model, writer, Metrics(), Settings(Access(None, None, True), 1 << 20, Limits()))
        writer.start()
        await writer.update("learn", read_labelled({"x": {"a": 1.0}, "y": 1}, Limits()), None)
        await writer.stop()
        return model

    asyncio.run(start(sys.argv[1]))
    restarted = asyncio.run(start(sys.argv[1]))
    heavy = ("olearn.bounds._report", "olearn.second_order", "sklearn", "scipy.optimize", "scipy.special")
    print(restarted.seq, restarted.rounds is not None, *[m for m in heavy if m in sys.modules])
""")


def test_a_start_and_a_restart_import_neither_sklearn_nor_scipy_s_optimizers(tmp_path):
    proc = subprocess.run([sys.executable, "-c", _START_AND_RESTART, str(tmp_path / "state")], capture_output=True,
                          text=True, timeout=PATIENCE)
    assert proc.returncode == 0, proc.stderr
    # two updates learned, the bound's rounds kept (the learner's theorems looked up in olearn.bounds), and none of
    # the modules of the reports loaded
    assert proc.stdout.split() == ["2", "True"]
