"""The codes of the multiclass kernels (:mod:`._multiclass`, :mod:`._mercer_multiclass`), without numba.

The learners of :mod:`olearn.multiclass` fill the kernels' ``codes`` and
``params`` arrays and read the status of a row with these; :mod:`._compiled`
runs the passes of a learner with prototypes without starting numba, so the
learners import the codes from here rather than from the kernel modules.
"""

# How the coefficients of a round are chosen.
RULE_PA = 0
RULE_PERCEPTRON = 1
RULE_MIRA = 2

# The rival of RULE_PA (Crammer et al. 2006, Sec. 7 and Fig. 2 of Sec. 8).
RIVAL_MAX_WRONG = 0  # the highest-scoring wrong label
RIVAL_PREDICTED = 1  # the predicted label (prediction-based cost-sensitive update)
RIVAL_MAX_LOSS = 2  # argmax_r s_r - s_y + margin(y, r) (max-loss cost-sensitive update)

# How RULE_PERCEPTRON splits its unit step over the error set (Crammer & Singer 2003).
SPLIT_UNIFORM = 0
SPLIT_MAX = 1
SPLIT_PROPORTIONAL = 2

# Layout of the int64 ``codes`` array.
MK_RULE = 0
MK_RIVAL = 1
MK_STEP = 2  # STEP_PA, STEP_PA1 or STEP_PA2 of _codes
MK_SPLIT = 3
MN_CODES = 4

# Layout of the float64 ``params`` array.
MP_C = 0
MP_BETA = 1
MP_BIAS = 2  # value of the constant feature of the intercept (0 = none)
MP_AVERAGE = 3  # the round a from which weights are averaged (0 = no averaging)
MN_PARAMS = 4

# Status of a row.
OK = 0
OVERFLOW = 1
NOT_ORTHONORMAL = 2  # MIRA with a feature map whose class vectors are not orthogonal of equal norm
