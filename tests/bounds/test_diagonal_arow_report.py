"""Why bound_report has no row for AROW(covariance="diag").

Orabona & Crammer (NIPS 2010), Sec. 4.3 bound the update rounds of their
Fig. 1 algorithm with a diagonal matrix,
M + U <= L + sqrt(||u||^2 + sum_i u_i^2 sum_t x_ti^2 / r) sqrt(r sum_i log(sum_t x_ti^2 / r + 1) + 2U).
olearn's diagonal AROW shares that precision but keeps AROW's mean step, so
the theorem is not about it; the witness below is a separable stream on which
its update count exceeds that formula, written out here in NumPy, for a u
along the separating direction.
"""

import numpy as np
import pytest

from olearn import AROW, run
from olearn.bounds import bound_report


def test_the_sec_4_3_formula_fails_on_a_diagonal_arow_run_so_the_report_refuses_it():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4)) * rng.uniform(0.2, 3, size=4)
    w = rng.normal(size=4)
    y = np.where(X @ w > 0, 1.0, -1.0)
    r = 10.0
    res = run(AROW(r=r, covariance="diag"), X, y)
    updated = res.taus != 0
    U = int(np.sum(updated & (np.diff(res.cumulative_mistakes, prepend=0) == 0)))
    squares = np.sum(X[updated] ** 2, axis=0)
    u = 0.9 * w
    L = np.maximum(0.0, 1.0 - y * (X @ u))[updated].sum()
    formula = L + np.sqrt((u @ u + np.sum(u**2 * squares) / r) * (r * np.sum(np.log(squares / r + 1.0)) + 2 * U))
    assert formula < updated.sum()
    with pytest.raises(ValueError, match="Fig. 1 algorithm, not this learner's AROW mean step"):
        bound_report(AROW(r=r, covariance="diag"), X, y, res)
