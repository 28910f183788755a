r"""Fig. 3 of Orabona & Crammer (NIPS 2010) under both readings of the text's :math:`\mathcal N(0, 8.5)`.

The text draws the 18 noise coordinates from "N(0, 8.5)", which names either
the standard deviation or the variance. :func:`compare_readings` runs the
reproduction (:func:`olearn.experiments._orabona2010.run_orabona2010_fig3`)
once with each, and sets side by side the verdicts of the text's twelve
checked statements and, panel by panel, the highest mean curve's end against
the top of the figure's y axis (800, 1200, 350, 350 in columns 1 to 4, in both
rows, the tick labels that survive of the figure). :func:`readings_markdown`
writes the two tables that ``docs/reproduction_orabona2010.md`` shows; the
page's tables are this module's output for the full run at seed 0::

    python -m olearn.experiments._orabona2010_readings OUT_DIR
"""

import math
import os
import sys

from ._orabona2010 import NOISE_LEVELS, ORDERINGS, panel_title, run_orabona2010_fig3

READINGS = {"standard deviation 8.5": 8.5, "variance 8.5": math.sqrt(8.5)}
# the last tick label of each column's y axis in the text's figure (both rows)
AXIS_TOPS = {"easy-to-hard": 800, "hard-to-easy": 1200, "x1*y": 350, "x3*y": 350}


def compare_readings(out_dir, seed=0, quick=False, n_jobs=None, progress=True, n_repetitions=None):
    """Run the reproduction with each reading (into ``out_dir/sd`` and ``out_dir/variance``); compare them.

    Returns
    -------
    dict
        ``statements``: one row per checked statement and panel, with
        ``finding``, ``panel`` and, per reading, whether it holds;
        ``axes``: one row per panel with the text's axis top and, per reading,
        the highest mean final count and its learner; ``results``: reading ->
        the reproduction's own results.
    """
    results = {
        reading: run_orabona2010_fig3(os.path.join(out_dir, "sd" if std == 8.5 else "variance"), seed=seed,
                                      quick=quick, n_jobs=n_jobs, progress=progress, noise_std=std,
                                      n_repetitions=n_repetitions)
        for reading, std in READINGS.items()
    }
    first, *_ = results.values()
    statements = [
        {"finding": row["finding"], "panel": row["panel"],
         **{reading: result["findings"][k]["holds"] for reading, result in results.items()}}
        for k, row in enumerate(first["findings"])
    ]
    axes = []
    for noise in NOISE_LEVELS:
        for ordering in ORDERINGS:
            panel = panel_title(noise, ordering)
            row = {"panel": panel, "axis top": AXIS_TOPS[ordering]}
            for reading, result in results.items():
                finals = {name: float(curve[-1]) for name, curve in result["curves"][panel].items()}
                highest = max(finals, key=finals.get)
                row[reading] = (highest, finals[highest])
            axes.append(row)
    return {"statements": statements, "axes": axes, "results": results}


def readings_markdown(comparison):
    """The two Markdown tables of :func:`compare_readings`: the statements' verdicts, then the axis tops."""
    readings = list(READINGS)
    lines = ["| statement | panel | " + " | ".join(readings) + " |", "| --- | --- |" + " --- |" * len(readings)]
    for row in comparison["statements"]:
        lines.append(f"| {row['finding']} | {row['panel']} | "
                     + " | ".join("holds" if row[r] else "fails" for r in readings) + " |")
    lines.append("| **statements that hold** | | "
                 + " | ".join(f"**{sum(row[r] for row in comparison['statements'])} of "
                              f"{len(comparison['statements'])}**" for r in readings) + " |")
    lines += ["", "| panel | the figure's y axis ends at | "
              + " | ".join(f"highest curve's end, {r}" for r in readings) + " |",
              "| --- | ---: |" + " ---: |" * len(readings)]
    for row in comparison["axes"]:
        cells = []
        for r in readings:
            name, value = row[r]
            cells.append(f"{value:.0f} ({name}){' **above**' if value > row['axis top'] else ''}")
        lines.append(f"| {row['panel']} | {row['axis top']} | " + " | ".join(cells) + " |")
    lines.append("| **panels whose highest curve ends above the axis** | | "
                 + " | ".join(f"**{sum(row[r][1] > row['axis top'] for row in comparison['axes'])} of "
                              f"{len(comparison['axes'])}**" for r in readings) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(readings_markdown(compare_readings(sys.argv[1] if len(sys.argv) > 1 else "olearn-orabona2010-readings",
                                             n_jobs=1)), end="")
