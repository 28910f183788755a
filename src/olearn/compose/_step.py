"""What a :class:`~olearn.compose.Pipeline` asks of a transformer step: the protocol of :class:`Step`.

The transformers of :mod:`olearn.preprocessing` implement it, and the pipeline
knows them through it only: it imports nothing of :mod:`olearn.preprocessing`,
whose transformers import the pipeline for their ``|``.

A step acts either on the names of a dict's features, before the pipeline's
:class:`~olearn._features.FeatureMap` converts the dict (one-hot encoding,
hashing, crossing: ``_acts_on_names`` True), or on the values of the columns
of the converted row (scaling: ``_acts_on_names`` False). Every step answers
``_config()`` (its checked settings, O(1) when unchanged) and the saving hooks
of :mod:`olearn.compose._saving` (``_all_constraints``, ``_saved_params``,
``_state_schema``, ``_get_state``, ``_set_state``).

* A step on names says, through :meth:`Step._names_in_plan`, what the
  pipeline does to a dict's names at its place, and whether it crosses names
  (``_crosses_names``: then the examples must be dicts).
* A step on values keeps statistics per column of the pipeline and is
  handed the pipeline's rows: its state (``_is_started``, ``_start``,
  ``_reset``, ``_state``, ``_arrays``, ``_grow``, ``_stats_copy``,
  ``_adopt``, ``n_features_in_``, ``feature_map_``), its compiled kernels
  (``_transform_kernel``, ``_learn_kernel``, ``_progressive_kernel``) and the
  error of a value that would overflow them (``_overflow``), as
  :class:`olearn.preprocessing._base.ColumnTransformer` implements them.
"""

from .._estimator import Estimator


class Step(Estimator):
    """Base class of the transformers a pipeline runs before its learner (see the module's protocol)."""

    _estimator_type = "transformer"
    # True for the transformers that act on the names of a dict's features (at its conversion), False for
    # those that act on the values of its columns
    _acts_on_names = False
    # True for a transformer that crosses the names of a dict's features: the examples must be dicts
    _crosses_names = False

    def _names_in_plan(self, name, n_bits, pipeline_n_bits):
        """For a step on names, named ``name`` in the pipeline: what it does to a dict's names there.

        ``n_bits`` is the hashing of names decided by the steps before it
        (None for a vocabulary), ``pipeline_n_bits`` the pipeline's own.
        Returns ``(encode, n_bits)``: the function of a dict that the
        pipeline applies to its names (None for none) and the hashing after
        this step; raises ValueError for a step out of its place.
        """
        return None, n_bits
