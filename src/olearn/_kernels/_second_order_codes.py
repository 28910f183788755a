"""The codes of the second-order binary kernels (:mod:`._second_order`, :mod:`._diagonal`), without numba.

The learners of :mod:`olearn.second_order` fill the kernels' ``codes`` and
``params`` arrays and read their ``state`` with these; :mod:`._compiled` runs the
diagonal passes without starting numba, so the learners import the codes from
here rather than from the kernel modules.
"""

# Rules: how (y, m, chi) become (loss, c, gamma, tau).
RULE_AROW = 0  # Crammer, Kulesza & Dredze 2009: PA-II's step in Sigma-geometry, 1/(2C) = r
RULE_SOP = 1  # Cesa-Bianchi, Conconi & Gentile 2005: AROW with r = a on mistakes only
RULE_NAROW = 2  # Orabona & Crammer 2010, Fig. 1: adaptive r_t, fixed dual step
RULE_CW = 3  # Crammer, Dredze & Pereira 2008: exact convex confidence-weighted update
RULE_ADAGRAD = 4  # Duchi, Hazan & Singer 2011, diagonal, hinge loss (diagonal kernel only)
RULE_FIG1_AROW = 5  # Orabona & Crammer 2010, Fig. 1 with a fixed r: Sec. 4.2 (full), Sec. 4.3 (diagonal)

# Layout of the int64 `codes` array.
K_RULE = 0
N_CODES = 1

# Layout of the float64 `params` array.
Q_HYPER = 0  # r (AROW, Fig. 1's AROW), a (SOP), b (NAROW), phi = Phi^{-1}(eta) (CW), eta (AdaGrad)
Q_DELTA = 1  # AdaGrad's delta, added to the square root of the accumulated squared gradients
Q_BIAS = 2  # value of the constant feature of the intercept (0 = none)
Q_AVERAGE = 3  # the first averaged round (1 = every round); used only when an ``avg`` array is passed
N_PARAMS = 4

# Layout of the float64 `state` array (besides the mean and the covariance).
Z_T = 0  # rounds seen so far
N_STATE = 1

# Entries of a row AdaGrad updates at a time (:mod:`._diagonal`): ``work`` holds 2 * ADAGRAD_CHUNK floats
ADAGRAD_CHUNK = 64
