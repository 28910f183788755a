"""The paper reproductions that ``olearn reproduce`` runs, by name."""

import importlib
import inspect
from dataclasses import dataclass


@dataclass(frozen=True)
class Reproduction:
    """One reproduction: where its ``run_*(out_dir, seed=0, quick=False)`` lives and what it shows."""

    name: str
    module: str
    function: str
    summary: str

    @property
    def runner(self):
        """The ``run_*`` function itself."""
        return getattr(importlib.import_module(self.module, __package__), self.function)

    @property
    def runs_in_parallel(self):
        """True when its repetitions run on joblib workers (it takes ``n_jobs``)."""
        return "n_jobs" in inspect.signature(self.runner).parameters

    @property
    def averages_repetitions(self):
        """True when its figure averages over repetitions whose number it takes (``n_repetitions``)."""
        return "n_repetitions" in inspect.signature(self.runner).parameters

    def run(self, out_dir, seed=0, quick=False, **options):
        """Run it; returns its dict of results (``figure``, ``rows``, CSV paths, ...).

        ``options`` go to the runner as they are (``n_jobs=-1``, say, for one
        that :attr:`runs_in_parallel`).
        """
        return self.runner(out_dir, seed=seed, quick=quick, **options)


REPRODUCTIONS = {
    r.name: r
    for r in (
        Reproduction(
            "ucl-experts",
            "._ucl_experts",
            "run_ucl_experts",
            "Halving, Weighted Majority (beta = 1/e), Weighted Average and Hedge: regret under its bound (UCL slides)",
        ),
        Reproduction(
            "zinkevich-ogd",
            "._zinkevich",
            "run_zinkevich_ogd",
            "Projected OGD: regret for three schedules, with drift, with delays 0/1/10/100; OGD on the simplex vs Hedge",
        ),
        Reproduction(
            "crammer2006-fig3",
            "._crammer2006",
            "run_crammer2006_fig3",
            "PA, PA-I, PA-II (C = 0.001) under instance and label noise vs the best fixed classifier (PA paper, Fig. 3)",
        ),
        Reproduction(
            "crammer2006-fig4",
            "._crammer2006",
            "run_crammer2006_fig4",
            "Error and hinge loss of PA-I and PA-II against log C for label noise 0, 0.1, 0.2 (PA paper, Fig. 4)",
        ),
        Reproduction(
            "crammer2006-fig5",
            "._crammer2006",
            "run_crammer2006_fig5",
            "Average error against the round, label noise 0.02, C = 100 vs C = 0.001 (PA paper, Fig. 5)",
        ),
        Reproduction(
            "orabona2010-fig3",
            "._orabona2010",
            "run_orabona2010_fig3",
            "PA-I, AROW, AdaGrad, NAROW on easy/hard/adversarial orderings, 0 and 10% label noise (NAROW paper, Fig. 3)",
        ),
        Reproduction(
            "crammer2006-fig6",
            "._crammer2006_fig6",
            "run_crammer2006_fig6",
            "Multiclass PA-I (C = 100), uniform Perceptron, MIRA (beta = 0.01) with polynomial kernels on digits (PA paper, Fig. 6)",
        ),
    )
}


def get_reproduction(name):
    """The reproduction called ``name``; ValueError listing the known ones otherwise."""
    try:
        return REPRODUCTIONS[name]
    except KeyError:
        known = ", ".join(sorted(REPRODUCTIONS))
        raise ValueError(f"no reproduction called {name!r}; known: {known}") from None
