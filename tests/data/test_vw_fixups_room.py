"""The VW parser's numbers left to Python (long mantissas, large exponents) beyond its first room for them.

The parse writes them into a fixed table and, when the table is full, is run
again with room for every number of the text; the reference values are
Python's own ``float`` of each token.
"""

import numpy as np

from olearn.data import load_vw


def test_more_deferred_numbers_than_the_first_room_are_all_read(tmp_path):
    rng = np.random.default_rng(0)
    lines, weights, values = [], [], []
    for i in range(700):  # 2,100 deferred numbers: the parse starts with room for 256
        weight = f"{rng.random():.25f}"
        value = f"{rng.integers(1, 9)}{rng.integers(10**17, 10**18)}.5e-3"
        label = f"{rng.choice([-1, 1])}.{'0' * 20}1"
        lines.append(f"{label} {weight} |a x:{value}")
        weights.append(float(weight))
        values.append(float(value))
    path = tmp_path / "long.vw"
    path.write_text("\n".join(lines) + "\n")
    X, y, w = load_vw(str(path), n_bits=18)
    assert X.shape[0] == 700 and X.nnz == 700
    np.testing.assert_array_equal(X.data, values)
    np.testing.assert_array_equal(w, weights)
    np.testing.assert_array_equal(y, [float(line.split()[0]) for line in lines])
