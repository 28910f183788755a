"""PA label ranking with sets of relevant labels, transcribed from the paper in plain NumPy.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, "Online Passive-Aggressive
Algorithms", JMLR 7 (2006), Sec. 7, with the multi-vector feature map: for k
labels, Phi(x, r) is the vector of k blocks of size d holding x in block r
and zeros elsewhere; the learner is ONE weight vector w of size k*d.

    margin_t = min_{r in Y_t} w.Phi(x_t, r) - max_{s not in Y_t} w.Phi(x_t, s)
    l_t      = max(0, 1 - margin_t)
    z_t      = Phi(x_t, r_t) - Phi(x_t, s_t)   (r_t the argmin, s_t the argmax; first index on ties)
    tau_t    = l/||z||^2 (PA), min(C, l/||z||^2) (PA-I), l/(||z||^2 + 1/(2C)) (PA-II);
               0 when the denominator is 0 (z = 0: every w has the same loss)
    w        = w + tau_t z_t

Rows whose relevant set is empty or holds every label in the ranking have
margin +inf and loss 0 (min over no label is +inf, max over no label -inf).

Labels are given by their indices 0..k-1 (k = ``n_labels``). ``ranked`` gives
the labels in the ranking from the start; without it every label is. A label
not ranked yet joins the ranking on the first row that names it (olearn's
documented rule for labels first met mid-stream). ``fit_intercept`` gives each
label a constant feature of its own (appending 1 to x in every block).

``weights`` (olearn's importance weights, beyond the paper): row t is learned
with C replaced by weights[t] * C, and weight 0 makes no update.
"""

from dataclasses import dataclass

import numpy as np


@dataclass
class MultilabelTrace:
    coef: np.ndarray  # (k, d) weights, the blocks of w
    intercept: np.ndarray  # (k,)
    margins: np.ndarray
    losses: np.ndarray
    taus: np.ndarray
    scores: np.ndarray  # (n, k) scores before each update (0 for labels not ranked yet)


def phi(x, r, n_labels):
    out = np.zeros(n_labels * x.size)
    out[r * x.size : (r + 1) * x.size] = x
    return out


def pa_multilabel(X, label_sets, n_labels, variant="pa", C=1.0, fit_intercept=False, ranked=None, weights=None):
    """The multi-prototype learner: :func:`pa_multilabel_joint` with the block map ``phi``."""
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    w, intercept, margins, losses, taus, scores = pa_multilabel_joint(
        X, label_sets, n_labels, lambda x, r: phi(x, r, n_labels), variant, C, fit_intercept, ranked, trace=True,
        weights=weights,
    )
    return MultilabelTrace(w.reshape(n_labels, d).copy(), intercept, margins, losses, taus, scores)


def pa_multilabel_joint(X, label_sets, n_labels, phi, variant="pa", C=1.0, fit_intercept=False, ranked=None,
                        trace=False, weights=None):
    """Sec. 7 with a joint feature map, one weight vector w: Eq. (36)-(38) and the PA-I/PA-II taus after Eq. (38).

    ``phi(x, r)`` returns the dense vector Phi(x, r) of label index r; all have the
    same length D. ``fit_intercept`` gives each label a constant feature of its own,
    i.e. Phi(x, r) is extended by the indicator e_r (D + k entries). Labels join the
    ranking as described at the top of this module. Returns (w, intercepts, margins,
    losses, taus), and with ``trace`` also the (n, k) scores before each update (0 for
    labels not ranked yet).
    """
    X = np.asarray(X, dtype=np.float64)

    def features(x, r):
        base = np.asarray(phi(x, r), dtype=np.float64)
        return np.concatenate([base, np.eye(n_labels)[r]]) if fit_intercept else base

    size = features(X[0], 0).size
    w = np.zeros(size)
    in_ranking = list(range(n_labels)) if ranked is None else list(ranked)
    margins, losses, taus, all_scores = [], [], [], []
    weights = np.ones(len(label_sets)) if weights is None else np.asarray(weights, dtype=np.float64)
    for x, relevant, weight in zip(X, label_sets, weights):
        C_t = weight * C
        for label in sorted(relevant):
            if label not in in_ranking:
                in_ranking.append(label)
        scores = {r: w @ features(x, r) for r in in_ranking}
        all_scores.append([scores.get(r, 0.0) for r in range(n_labels)])
        rel = [r for r in in_ranking if r in relevant]
        irr = [s for s in in_ranking if s not in relevant]
        if not rel or not irr:
            margins.append(np.inf)
            losses.append(0.0)
            taus.append(0.0)
            continue
        # ties go to the label that entered the ranking first (Eq. 36's argmin / argmax)
        r_t = rel[int(np.argmin([scores[r] for r in rel]))]
        s_t = irr[int(np.argmax([scores[s] for s in irr]))]
        margin = scores[r_t] - scores[s_t]
        loss = max(0.0, 1.0 - margin)
        z = features(x, r_t) - features(x, s_t)
        sq = z @ z
        if weight == 0.0:
            tau = 0.0
        elif variant == "pa":
            tau = loss / sq if sq > 0 else 0.0
        elif variant == "pa1":
            tau = min(C_t, loss / sq) if sq > 0 else 0.0
        elif variant == "pa2":
            denominator = sq + 1.0 / (2.0 * C_t)
            tau = loss / denominator if denominator > 0 else 0.0
        else:
            raise ValueError(variant)
        w = w + tau * z
        margins.append(margin)
        losses.append(loss)
        taus.append(tau)
    base = size - n_labels if fit_intercept else size
    intercept = w[base:] if fit_intercept else np.zeros(n_labels)
    result = (w[:base].copy(), intercept.copy(), np.array(margins), np.array(losses), np.array(taus))
    if trace:
        return result + (np.array(all_scores).reshape(len(label_sets), n_labels),)
    return result
