r"""Averaged weights kept by the lazy trick: a running sum with time-stamped corrections.

scikit-learn's ``average`` (SGD): with averaging from round ``a`` on, the
averaged weights after round T are the mean of the weights left by the
rounds a .. T (each round counts once, whether it moved the weights or not),

    wbar_T = (1 / (T - a + 1)) * sum_{t=a}^{T} w_t.

Keeping that sum directly costs O(d) per round. With w_t = w_T - sum_{s=t+1}^{T} delta_s
(delta_s the update of round s) the sum is

    sum_{t=a}^{T} w_t = (T - a + 1) w_T - U_T,    U_T = sum_{s=a}^{T} (s - a) delta_s,

so a learner keeps, next to w, the correction U, and adds ``(s - a) * delta_s`` to
it on each update: the same O(nnz) entries the update itself touches. Then
``wbar_T = w_T - U_T / (T - a + 1)``; before round a (T < a) the averaged
weights are the current ones, as in scikit-learn.

The int64 ``averaging`` array holds the rounds seen and the round a (0 for no
averaging); a pass reads both and advances the rounds.
"""

from ._codes import A_ROUNDS, A_START
from ._jit import njit


@njit(cache=True, inline="always")
def round_age(averaging, i):
    """``s - a`` for row i of a pass (round s = rounds seen + i + 1): the weight of its update in U; 0 when none."""
    start = averaging[A_START]
    t = averaging[A_ROUNDS] + i + 1
    if start > 0 and t > start:
        return float(t - start)
    return 0.0
