"""collide.read_aabbs: Broadmark's .aabbs files, written here byte by byte from the format's description, read
back; the committed rapier fixtures played into every algorithm; bad files named."""

import pathlib
import struct

import numpy as np
import pytest

import collide
from conftest import assert_same_pairs

FIXTURES = pathlib.Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "aabbs"


def write_aabbs(path, frames, world=((-10, -10, -10), (10, 10, 10)), name=b"pytest scene", kind=b"Cubes"):
    """The format, little-endian: 128-byte scene name, 128-byte object type, i32 n, i32 frames - 1, two i32
    paddings of 0, the world box as min xyz 0, max xyz 0; then per frame n boxes of min xyz 0, max xyz 0."""
    n = len(frames[0][0])
    with open(path, "wb") as f:
        f.write(name.ljust(128, b"\0") + kind.ljust(128, b"\0"))
        f.write(struct.pack("<iiii", n, len(frames) - 1, 0, 0))
        f.write(struct.pack("<8f", *world[0], 0, *world[1], 0))
        for mins, maxs in frames:
            block = np.zeros((n, 8), np.float32)
            block[:, 0:3], block[:, 4:7] = mins, maxs
            f.write(block.astype("<f4").tobytes())


def test_a_written_file_reads_back_bit_for_bit(tmp_path):
    rng = np.random.default_rng(4)
    frames = []
    for _ in range(4):
        mins = rng.uniform(-9, 8, (300, 3)).astype(np.float32)
        frames.append((mins, mins + rng.uniform(0, 1, (300, 3)).astype(np.float32)))
    path = tmp_path / "scene.aabbs"
    write_aabbs(path, frames)
    f = collide.read_aabbs(path)
    assert f.header == {
        "scene_name": "pytest scene", "objects_type": "Cubes", "n": 300, "frames": 4,
        "world_min": (-10.0, -10.0, -10.0), "world_max": (10.0, 10.0, 10.0),
    }
    assert len(f) == 4 and f.n == 300
    read = list(f)
    assert len(read) == 4
    for (mins, maxs), (m0, x0) in zip(read, frames):
        assert mins.dtype == np.float32 and mins.shape == (300, 3)
        assert np.array_equal(mins, m0) and np.array_equal(maxs, x0)
    assert next(iter(f), None) is None


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.glob("*.aabbs")))
def test_the_rapier_fixtures_play_into_every_algorithm_against_brute_force(fixture):
    names = collide.algorithms()
    broadphases = {name: collide.Broadphase(name) for name in names}
    f = collide.read_aabbs(FIXTURES / fixture)
    assert f.header["n"] == 200 and len(f) >= 30
    for frame, (mins, maxs) in enumerate(f):
        for name, bp in broadphases.items():
            assert_same_pairs(bp.find_pairs(mins, maxs), mins, maxs, f"{name} on {fixture}, frame {frame}")


def test_there_are_fixtures_to_play():
    assert len(list(FIXTURES.glob("*.aabbs"))) == 4


def test_missing_and_bad_files_are_named(tmp_path):
    with pytest.raises(OSError, match="no-such.aabbs"):
        collide.read_aabbs(tmp_path / "no-such.aabbs")
    short = tmp_path / "short.aabbs"
    short.write_bytes(b"\0" * 100)
    with pytest.raises(ValueError, match="short.aabbs.*304"):
        collide.read_aabbs(short)
    good = [(np.zeros((10, 3), np.float32), np.ones((10, 3), np.float32))] * 3
    truncated = tmp_path / "truncated.aabbs"
    write_aabbs(truncated, good)
    truncated.write_bytes(truncated.read_bytes()[:-40])
    with pytest.raises(ValueError, match="truncated.aabbs"):
        collide.read_aabbs(truncated)
    nan = tmp_path / "nan.aabbs"
    bad_mins = np.zeros((10, 3), np.float32)
    bad_mins[6, 1] = np.nan
    write_aabbs(nan, [good[0], (bad_mins, np.ones((10, 3), np.float32))])
    f = collide.read_aabbs(nan)
    next(f)
    with pytest.raises(ValueError, match=r"nan.aabbs: frame 1, box 6"):
        next(f)
    padding = tmp_path / "padding.aabbs"
    write_aabbs(padding, good)
    raw = bytearray(padding.read_bytes())
    raw[264:268] = struct.pack("<i", 7)
    padding.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="padding"):
        collide.read_aabbs(padding)


def test_the_bench_plays_a_file_from_rust_frame_by_frame_with_brute_force_pair_counts(tmp_path):
    """`_collide._play_from_rust`, the bench's `python` study's Rust side: every frame after `warm`, in order, with
    the pair count of the oracle and the algorithm that answered it; an unknown name is a ValueError, a
    missing file an OSError."""
    from collide import _collide
    from conftest import oracle_pairs

    rng = np.random.default_rng(9)
    frames = []
    centres = rng.uniform(-8, 8, (400, 3)).astype(np.float32)
    for _ in range(5):
        centres = centres + rng.normal(0, 0.2, (400, 3)).astype(np.float32)
        frames.append((centres - 0.6, centres + 0.6))
    path = tmp_path / "scene.aabbs"
    write_aabbs(path, frames, world=((-12, -12, -12), (12, 12, 12)))
    for name in ["kd", "grid", "auto"]:
        played = _collide._play_from_rust(str(path), name, 2)
        assert len(played) == 3, name
        for (ms, pairs, active), (mins, maxs) in zip(played, frames[2:]):
            assert ms > 0.0, name
            assert pairs == len(oracle_pairs(mins, maxs)), name
            assert active in collide.algorithms() and active != "auto", (name, active)
    with pytest.raises(ValueError, match="octopus"):
        _collide._play_from_rust(str(path), "octopus", 0)
    with pytest.raises(OSError, match="nothing.aabbs"):
        _collide._play_from_rust(str(tmp_path / "nothing.aabbs"), "kd", 0)
