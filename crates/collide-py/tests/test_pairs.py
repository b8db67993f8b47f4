"""Every registered algorithm, from Python, against a numpy brute force: random and clustered boxes over moving
frames (state kept across calls), with and without the motion hint, and with bodies added and removed."""

import numpy as np
import pytest

import collide
from conftest import assert_same_pairs, clustered_scene, oracle_pairs, uniform_scene

ALGORITHMS = collide.algorithms()
FRAMES = 12


def test_the_registry_is_listed_and_described():
    assert ALGORITHMS[0] == "brute" and ALGORITHMS[-1] == "auto"
    assert len(set(ALGORITHMS)) == len(ALGORITHMS)
    for name in ALGORITHMS:
        info = collide.describe(name)
        assert info["name"] == name and info["summary"]
        for key, spec in info["params"].items():
            assert spec["description"], f"{name}.{key}"
            if "default" in spec:
                assert spec["min"] <= spec["default"] <= spec["max"], f"{name}.{key}"
    assert "grid" in collide.describe("auto")["params"]["candidates"]["choices"]


@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("scene", ["uniform", "clustered"])
def test_every_algorithm_finds_the_brute_force_pairs_over_moving_frames(name, scene):
    rng = np.random.default_rng(7)
    make = uniform_scene if scene == "uniform" else clustered_scene
    centres, half, velocities = make(rng, 900)
    bp = collide.Broadphase(name)
    for frame in range(FRAMES):
        mins, maxs = centres - half, centres + half
        pairs = bp.find_pairs(mins, maxs)
        assert_same_pairs(pairs, mins, maxs, f"{name} on {scene}, frame {frame}")
        # Fast movers every few frames: boxes jump across cells, not only drift.
        centres = centres + velocities * (6.0 if frame % 4 == 3 else 1.0)
    assert bp.n == 900


@pytest.mark.parametrize("name", ALGORITHMS)
def test_every_algorithm_takes_the_motion_hint_with_bodies_at_rest(name):
    rng = np.random.default_rng(3)
    centres, half, velocities = uniform_scene(rng, 700, width=22.0)
    velocities[::3] = 0.0
    moving = np.any(velocities != 0, axis=1)
    bp = collide.Broadphase(name)
    for frame in range(FRAMES):
        mins, maxs = centres - half, centres + half
        moved = np.ones(len(mins), bool) if frame == 0 else moving.copy()
        assert_same_pairs(bp.find_pairs(mins, maxs, moved), mins, maxs, f"{name}, hinted frame {frame}")
        centres = centres + velocities


@pytest.mark.parametrize("name", ALGORITHMS)
def test_every_algorithm_follows_bodies_added_and_removed_with_resize(name):
    rng = np.random.default_rng(5)
    centres, half, velocities = uniform_scene(rng, 600, width=20.0)
    bp = collide.Broadphase(name)
    for frame in range(FRAMES):
        if frame % 3 == 2:
            # Remove every seventh body (the rest keep their order), then append 40 new ones.
            n = len(centres)
            keep = np.ones(n, bool)
            keep[rng.choice(n, n // 7, replace=False)] = False
            old_to_new = np.full(n, -1, np.int64)
            old_to_new[keep] = np.arange(keep.sum())
            born_c, born_h, born_v = uniform_scene(rng, 40, width=20.0)
            centres = np.concatenate([centres[keep], born_c])
            half = np.concatenate([half[keep], born_h])
            velocities = np.concatenate([velocities[keep], born_v])
            bp.resize(old_to_new, len(centres))
            assert bp.n == len(centres)
        mins, maxs = centres - half, centres + half
        assert_same_pairs(bp.find_pairs(mins, maxs), mins, maxs, f"{name} with churn, frame {frame}")
        centres = centres + velocities


def test_touching_boxes_overlap_and_strided_arrays_are_read():
    # A 6×6×6 lattice of unit boxes exactly touching: closed intervals, so every face, edge and corner neighbour.
    g = np.stack(np.meshgrid(*[np.arange(6, dtype=np.float32)] * 3, indexing="ij"), -1).reshape(-1, 3)
    mins, maxs = g, g + 1.0
    expected = oracle_pairs(mins, maxs)
    assert len(expected) == 3 * 5 * 36 + 6 * 25 * 6 + 4 * 125  # faces + edges + corners
    for name in ALGORITHMS:
        assert_same_pairs(collide.Broadphase(name).find_pairs(mins, maxs), mins, maxs, f"{name} on a lattice")
    # Views with strides (every other row of a bigger array, Fortran order) are read as they are.
    big = np.zeros((2 * len(g), 3), np.float32)
    big[::2] = g
    fortran = np.asfortranarray(maxs)
    assert_same_pairs(collide.Broadphase("grid").find_pairs(big[::2], fortran), mins, maxs, "strided views")


def test_empty_and_single_body_frames():
    bp = collide.Broadphase("auto")
    empty = np.zeros((0, 3), np.float32)
    assert bp.find_pairs(empty, empty).shape == (0, 2)
    bp.reset()
    one = np.zeros((1, 3), np.float32)
    assert bp.find_pairs(one, one + 1).shape == (0, 2)
