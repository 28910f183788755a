"""The paper reproductions that ``olearn reproduce`` runs, by name."""

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Reproduction:
    """One reproduction: where its ``run_*(out_dir, seed=0, quick=False)`` lives and what it shows."""

    name: str
    module: str
    function: str
    summary: str

    def run(self, out_dir, seed=0, quick=False):
        """Run it; returns its dict of results (``figure``, ``rows``, CSV paths, ...)."""
        runner = getattr(importlib.import_module(self.module, __package__), self.function)
        return runner(out_dir, seed=seed, quick=quick)


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
    )
}


def get_reproduction(name):
    """The reproduction called ``name``; ValueError listing the known ones otherwise."""
    try:
        return REPRODUCTIONS[name]
    except KeyError:
        known = ", ".join(sorted(REPRODUCTIONS))
        raise ValueError(f"no reproduction called {name!r}; known: {known}") from None
