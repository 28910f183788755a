"""Integer codes that select a kernel's step rule, loss and schedule, or a Mercer kernel and its budget.

Codes, not callables, enter the compiled loops: numba caches a kernel on disk only
when it has no closures, and a branch on an integer costs nothing next to a
dispatch through a function object.
"""

# Step rules: how the loss l and s = ||z||^2 of a round become the step size tau.
STEP_PERCEPTRON = 0  # tau = eta on a mistake (y w.x <= 0), else 0
STEP_PA = 1  # tau = l / s                    Crammer et al. 2006, Eq. (3)
STEP_PA1 = 2  # tau = min(C, l / s)           Crammer et al. 2006, Eq. (8), PA-I
STEP_PA2 = 3  # tau = l / (s + 1 / (2C))     Crammer et al. 2006, Eq. (8), PA-II
STEP_OGD = 4  # tau = eta_t * (-dl/dmargin)  Zinkevich 2003, online (sub)gradient descent

# Losses of the margin m = y w.x
LOSS_HINGE = 0  # max(0, 1 - m)
LOSS_LOGISTIC = 1  # log(1 + exp(-m))
LOSS_SQUARED = 2  # (1 - m)^2 / 2, i.e. (y - w.x)^2 / 2 for y in {-1, +1}
# The regression task (Crammer et al. 2006, Sec. 5): y is a real target, the
# virtual instance is z = sign(y - w.x) x, and the margin is m = epsilon - |y - w.x|
# (>= 0 inside the epsilon-tube), so that the loss is the hinge at 0 of that margin.
LOSS_EPSILON_INSENSITIVE = 3  # max(0, -m) = max(0, |y - w.x| - epsilon)

# Learning-rate schedules eta_t for round t = 1, 2, ...
SCHEDULE_CONSTANT = 0  # eta
SCHEDULE_SQRT = 1  # eta / sqrt(t)
SCHEDULE_INVERSE = 2  # eta / t

# Layout of the float64 `params` array of the binary linear kernels.
P_ETA = 0
P_C = 1
P_RADIUS = 2  # L2-ball radius of the projection; 0 means no projection
P_BIAS = 3  # value of the constant feature appended for the intercept (0 = none)
P_EPSILON = 4  # width of the insensitive tube of LOSS_EPSILON_INSENSITIVE
N_PARAMS = 5

# Layout of the int64 `codes` array.
K_STEP = 0
K_LOSS = 1
K_SCHEDULE = 2
K_CONSERVATIVE = 3  # 1: update only on prediction mistakes
N_CODES = 4

# Layout of the float64 `state` array (besides the weight vector).
S_T = 0  # rounds seen so far
S_SCALE = 1  # the weights are scale * w: a projection rescales in O(1)
S_SQNORM = 2  # ||scale * w||^2, kept up to date for the projection
N_STATE = 3

# Layout of the float64 `totals` array written by every pass.
T_MISTAKES = 0
T_LOSS = 1
T_UPDATES = 2
T_ROUNDS = 3
N_TOTALS = 4

# Mercer kernels of the support-set engine (olearn._kernels._mercer).
KERNEL_LINEAR = 0
KERNEL_POLY = 1
KERNEL_RBF = 2

# Which support vector leaves when adding one would exceed the budget.
BUDGET_OLDEST = 0  # the first one added (the Forgetron's removal step, without its shrinking)
BUDGET_RANDOM = 1  # uniformly at random (the randomized budget Perceptron of Cavallanti et al. 2007)
BUDGET_SMALLEST = 2  # the one with the smallest coefficients (squared norm of its row; oldest on ties)

# Layout of the int64 `mcodes` array.
M_KERNEL = 0
M_DEGREE = 1
M_BUDGET = 2  # the largest number of support vectors; 0 means no budget
M_POLICY = 3
N_MCODES = 4

# Layout of the float64 `mparams` array.
M_GAMMA = 0
M_COEF0 = 1
M_OFFSET = 2  # added to every kernel value: the squared constant feature of the intercept
N_MPARAMS = 3

# Layout of the int64 ``averaging`` array of the averaged kernels (see _lazy_average).
A_ROUNDS = 0  # rounds learned since learning started
A_START = 1  # the round a from which the weights are averaged; 0: no averaging
N_AVERAGING = 2

# Layout of the float64 ``avg_state`` array of an averaged binary linear learner (see _binary_linear;
# empty when not averaging). Its slot A_START, as above, is the first round whose iterate enters
# the average (scikit-learn's ``average``).
A_SIGMA = 0  # sigma: the sum of the scales of the iterates in the average since the last fold
N_AVERAGE = 2
