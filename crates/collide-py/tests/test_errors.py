"""Bad input raises ValueError naming the problem — never a panic, never a NaN reaching a broadphase."""

import threading

import numpy as np
import pytest

import collide

rng = np.random.default_rng(11)
MINS = rng.uniform(0, 10, (50, 3)).astype(np.float32)
MAXS = MINS + 1.0


def raises(match, f, *args, **kwargs):
    with pytest.raises(ValueError, match=match):
        f(*args, **kwargs)


def test_wrong_dtype_shape_or_type_names_the_argument_and_what_it_got():
    bp = collide.Broadphase("grid")
    raises(r"mins must be a float32 .* got a float64 array of shape \(50, 3\)", bp.find_pairs, MINS.astype(np.float64), MAXS)
    raises(r"maxs must be a float32 .* got a int32 array", bp.find_pairs, MINS, MAXS.astype(np.int32))
    raises(r"mins .* got a float32 array of shape \(50, 2\)", bp.find_pairs, MINS[:, :2], MAXS[:, :2])
    raises(r"mins .* got a float32 array of shape \(150,\)", bp.find_pairs, MINS.ravel(), MAXS)
    raises(r"mins .* shape \(50, 3, 1\)", bp.find_pairs, MINS[..., None], MAXS)
    raises(r"mins .* got a list", bp.find_pairs, MINS.tolist(), MAXS)
    raises(r"mins has 50 rows and maxs 49", bp.find_pairs, MINS, MAXS[:49])
    assert bp.n is None, "a refused call leaves no state behind"


@pytest.mark.parametrize("name", collide.algorithms())
def test_nan_infinite_and_inverted_boxes_are_refused_by_index_before_any_algorithm(name):
    bp = collide.Broadphase(name)
    for corner, axis, value, match in [
        ("mins", 1, np.nan, r"box 7 has a NaN coordinate"),
        ("maxs", 2, np.inf, r"box 7 has a infinite coordinate"),
        ("mins", 0, -np.inf, r"box 7 has a infinite coordinate"),
        ("maxs", 0, -5.0, r"box 7 has min > max on the x axis"),
    ]:
        mins, maxs = MINS.copy(), MAXS.copy()
        (mins if corner == "mins" else maxs)[7, axis] = value
        raises(match, bp.find_pairs, mins, maxs)
    mins, maxs = MINS.copy(), MAXS.copy()
    mins[49, 2] = maxs[49, 2] + 1e-3
    raises(r"box 49 has min > max on the z axis", bp.find_pairs, mins, maxs)
    # After every refusal the broadphase still answers right.
    assert len(bp.find_pairs(MINS, MAXS)) == len(collide.Broadphase("brute").find_pairs(MINS, MAXS))


def test_a_body_count_that_changes_without_resize_is_refused():
    bp = collide.Broadphase("sap")
    bp.find_pairs(MINS, MAXS)
    raises(r"49 boxes, but the last call had 50 bodies: .* resize\(old_to_new, new_len\)", bp.find_pairs, MINS[:49], MAXS[:49])
    bp.reset()
    assert bp.n is None
    assert bp.find_pairs(MINS[:49], MAXS[:49]).shape[1] == 2


def test_bad_resize_maps_are_refused_and_change_nothing():
    bp = collide.Broadphase("bvh-dynamic")
    raises(r"resize before the first find_pairs", bp.resize, list(range(50)), 50)
    bp.find_pairs(MINS, MAXS)
    raises(r"old_to_new has 49 entries: it needs one per body of the last call \(50\)", bp.resize, list(range(49)), 50)
    raises(r"old_to_new\[3\] = 60: a new index must be in 0..50", bp.resize, [0, 1, 2, 60] + list(range(4, 50)), 50)
    raises(r"old_to_new\[0\] = -2", bp.resize, [-2] + list(range(1, 50)), 50)
    raises(r"maps two old bodies to new index 1", bp.resize, [1, 1] + list(range(2, 50)), 50)
    raises(r"old_to_new must be a sequence of integers", bp.resize, "abc", 50)
    assert bp.n == 50
    bp.resize(np.arange(50), 50)


