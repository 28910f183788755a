"""Kernel learners in dual form, transcribed from the papers in plain NumPy.

Written from the math alone (not from olearn's kernels): dense rows, Python
lists for the support set, one round per loop iteration, the kernel evaluated
pair by pair from its definition.

Sources
-------
* PA, PA-I, PA-II with a kernel: Crammer, Dekel, Keshet, Shalev-Shwartz &
  Singer, "Online Passive-Aggressive Algorithms", JMLR 7 (2006), Sec. 3:
  ``w_t = sum_i alpha_i phi(x_i)``, so ``w_t.phi(x) = sum_i alpha_i K(x_i, x)``
  and ``||phi(x)||^2 = K(x, x)`` in the step sizes of Figure 1; regression
  (Sec. 5) with the epsilon-insensitive loss and ``alpha = sign(y - f(x)) tau``.
* Kernel Perceptron: on a mistake ``y f(x) <= 0``, add x with ``alpha = eta y``.
* Budgets: before adding a vector to a set that already holds ``budget``,
  remove the oldest (Forgetron's removal, Dekel et al. 2008), one drawn
  uniformly (Cavallanti, Cesa-Bianchi & Gentile 2007) or the one with the
  smallest |alpha| (the oldest of ties).
* The draws of "random" come from SplitMix64 (Steele, Lea & Flood, OOPSLA
  2014): state += 0x9E3779B97F4A7C15, then two xor-shift-multiply rounds; the
  top 53 bits of the output, as a fraction of 2^53, times n, rounded down.

With ``fit_intercept=True`` the feature map is augmented with a constant 1,
so every kernel value gains + 1 (and K(x, x) too).
"""

from dataclasses import dataclass, field

import numpy as np

MASK = (1 << 64) - 1


def linear(a, b, **_):
    return float(np.dot(a, b))


def poly(a, b, degree=3, gamma=1.0, coef0=0.0, **_):
    return float((gamma * np.dot(a, b) + coef0) ** degree)


def rbf(a, b, gamma=1.0, **_):
    diff = a - b
    return float(np.exp(-gamma * np.dot(diff, diff)))


KERNELS = {"linear": linear, "poly": poly, "rbf": rbf}


def splitmix64(state):
    """(new state, output) of one SplitMix64 step, in Python integers."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


@dataclass
class DualTrace:
    """The final support set and what happened on each round (before each update)."""

    support: list  # dense rows, oldest first
    alphas: list
    scores: list = field(default_factory=list)
    losses: list = field(default_factory=list)
    taus: list = field(default_factory=list)
    sizes: list = field(default_factory=list)  # support-set size after each round
    removed: list = field(default_factory=list)  # (round, row index in X of the removed vector)

    def decision(self, X, kernel="linear", fit_intercept=False, **params):
        k = KERNELS[kernel]
        bias = 1.0 if fit_intercept else 0.0
        return np.array([
            sum(a * (k(s, x, **params) + bias) for s, a in zip(self.support, self.alphas)) for x in np.asarray(X)
        ])


def dual_learner(X, y, rule="pa1", C=1.0, eta=1.0, task="binary", epsilon=0.1, kernel="linear",
                 fit_intercept=False, budget=None, policy="oldest", seed=0, **params):
    """One online pass of the kernel PA family (``rule`` "pa", "pa1", "pa2") or the kernel Perceptron ("perceptron")."""
    k = KERNELS[kernel]
    bias = 1.0 if fit_intercept else 0.0
    X = np.asarray(X, dtype=np.float64)
    trace = DualTrace(support=[], alphas=[])
    origin = []  # row of X that each support vector came from
    state = seed
    for t, (x, target) in enumerate(zip(X, y)):
        score = sum(a * (k(s, x, **params) + bias) for s, a in zip(trace.support, trace.alphas))
        sqnorm = k(x, x, **params) + bias  # ||phi(x)||^2, augmented
        if task == "regression":
            direction = 1.0 if target - score >= 0 else -1.0
            loss = max(0.0, abs(target - score) - epsilon)
            margin = epsilon - abs(target - score)
        else:
            direction = target
            margin = target * score
            loss = max(0.0, 1.0 - margin)
        if rule == "perceptron":
            tau = eta if margin <= 0 else 0.0
        elif loss == 0 or (sqnorm == 0 and rule != "pa2"):
            tau = 0.0
        elif rule == "pa":
            tau = loss / sqnorm
        elif rule == "pa1":
            tau = min(C, loss / sqnorm)
        else:
            tau = loss / (sqnorm + 1.0 / (2.0 * C))
        if tau != 0.0:
            if budget is not None and len(trace.support) == budget:
                if policy == "oldest":
                    victim = 0
                elif policy == "random":
                    state, z = splitmix64(state)
                    victim = min(int((z >> 11) / 2.0**53 * len(trace.support)), len(trace.support) - 1)
                else:
                    magnitudes = [abs(a) for a in trace.alphas]
                    victim = magnitudes.index(min(magnitudes))
                trace.removed.append((t, origin[victim]))
                del trace.support[victim], trace.alphas[victim], origin[victim]
            trace.support.append(x.copy())
            trace.alphas.append(tau * direction)
            origin.append(t)
        trace.scores.append(score)
        trace.losses.append(loss)
        trace.taus.append(tau)
        trace.sizes.append(len(trace.support))
    return trace
