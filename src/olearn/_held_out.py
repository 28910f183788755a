"""A chunk of a multi-pass run with held-out rows, tried in one compiled pass on a learner put back if refused.

``olearn run --passes N`` holds out every K-th example (Vowpal Wabbit's
``--holdout_period``); a learner whose pass takes the held-out rows as a mask
learns a chunk in one compiled call (``_held_out_pass``). That call is an
attempt: where the chunk is refused (:data:`CHUNK_REFUSALS` raised by its
checks, or an overflow that stops the pass), the learner is put back exactly
as it was and the caller learns the chunk again on the general path, which
refuses it with the error that names the row. Any other error is a fault of
the pass itself: it propagates (the learner put back as well), so that a bug
of a masked kernel shows as an error, never as a silent fall back to the slow
path.
"""

import copy

# what the checks of a chunk raise when they refuse it: ValueError for its rows, labels or weights and the
# learner's hyperparameters (olearn's DataFormatError and FeatureLimitError are ValueErrors), TypeError for
# a label or value of a type they cannot read
CHUNK_REFUSALS = (ValueError, TypeError)


def held_out_chunk(learner, written, copied, check, learn):
    """``learn(check())`` on ``learner``; None, the learner as it was, where the chunk is refused.

    ``check()`` reads the chunk and readies the learner (its classes and
    columns), returning what ``learn`` takes; it refuses the chunk by raising
    one of :data:`CHUNK_REFUSALS`. ``learn`` runs the masked pass and returns
    its outputs, or None where the pass stopped at an overflow. ``written``
    names the learner's arrays the pass writes in place (their contents are
    saved) and ``copied`` the objects the checks change in place (saved as
    deep copies); the learner's other attributes are replaced, not changed, so
    their references are kept. An error other than a refusal propagates, the
    learner put back first.
    """
    state = learner.__dict__
    saved = dict(state)
    contents = {name: state[name].copy() for name in written if name in state}
    for name in copied:
        if name in state:
            saved[name] = copy.deepcopy(state[name])
    features = state.get("_features")
    size = 0 if features is None else features.size
    try:
        try:
            checked = check()
        except CHUNK_REFUSALS:
            outputs = None
        else:
            outputs = learn(checked)
    except BaseException:
        _put_back(learner, saved, contents, features, size)
        raise
    if outputs is None:
        _put_back(learner, saved, contents, features, size)
    return outputs


def _put_back(learner, saved, contents, features, size):
    """The learner's attributes ``saved``, its arrays' ``contents`` written back and its vocabulary's first ``size``
    names (see ``OnlineLearner._restore``)."""
    for name, content in contents.items():
        saved[name][...] = content
    learner._restore(saved, features, size)
