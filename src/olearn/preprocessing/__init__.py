"""Online transformers: scaling by running statistics, one-hot encoding, crossing and hashing of names.

Each learns from a stream without labels (``learn_one(x)``) and transforms a
dict example into a dict (``transform_one(x)``); ``partial_fit``/``transform``
(or River's ``learn_many``/``transform_many``) do the same for batches. Chain
them before a learner with ``|`` (see :class:`olearn.compose.Pipeline`).
"""

from ._encode import FeatureHasher, OneHotEncoder
from ._interactions import Interactions
from ._scale import MaxAbsScaler, StandardScaler

__all__ = ["FeatureHasher", "Interactions", "MaxAbsScaler", "OneHotEncoder", "StandardScaler"]
