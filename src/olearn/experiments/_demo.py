"""The demo: the Perceptron, the Passive-Aggressive family and online gradient descent side by side.

Two built-in streams, nothing downloaded:

* the synthetic stream of Crammer et al., *Online Passive-Aggressive
  Algorithms* (JMLR 2006), Sec. 10 (:func:`olearn.data.make_pa_paper_stream`),
  4,000 examples in R^2 with 10% of the labels flipped, where the paper
  shows PA-I and PA-II with a small C beating PA and the Perceptron under
  label noise;
* scikit-learn's bundled Wisconsin breast-cancer data (569 examples, 30
  features), standardised and shuffled with the seed, labels kept as the
  class names "malignant" / "benign".

Every learner sees the same stream in the same order (progressive
validation: predict, then learn). The paper's two values of C, 1 and 0.001,
are both run for PA-I and PA-II.
"""

import csv
import os
import time
from dataclasses import dataclass, field

import numpy as np

DEMO_N_SAMPLES = 4000
DEMO_LABEL_NOISE = 0.1
SYNTHETIC = "PA-paper synthetic stream"
BREAST_CANCER = "breast cancer (Wisconsin)"
CSV_COLUMNS = ("dataset", "algorithm", "examples", "mistakes", "mistake_rate", "average_loss", "updates", "seconds")


def demo_learners():
    """Fresh learners of the demo, by display name, in display order."""
    from .. import OGDClassifier, OnlineSVM, PAClassifier, Perceptron

    return {
        "Perceptron": Perceptron(),
        "PA": PAClassifier(variant="pa"),
        "PA-I (C=1)": PAClassifier(variant="pa1", C=1.0),
        "PA-I (C=0.001)": PAClassifier(variant="pa1", C=0.001),
        "PA-II (C=1)": PAClassifier(variant="pa2", C=1.0),
        "PA-II (C=0.001)": PAClassifier(variant="pa2", C=0.001),
        "OGD (hinge, eta/sqrt t)": OGDClassifier(loss="hinge", eta=1.0, schedule="sqrt"),
        "Online SVM (R=10)": OnlineSVM(radius=10.0),
    }


# One colour per family, a dashed line for the paper's small C: the eye groups PA-I with PA-I.
DEMO_STYLES = {
    "Perceptron": {"color": "0.3"},
    "PA": {"color": "tab:blue"},
    "PA-I (C=1)": {"color": "tab:orange"},
    "PA-I (C=0.001)": {"color": "tab:orange", "linestyle": "--"},
    "PA-II (C=1)": {"color": "tab:green"},
    "PA-II (C=0.001)": {"color": "tab:green", "linestyle": "--"},
    "OGD (hinge, eta/sqrt t)": {"color": "tab:red"},
    "Online SVM (R=10)": {"color": "tab:purple", "linestyle": "-."},
}


def demo_datasets(seed=0):
    """The demo's streams: name -> (X, y, one-line description)."""
    from sklearn.datasets import load_breast_cancer

    from ..data import make_pa_paper_stream

    X_syn, y_syn = make_pa_paper_stream(
        n_samples=DEMO_N_SAMPLES, label_noise=DEMO_LABEL_NOISE, random_state=seed
    )
    cancer = load_breast_cancer()
    order = np.random.default_rng(seed).permutation(cancer.target.size)
    X = cancer.data[order]
    X_bc = (X - X.mean(axis=0)) / X.std(axis=0)
    y_bc = cancer.target_names[cancer.target[order]]
    return {
        SYNTHETIC: (
            X_syn,
            y_syn,
            f"Crammer et al. 2006, Sec. 10: {DEMO_N_SAMPLES:,} examples in R^2, "
            f"label noise {DEMO_LABEL_NOISE:g}, seed {seed}",
        ),
        BREAST_CANCER: (
            X_bc,
            y_bc,
            f"scikit-learn's bundled data: {y_bc.size} examples, {X_bc.shape[1]} standardised features, "
            f"shuffled with seed {seed}",
        ),
    }


@dataclass
class DemoResult:
    """What :func:`run_demo` measured and wrote.

    Attributes
    ----------
    results : dict
        Dataset name -> {learner name -> :class:`olearn.RunResult`}.
    seconds : dict
        Dataset name -> {learner name -> wall time of the run in seconds}.
    descriptions : dict
        Dataset name -> one-line description of the stream.
    figure_path, csv_path : str
        The PNG (cumulative mistakes, one panel per dataset) and the CSV table.
    """

    results: dict
    seconds: dict
    descriptions: dict
    figure_path: str
    csv_path: str
    learners: dict = field(default_factory=dict)

    def rows(self):
        """One dict per (dataset, learner), with the columns of the CSV."""
        out = []
        for dataset, results in self.results.items():
            for name, res in results.items():
                out.append({
                    "dataset": dataset,
                    "algorithm": name,
                    "examples": res.n_rounds,
                    "mistakes": res.n_mistakes,
                    "mistake_rate": res.mistake_rate,
                    "average_loss": res.average_loss,
                    "updates": res.n_updates,
                    "seconds": self.seconds[dataset][name],
                })
        return out


def run_demo(out_dir="olearn-demo", seed=0):
    """Run every demo learner on every demo stream; write a PNG and a CSV into ``out_dir``.

    Parameters
    ----------
    out_dir : str or os.PathLike, default "olearn-demo"
        Created if missing. Receives ``cumulative_mistakes.png`` and ``results.csv``.
    seed : int, default 0
        Seeds the synthetic stream and the shuffle of the breast-cancer data.

    Returns
    -------
    DemoResult
    """
    from .. import run
    from ..plots import plot_cumulative_mistakes_panels

    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    results, seconds, descriptions, learners, shapes = {}, {}, {}, {}, {}
    for dataset, (X, y, description) in demo_datasets(seed).items():
        descriptions[dataset] = description
        shapes[dataset] = X.shape
        results[dataset], seconds[dataset], learners[dataset] = {}, {}, {}
        learners_here = demo_learners()
        # Load the compiled kernels before the clock starts, so the times compare learning only.
        for est in demo_learners().values():
            run(est, X[:2], y[:2], record=True)
        for name, est in learners_here.items():
            start = time.perf_counter()
            results[dataset][name] = run(est, X, y, record=True)
            seconds[dataset][name] = time.perf_counter() - start
            learners[dataset][name] = est

    figure_path = os.path.join(out_dir, "cumulative_mistakes.png")
    panels = {
        f"{SYNTHETIC}\n{shapes[SYNTHETIC][0]:,} examples in R^2, label noise {DEMO_LABEL_NOISE:g}": results[SYNTHETIC],
        f"{BREAST_CANCER}\n{shapes[BREAST_CANCER][0]} examples, {shapes[BREAST_CANCER][1]} features": results[BREAST_CANCER],
    }
    plot_cumulative_mistakes_panels(
        panels,
        figure_path,
        title=f"Cumulative mistakes under progressive validation (seed {seed}; lower is better)",
        styles=DEMO_STYLES,
    )
    demo = DemoResult(results, seconds, descriptions, figure_path, os.path.join(out_dir, "results.csv"), learners)
    with open(demo.csv_path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(demo.rows())
    return demo
