"""Passive-Aggressive uniclass prediction (Crammer et al. 2006, Sec. 6)."""

import math
from collections.abc import Mapping

import numpy as np

from .._docstrings import shared_entries
from .._held_out import held_out_chunk
from .._kernels import _codes
from .._kernels import _uniclass as K
from ..exceptions import PartialUpdateError
from .._learner import OnlineLearner
from .._params import BOOLEAN, Interval, NoneOr, Options
from .._state_schema import Array, Count, StateSchema
from .._validation import check_row
from .._weights import UNWEIGHTED

_STEP_RULES = {"pa": _codes.STEP_PA, "pa1": _codes.STEP_PA1, "pa2": _codes.STEP_PA2}


@shared_entries
class PAUniclass(OnlineLearner):
    r"""Passive-Aggressive uniclass prediction: a ball that follows a stream of vectors.

    Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
    Algorithms*, JMLR 7 (2006), Sec. 6. There is no input: on round t the
    learner predicts the center :math:`w_t`, then sees a vector :math:`y_t` and
    suffers the epsilon-insensitive loss of Eq. (21),

    .. math:: \ell_t = \max\big(0,\ \|w_t - y_t\| - \epsilon\big),

    the distance from :math:`y_t` to the ball :math:`B_\epsilon(w_t)`. The
    update (Eqs. (22)-(24); Eq. (30) and its PA-II twin for the slack
    variants) moves the center towards :math:`y_t`,

    .. math:: w_{t+1} = w_t + \tau_t \frac{y_t - w_t}{\|y_t - w_t\|}, \qquad
        \tau_t = \ell_t \;\text{(PA)},\quad \min\{C, \ell_t\} \;\text{(PA-I)},\quad
        \frac{\ell_t}{1 + \frac{1}{2C}} \;\text{(PA-II)},

    which is the shared PA step with the unit virtual instance
    :math:`z_t = (y_t - w_t)/\|y_t - w_t\|`, :math:`\|z_t\|^2 = 1`. PA puts
    :math:`y_t` exactly on the edge of the new ball; PA-I and PA-II move at most
    as far. The center starts at :math:`w_1 = 0`.

    **Learning the radius** (``learn_radius=True``, Sec. 6, "Learning the
    Radius of the Uniclass Predictor"). When no good epsilon is known, only an
    upper bound B on it, the problem is lifted to n + 1 dimensions: each vector
    becomes :math:`\bar y_t = (y_t, 0)`, the learner keeps
    :math:`\bar w_t = (w_t, a_t)` and runs the fixed-radius algorithm above
    with radius B. Since (Eq. (31)-(32))

    .. math:: \|\bar w_t - \bar y_t\|^2 = \|w_t - y_t\|^2 + a_t^2,

    :math:`\bar y_t` lies in the lifted ball of radius B exactly when
    :math:`y_t` lies in the ball of radius
    :math:`\epsilon_t = \sqrt{B^2 - a_t^2}` around :math:`w_t`: the lifted
    coordinate encodes the radius. As the text prescribes, the lifted
    coordinate starts at :math:`a_1 = B`, "which is equivalent to initializing
    :math:`\epsilon_1 = 0`"; each update multiplies :math:`a_t` by
    :math:`1 - \tau_t/\|\bar y_t - \bar w_t\| \in (0, 1]` (a convex
    combination with :math:`\bar y_{t,n+1} = 0`), so :math:`a_t \in (0, B]`
    and the radius never shrinks. A competitor center u with radius
    :math:`\epsilon \le B` is the lifted point
    :math:`\bar u = (u, \sqrt{B^2 - \epsilon^2})`, which contains
    :math:`\bar y_t` exactly when :math:`\|u - y_t\| \le \epsilon`, so the
    fixed-radius bounds hold in the lifted space with
    :math:`\|\bar u - \bar w_1\|^2 = \|u\|^2 + (B - \sqrt{B^2 - \epsilon^2})^2
    \le \|u\|^2 + \epsilon^2` in place of :math:`\|u\|^2` (the text's
    statement; see :mod:`olearn.bounds`). In this mode ``epsilon`` is not used,
    and the recorded loss of a round is the lifted one,
    :math:`\max(0, \sqrt{\|w_t - y_t\|^2 + a_t^2} - B)`, the loss the step and
    the bounds are about; it is > 0 exactly when :math:`y_t` falls outside the
    current ball.

    The text asks for B "far greater than any conceivable value of
    :math:`\epsilon`" and notes that B "does not appear in our analysis"; the
    default ``B=1e6`` follows it for data of ordinary scale (raise it for data
    measured in millions). A consequence of a large B, which the text does not
    spell out: the lifted step moves the center by the fraction
    :math:`1 - B/\|\bar w_t - \bar y_t\| \approx (\|w_t - y_t\|^2 -
    \epsilon_t^2)/(2B^2)` of the way to :math:`y_t`, while the radius grows
    almost all the way to :math:`\|w_t - y_t\|`; with a large B the learner
    is a ball about a nearly fixed center that grows to take in the stream.
    The state is kept as :math:`B - a_t`, so that a large B costs no precision.

    A round is a **mistake** when :math:`y_t` falls outside the current ball
    (its loss is > 0); :func:`olearn.run` counts those. Its ``predictions`` are
    +1 (inside, the boundary included) or -1 (outside), its ``scores`` the
    signed margin ``radius_ - ||y_t - w_t||``, as :meth:`predict` and
    :meth:`decision_function` give them (the convention of scikit-learn's
    outlier detectors).

    **Importance weights** (``sample_weight`` of :meth:`partial_fit`,
    :meth:`learn_one` and :func:`olearn.run`; beyond the text). A vector of
    weight :math:`v \ge 0` is learned with the aggressiveness :math:`vC`:
    PA-I :math:`\tau = \min\{vC, \ell_t\}`, PA-II
    :math:`\tau = \ell_t/(1 + \frac{1}{2vC})`, PA the plain step for any
    :math:`v > 0`; weight 0 makes no update (the round still counts in the
    totals). For PA-I an integer weight v is exactly the vector repeated v
    times, with a fixed or a learned radius: each repeat moves along the same
    segment towards :math:`y_t` (lifted, with a learned radius) and lowers the
    loss by its step. There is no ``class_weight``: the vectors have no label.

    **No averaging.** The learners with an input x may predict with their
    averaged weights (``average``); PAUniclass does not take it. Its
    prediction is the current center itself (Sec. 6: the algorithm "simply
    predicts the next element of the sequence to be :math:`w_t`"), and what
    the analysis of Sec. 4 bounds, carried over to this task by Lemma 7, is
    the cumulative loss of exactly these current centers on an arbitrary,
    possibly drifting, sequence. A mean of past centers would be another
    predictor, lagging behind the stream, that the text neither defines nor
    bounds (it has a guarantee only for vectors drawn i.i.d., by an
    online-to-batch argument outside the text).

    Every vector of a stream has the same dimension d: the first one fixes it
    (or ``n_features`` does). Arrays and sparse rows must have exactly d
    entries; a dict ``{index: value}`` lists the nonzero coordinates, which
    must be below d (a dict alone cannot tell its length, so the first vector
    of a stream of dicts should come with ``n_features``).

    Parameters
    ----------
    variant : {"pa", "pa1", "pa2"}, default="pa1"
    C : float, default=1.0
        Aggressiveness, > 0 (``inf`` allowed; ignored by ``"pa"``).
    epsilon : float, default=0.1
        Radius of the ball, >= 0 (unused when ``learn_radius=True``).
    learn_radius : bool, default=False
        Learn the radius by the lift to n + 1 dimensions.
    B : float, default=1e6
        Upper bound on the radius when it is learned, finite and > 0; the
        text wants it far above any radius the stream could need.
    n_features : int or None, default=None
        The dimension d of the vectors; None: that of the first vector.
    max_iter, tol, n_iter_no_change, shuffle, random_state
        <shared entry: epochs>
        Defaults 1000, 1e-3, 5, True, None.

    Attributes
    ----------
    center_ : ndarray of shape (d,)
    radius_ : float
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.uniclass import PAUniclass
    >>> est = PAUniclass(variant="pa", epsilon=1.0)
    >>> est.learn_one(np.array([3.0, 4.0])).center_     # distance 5, loss 4: moves 4 towards y
    array([2.4, 3.2])
    >>> est.learn_one(np.array([2.4, 3.5])).center_     # inside the ball: no loss, no move
    array([2.4, 3.2])
    >>> est.predict(np.array([[2.4, 3.2], [10.0, 10.0]]))
    array([ 1, -1])
    >>> learner = PAUniclass(variant="pa", learn_radius=True, B=2.0)
    >>> learner.predict_one() is None                  # no center before the first vector
    True
    >>> learner.learn_one(np.array([0.0, 3.0]))
    PAUniclass(B=2.0, learn_radius=True, variant='pa')
    >>> round(learner.radius_, 4), learner.center_.round(4)   # the radius was 0
    (1.6641, array([0.    , 1.3359]))
    >>> bool(np.isclose(np.linalg.norm(learner.center_ - [0.0, 3.0]), learner.radius_))  # y on the edge
    True
    """

    _task = "uniclass"
    _estimator_type = "outlier_detector"
    _weight_and_copies = (
        "PA-I's integer weight v (C becomes vC) equals v copies of the vector only when they come one after "
        "another, PA-II's weighted step is a closed form that no repetition gives, and PA takes its plain step "
        "for any v > 0"
    )
    _learned = ("_w", "_state", "n_features_in_")
    _unit = "vector"
    # its examples are target vectors, whose coordinates are not named features
    _named_features = False
    _constraints = {
        "variant": Options("pa", "pa1", "pa2"),
        "C": Interval(0, None, closed="neither"),
        "epsilon": Interval(0, math.inf, closed="left"),
        "learn_radius": BOOLEAN,
        "B": Interval(0, math.inf, closed="neither"),
        "n_features": NoneOr(Interval(1, None, integer=True)),
    }

    def __init__(self, variant="pa1", C=1.0, epsilon=0.1, learn_radius=False, B=1e6, n_features=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None):
        self.variant = variant
        self.C = C
        self.epsilon = epsilon
        self.learn_radius = learn_radius
        self.B = B
        self.n_features = n_features
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.random_state = random_state

    def _expected_failed_checks(self):
        # measured on the check's data: three blobs of spread 1 about 10 apart
        reason = (
            "the check wants a share of its points flagged as outliers; PAUniclass flags what falls outside a "
            "ball of the absolute radius epsilon (default 0.1), not a fraction of the data like scikit-learn's "
            "contamination: on the check's three blobs of spread 1 no point ends inside the default ball, "
            "with learn_radius=True every point does, and epsilon=3 gives 232 inliers and 68 outliers"
        )
        return {**super()._expected_failed_checks(), "check_outliers_train": reason}

    # -- hyperparameters ------------------------------------------------------

    def _config_arrays(self):
        """The kernel's ``codes`` and ``params``, rebuilt only after a hyperparameter changed."""
        return self._checked_config(self._build_config)

    def _build_config(self):
        codes = np.zeros(K.N_UNICLASS_CODES, dtype=np.int64)
        codes[K.U_STEP] = _STEP_RULES[self.variant]
        codes[K.U_LEARN_RADIUS] = int(self.learn_radius)
        params = np.zeros(K.N_UNICLASS_PARAMS)
        params[K.U_C] = math.inf if self.variant == "pa" else self.C
        params[K.U_EPSILON] = self.epsilon
        params[K.U_BOUND] = self.B
        return codes, params

    # -- learned state --------------------------------------------------------

    def _start(self, dimension):
        self._w = np.zeros(dimension)
        # B - a: the lifted coordinate a starts at B, the radius at 0 (see the class docstring)
        self._state = np.zeros(K.N_UNICLASS_STATE)
        self.n_features_in_ = int(dimension)

    def _dimension(self, size, exact, where):
        """Check a vector's dimension against the center's; start the center if needed."""
        expected = self.n_features_in_ if self._is_started() else self.n_features
        if expected is None:
            if size == 0:
                raise ValueError(
                    f"{where} has no coordinates, so it cannot set the dimension of the stream; "
                    "give n_features or start with a vector of the full dimension"
                )
            self._check_feature_limit(size, where)
            self._start(size)
            return
        if (exact and size != expected) or size > expected:
            origin = "n_features" if not self._is_started() or self.n_features is not None else "the first vector"
            what = f"{size} coordinates" if exact else f"a coordinate at index {size - 1}"
            raise ValueError(
                f"{where} has {what}, but the vectors of this stream have {expected} (set by {origin}); "
                "every vector of a uniclass stream has the same dimension"
            )
        if not self._is_started():
            self._check_feature_limit(expected, where)
            self._start(expected)

    @property
    def center_(self):
        """The center w of the ball, shape (d,)."""
        self._check_started()
        return self._w.copy()

    @property
    def radius_(self):
        """The radius of the ball: ``epsilon``, or the learned radius sqrt(B^2 - a^2)."""
        self._check_started()
        codes, params = self._config_arrays()
        return float(K.uniclass_radius(self._state, params, codes))

    # -- learning -------------------------------------------------------------

    def _pass(self, indptr, indices, data, weights, n_record):
        """Run the kernel over CSR rows; return (margins, losses, taus, totals, stopped row or -1)."""
        codes, params = self._config_arrays()
        margins, losses, taus = np.empty(n_record), np.empty(n_record), np.empty(n_record)
        totals = np.zeros(_codes.N_TOTALS)
        stopped = K.uniclass_pass(
            indptr, indices, data, weights, self._w, self._state, params, codes,
            np.empty(self._w.size), margins, losses, taus, totals,
        )
        return margins, losses, taus, totals, stopped

    def _progressive_pass(self, X, y, record, sample_weight=None):
        """Predict then learn every vector (row of X) in order; return the per-round outputs.

        Returns (predictions, scores, losses, taus, mistakes, totals), see the
        class docstring. ``y`` must be None: the rows themselves are the stream
        (:func:`olearn.run` passes its y here and so refuses one; ``fit`` and
        ``partial_fit`` ignore theirs). ``sample_weight``: None, or the checked
        weight of each row.
        """
        if y is not None:
            raise ValueError(
                f"{type(self).__name__} learns from unlabelled vectors: the rows of the matrix are the stream; "
                "call olearn.run(estimator, Y) without y (fit and partial_fit ignore a y, as scikit-learn's "
                "outlier detectors do)"
            )
        self._config_arrays()
        arrays = self._check_X(X, name="Y")
        if arrays.n_rows == 0:
            empty = np.empty(0)
            return np.empty(0, dtype=np.int64), empty, empty, empty, np.empty(0, dtype=bool), np.zeros(_codes.N_TOTALS)
        started = self._is_started()
        try:
            self._dimension(arrays.n_features, True, "Y")
        except ValueError:
            if not started:
                self._reset()
            raise
        if not started and arrays.feature_names is not None:
            self.feature_names_in_ = arrays.feature_names
        n = arrays.n_rows if record else 0
        weights = UNWEIGHTED if sample_weight is None else sample_weight
        margins, losses, taus, totals, stopped = self._pass(arrays.indptr, arrays.indices, arrays.data, weights, n)
        if stopped >= 0:
            raise PartialUpdateError(
                f"{type(self).__name__}: ||y - w||^2 overflowed at row {stopped}; the model keeps the updates "
                f"of rows 0..{stopped - 1}. Scale the vectors.",
                rows_kept=stopped,
            )
        if not record:
            return margins, margins, losses, taus, np.empty(0, dtype=bool), totals
        return np.where(losses > 0.0, -1, 1), margins, losses, taus, losses > 0.0, totals

    def _held_out_pass(self, X, y, held, sample_weight=None):
        """Learn the vectors of X not ``held`` in order, and measure the held-out ones against the ball of their moment.

        Vowpal Wabbit's hold-out of ``olearn run --passes N`` in one compiled
        pass (:func:`~olearn._kernels._uniclass.held_out_uniclass_pass`): the
        learned rows end as ``partial_fit`` of them alone would, and a held-out
        row is judged as :meth:`predict` would judge it then (outside the ball:
        -1, a mistake). ``y`` is None (the rows are the stream). Returns
        ``(predictions, scores, losses, taus, mistakes, totals)`` of every row in
        order, as :meth:`_progressive_pass` (the scores are the margins; a
        held-out row's loss and tau are 0) with the totals of the learned rows
        only; or None, the learner untouched, where the chunk is refused (the
        caller then learns it by the general path, which says why).
        """
        return held_out_chunk(self, ("_w", "_state"), (), lambda: self._held_out_rows_checked(X, sample_weight),
                              lambda checked: self._held_out_rows(*checked, held))

    def _held_out_rows_checked(self, X, sample_weight):
        """The chunk's checks (:func:`~olearn._held_out.held_out_chunk`): its vectors and weights read, the center
        started at their dimension; returns ``(arrays, weights)``."""
        self._config_arrays()
        weights = self._row_weights(X, None, sample_weight)
        arrays = self._check_X(X, name="Y")
        started = self._is_started()
        self._dimension(arrays.n_features, True, "Y")
        if not started and arrays.feature_names is not None:
            self.feature_names_in_ = arrays.feature_names
        return arrays, weights

    def _held_out_rows(self, arrays, weights, held):
        """The masked pass over checked rows: the outputs of :meth:`_held_out_pass`, or None where an overflow
        stopped it."""
        codes, params = self._config_arrays()
        margins, losses, taus = np.empty((3, arrays.n_rows))
        totals = np.zeros(_codes.N_TOTALS)
        stopped = K.held_out_uniclass_pass(arrays.indptr, arrays.indices, arrays.data,
                                           UNWEIGHTED if weights is None else weights, held, self._w, self._state,
                                           params, codes, np.empty(self._w.size), margins, losses, taus, totals)
        if stopped >= 0:
            return None
        outside = losses > 0.0
        outside[held] = margins[held] < 0.0  # as predict judges a vector: inside the ball, its boundary included
        return np.where(outside, -1, 1), margins, losses, taus, outside, totals

    def _fit_labels(self, y, n_rows):
        """None: the rows themselves are the stream, and ``fit`` ignores a ``y`` (a pipeline passes one)."""
        return None

    @shared_entries
    def partial_fit(self, Y, y=None, sample_weight=None):
        """Learn from the rows of Y in order (one online pass); returns self.

        Parameters
        ----------
        Y : array-like or sparse matrix, shape (n_samples, d)
            The vectors of the stream, one per row.
        y : ignored
            Not used: present for scikit-learn's conventions, as in its outlier
            detectors (a pipeline passes its y to every step). :func:`olearn.run`,
            which has no such reason, refuses a y.
        sample_weight : float or array-like of shape (n_samples,), optional
            <shared entry: sample_weight>
            C is scaled by it.
        """
        weights = self._row_weights(Y, None, sample_weight)
        self._progressive(Y, None, record=False, sample_weight=weights)
        return self

    def learn_one(self, y, sample_weight=None):
        """Learn one vector ``y`` (dict, 1-d array or sparse row) of importance ``sample_weight``; returns self."""
        weight = self._weight_one(None, sample_weight)
        self._config_arrays()
        indices, data, size = check_row(y)
        exact = not isinstance(y, Mapping)
        started = self._is_started()
        try:
            self._dimension(size, exact, "y")
            indptr = np.array([0, indices.size], dtype=np.int64)
            weights = UNWEIGHTED if weight == 1.0 else np.array([weight])
            *_, stopped = self._pass(indptr, indices.astype(np.int32, copy=False), data, weights, 0)
            if stopped >= 0:
                raise FloatingPointError(
                    f"{type(self).__name__}: ||y - w||^2 overflowed on this vector; the model is unchanged. "
                    "Scale the vectors."
                )
        except (ValueError, FloatingPointError):
            # a refused first vector leaves the learner unstarted
            if not started:
                self._reset()
            raise
        return self

    # -- prediction -----------------------------------------------------------

    def predict_one(self):
        """The center w (a copy), or None before the first vector."""
        return self._w.copy() if self._is_started() else None

    def _margins(self, Y, radius):
        """``radius - ||y - w||`` of each row of Y."""
        self._check_started()
        arrays = self._check_X(Y, name="Y")
        if arrays.n_features != self._w.size:
            raise ValueError(f"Y has {arrays.n_features} columns; the center has {self._w.size} coordinates")
        out = np.empty(arrays.n_rows)
        K.uniclass_margins(arrays.indptr, arrays.indices, arrays.data, self._w, radius, np.empty(self._w.size), out)
        return out

    def decision_function(self, Y):
        """Signed margin ``radius_ - ||y - w||`` of each row: >= 0 inside the ball."""
        codes, params = self._config_arrays()
        return self._margins(Y, K.uniclass_radius(self._state, params, codes) if self._is_started() else 0.0)

    def score_samples(self, Y):
        """``-||y - w||``, the negated distance of each row to the center: the lower, the more abnormal.

        ``decision_function(Y) == score_samples(Y) - offset_``, scikit-learn's
        convention for outlier detectors.
        """
        self._config_arrays()
        return self._margins(Y, 0.0)

    @property
    def offset_(self):
        """``-radius_``: a row is inside the ball (+1) where ``score_samples`` is >= ``offset_``."""
        return -self.radius_

    def predict(self, Y):
        """+1 for rows inside the ball (the boundary included), -1 outside."""
        return np.where(self.decision_function(Y) >= 0.0, 1, -1)

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The saved state: the center (at least one coordinate) and the gap B - a of the lifted coordinate a."""
        return StateSchema(
            scalars={"n_features_in": Count("n_features_in", low=1)},
            arrays={"center": Array("float64", ("n_features_in",)),
                    "radius_gap": Array("float64", (K.N_UNICLASS_STATE,))},
            limits=self._width_limits(),
        )

    def _get_state(self):
        self._check_started()
        return {"center": self._w, "radius_gap": self._state}, {"n_features_in": self.n_features_in_}

    def _set_state(self, arrays, state):
        self._w = np.array(arrays["center"], dtype=np.float64)
        self._state = np.array(arrays["radius_gap"], dtype=np.float64)
        self.n_features_in_ = int(state["n_features_in"])
        gap = float(self._state[K.U_GAP])
        if not 0.0 <= gap <= self.B:
            raise ValueError(f"radius_gap {gap!r} is outside [0, B = {self.B!r}]")
