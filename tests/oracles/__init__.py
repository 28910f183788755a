"""Reference implementations ("oracles") of the papers' pseudo-code, in plain NumPy.

They are written from the papers' math, not from olearn's code: dense loops,
one round at a time, no tricks. The tests compare olearn's compiled kernels
against them.
"""