def test_a_broken_motion_hint_is_refused_and_a_bad_one_named():
    bp = collide.Broadphase("octree-dup")
    still = np.zeros(50, bool)
    bp.find_pairs(MINS, MAXS, still)  # the first call: nothing seen yet, every box counts as moved
    moved_maxs = MAXS.copy()
    moved_maxs[12, 0] += 0.25
    raises(r"moved\[12\] is False but box 12 changed", bp.find_pairs, MINS, moved_maxs, still)
    raises(r"moved must be a bool numpy array of shape \(50,\).* got a int64 array", bp.find_pairs, MINS, MAXS, np.zeros(50, np.int64))
    raises(r"moved must be a bool .* shape \(49,\)", bp.find_pairs, MINS, MAXS, still[:49])
    hint = still.copy()
    hint[12] = True
    assert len(bp.find_pairs(MINS, moved_maxs, hint)) == len(collide.Broadphase("brute").find_pairs(MINS, moved_maxs))


def test_unknown_algorithms_and_parameters_are_named_with_the_valid_ones():
    raises(r"unknown algorithm `octtree`; valid algorithms: brute, octree-dup", collide.Broadphase, "octtree")
    raises(r"octree-dup: unknown parameter `leaf`; valid parameters: max_leaf", collide.Broadphase, "octree-dup", leaf=3)
    raises(r"octree-dup: `max_leaf` = 0.5 is out of range: expected a whole number", collide.Broadphase, "octree-dup", max_leaf=0.5)
    raises(r"`max_leaf` must be a number", collide.Broadphase, "octree-dup", max_leaf="many")
    raises(r"a bool is not a parameter value", collide.Broadphase, "octree-dup", static_split=True)
    raises(r"`candidates`: `octtree` is not a candidate", collide.Broadphase, "auto", candidates=["sap", "octtree"])
    raises(r"unknown algorithm `nope`", collide.describe, "nope")
    auto = collide.Broadphase("auto", candidates=["sap", "grid"], margin=0.2)
    auto.find_pairs(MINS, MAXS)
    assert auto.active_name in ("sap", "grid")
    assert collide.Broadphase("octree-dup", max_leaf=16).name == "octree-dup"


def test_the_gil_is_released_while_it_works():
    """While one thread is inside find_pairs, another runs Python and finds the object busy: that can only happen
    when the call released the GIL with its lock held (a call holding the GIL never lets the other thread run)."""
    centres = np.random.default_rng(2).uniform(0, 40, (6000, 3)).astype(np.float32)
    bp = collide.Broadphase("brute")
    busy = 0
    for _ in range(5):
        worker = threading.Thread(target=bp.find_pairs, args=(centres - 0.5, centres + 0.5))
        worker.start()
        while worker.is_alive():
            try:
                bp.n
            except RuntimeError as e:
                assert "busy in another thread" in str(e)
                busy += 1
        worker.join()
        if busy:
            break
    assert busy > 0


def test_a_refused_call_leaves_the_motion_hint_usable():
    # The broadphase never saw the refused boxes: the next call may pass the last good ones with "nothing moved",
    # and after a resize too, and the answer is brute force's.
    brute = len(collide.Broadphase("brute").find_pairs(MINS, MAXS))
    for resize in (False, True):
        bp = collide.Broadphase("bvh-dynamic")
        bp.find_pairs(MINS, MAXS)
        bad = MINS.copy()
        bad[3, 0] = np.nan
        raises(r"box 3 has a NaN coordinate", bp.find_pairs, bad, MAXS)
        if resize:
            bp.resize(np.arange(50), 50)
        assert len(bp.find_pairs(MINS, MAXS, np.zeros(50, bool))) == brute
