"""Shared helpers of the pytest suite: the numpy brute-force oracle and scene generators."""

import numpy as np


def oracle_pairs(mins: np.ndarray, maxs: np.ndarray) -> np.ndarray:
    """Every pair (i < j) whose closed boxes overlap on all three axes, by testing every pair: the independent
    answer each algorithm is checked against. Sorted rows, shape (m, 2)."""
    n = len(mins)
    out = []
    step = 512
    for start in range(0, n, step):
        lo, hi = mins[start : start + step], maxs[start : start + step]
        overlap = np.all((lo[:, None, :] <= maxs[None, :, :]) & (hi[:, None, :] >= mins[None, :, :]), axis=2)
        i, j = np.nonzero(overlap)
        i = i + start
        keep = i < j
        out.append(np.stack([i[keep], j[keep]], axis=1))
    pairs = np.concatenate(out).astype(np.uint32) if out else np.zeros((0, 2), np.uint32)
    return sort_pairs(pairs)


def sort_pairs(pairs: np.ndarray) -> np.ndarray:
    """Rows in ascending (i, j) order: the pair contract leaves the order unspecified."""
    pairs = np.asarray(pairs).reshape(-1, 2)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def assert_same_pairs(found: np.ndarray, mins: np.ndarray, maxs: np.ndarray, what: str) -> None:
    assert found.dtype == np.uint32, f"{what}: dtype {found.dtype}"
    assert found.ndim == 2 and found.shape[1] == 2, f"{what}: shape {found.shape}"
    assert np.all(found[:, 0] < found[:, 1]), f"{what}: a pair without the smaller index first"
    expected = oracle_pairs(mins, maxs)
    got = sort_pairs(found)
    assert len(np.unique(got, axis=0)) == len(got), f"{what}: a pair reported twice"
    if not np.array_equal(got, expected):
        got_set = set(map(tuple, got.tolist()))
        exp_set = set(map(tuple, expected.tolist()))
        missing, extra = sorted(exp_set - got_set)[:5], sorted(got_set - exp_set)[:5]
        raise AssertionError(f"{what}: {len(exp_set - got_set)} missing (e.g. {missing}), "
                             f"{len(got_set - exp_set)} extra (e.g. {extra})")


def uniform_scene(rng: np.random.Generator, n: int, width: float = 30.0):
    centres = rng.uniform(0, width, (n, 3)).astype(np.float32)
    half = rng.uniform(0.2, 0.9, (n, 1)).astype(np.float32) * np.ones((1, 3), np.float32)
    velocities = rng.normal(0, 0.6, (n, 3)).astype(np.float32)
    return centres, half, velocities


def clustered_scene(rng: np.random.Generator, n: int):
    """A few tight clusters (many pairs per body), a few far outliers, some zero-size boxes and mixed sizes."""
    k = 5
    seeds = rng.uniform(0, 60, (k, 3))
    centres = (seeds[rng.integers(0, k, n)] + rng.normal(0, 2.0, (n, 3))).astype(np.float32)
    centres[:3] = np.array([[1e4, 0, 0], [-1e4, 5, 5], [0, 3e3, -2e3]], np.float32)
    half = rng.uniform(0.1, 0.6, (n, 3)).astype(np.float32)
    half[:: 10] *= 6.0
    half[5::17] = 0.0
    velocities = rng.normal(0, 0.4, (n, 3)).astype(np.float32)
    return centres, half, velocities
