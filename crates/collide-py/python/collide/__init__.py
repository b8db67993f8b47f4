"""collide for Python: real-time broadphase collision detection on numpy arrays.

Every algorithm of collide's registry (``collide.algorithms()``) and ``auto``, the meta-broadphase that picks and
switches among them at run time, answer the same question: which pairs of axis-aligned boxes overlap. They differ
only in the time taken.

>>> import numpy as np, collide
>>> bp = collide.Broadphase("auto")
>>> centres = np.random.default_rng(1).uniform(0, 20, (1000, 3)).astype(np.float32)
>>> pairs = bp.find_pairs(centres - 0.5, centres + 0.5)   # (m, 2) uint32, smaller index first
>>> pairs.dtype, pairs.shape[1]
(dtype('uint32'), 2)

``collide.read_aabbs(path)`` reads Broadmark's ``.aabbs`` box streams frame by frame.
"""

from ._collide import AabbsFile, Broadphase, __version__, algorithms, describe, read_aabbs

__all__ = ["AabbsFile", "Broadphase", "__version__", "algorithms", "describe", "read_aabbs"]
