"""One round of the bench's `python` study (xtask/src/bench/python.rs starts it; not for people).

    python python_study.py FILE.aabbs WARM OUT.tsv NAME...

Reads every frame of FILE (a scene of equal spheres: the boxes are cubes of side 2r), then times per frame,
around the call alone, on the same arrays:
- `ckdtree-spheres`: scipy.spatial.cKDTree(centres).query_pairs(2r) — the sphere pairs, what a Python user runs;
- `ckdtree-boxes`: the same with radius 2r·√3, filtered to the pairs whose boxes overlap: the exact box pairs,
  collide's answer;
- for each NAME, PLAYS plays on each side, in turn which first: from Python, collide.Broadphase(NAME).find_pairs
  (mins, maxs) on every frame in order, a fresh broadphase each play; from Rust, the same algorithm playing the same
  file inside this process (`collide._collide._play_from_rust`), so that both sides meet the same machine within a
  second of each other.
The first WARM frames are run but not timed. Every frame's collide pairs from Python are checked against
`ckdtree-boxes` (an independent answer) after the timed frames, which run back to back as they do from Rust; the
Rust side's pair counts are checked against it too. Writes one line per contender, side and timed frame to OUT:
`contender <TAB> side <TAB> frame <TAB> ms <TAB> pairs <TAB> check <TAB> active` (side: `python` or `rust`;
check: `ok` or what differs; active: the algorithm that answered the frame, for `auto` the candidate it ran;
cKDTree's lines say `ckdtree`).
"""

import sys
import time

import numpy as np
from scipy.spatial import cKDTree

import collide
from collide import _collide

# Plays per side and NAME, in turn which side first (neither always follows the other's cache traffic): four, as a
# play is a tenth of a second and the machine's speed drifts within seconds.
PLAYS = 4


def box_pairs_through_ckdtree(centres, mins, maxs, r):
    tree = cKDTree(centres)
    candidates = tree.query_pairs(2.0 * r * np.sqrt(3.0) * (1.0 + 1e-6), output_type="ndarray")
    i, j = candidates[:, 0], candidates[:, 1]
    keep = np.all((mins[i] <= maxs[j]) & (maxs[i] >= mins[j]), axis=1)
    return candidates[keep]


def sphere_pairs_through_ckdtree(centres, r):
    return cKDTree(centres).query_pairs(2.0 * r, output_type="ndarray")


def sorted_pairs(pairs):
    pairs = np.sort(np.asarray(pairs, dtype=np.int64).reshape(-1, 2), axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def play_from_python(name, frames, exact, warm):
    bp = collide.Broadphase(name)
    # The frames back to back, as the Rust side plays them (and as an engine calls its broadphase once a frame):
    # the check, which sorts every frame's pairs, runs after the timed loop so that it neither evicts the
    # broadphase's structures from the caches nor lets the thread pool fall asleep between calls.
    answers = []
    for mins, maxs in frames:
        t = time.perf_counter()
        pairs = bp.find_pairs(mins, maxs)
        ms = (time.perf_counter() - t) * 1e3
        answers.append((ms, pairs, bp.active_name))
    lines = []
    for f, (ms, pairs, active) in enumerate(answers):
        got = sorted_pairs(pairs)
        check = "ok" if np.array_equal(got, exact[f]) else f"MISMATCH {len(got)} pairs, the exact set has {len(exact[f])}"
        if f >= warm or check != "ok":
            lines.append(f"{name}\tpython\t{f}\t{ms:.6f}\t{len(pairs)}\t{check}\t{active}")
    return lines


def play_from_rust(name, path, exact, warm):
    lines = []
    for f, (ms, pairs, active) in enumerate(_collide._play_from_rust(path, name, warm), start=warm):
        check = "ok" if pairs == len(exact[f]) else f"MISMATCH {pairs} pairs, the exact set has {len(exact[f])}"
        lines.append(f"{name}\trust\t{f}\t{ms:.6f}\t{pairs}\t{check}\t{active}")
    return lines


def main():
    path, warm, out_path, names = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    frames = list(collide.read_aabbs(path))
    half = (frames[0][1] - frames[0][0]) / 2.0
    r = float(half[0, 0])
    if not np.allclose(half, r, rtol=1e-5):
        sys.exit(f"{path}: the boxes are not cubes of one size: not a scene of equal spheres")
    centres = [((mins + maxs) / 2.0).astype(np.float64) for mins, maxs in frames]
    lines = []
    exact = []
    for f, (mins, maxs) in enumerate(frames):
        t = time.perf_counter()
        pairs = box_pairs_through_ckdtree(centres[f], mins, maxs, r)
        ms = (time.perf_counter() - t) * 1e3
        exact.append(sorted_pairs(pairs))
        if f >= warm:
            lines.append(f"ckdtree-boxes\tpython\t{f}\t{ms:.6f}\t{len(pairs)}\tok\tckdtree")
    for f in range(len(frames)):
        t = time.perf_counter()
        pairs = sphere_pairs_through_ckdtree(centres[f], r)
        ms = (time.perf_counter() - t) * 1e3
        if f >= warm:
            lines.append(f"ckdtree-spheres\tpython\t{f}\t{ms:.6f}\t{len(pairs)}\tok\tckdtree")
    for name in names:
        for play in range(PLAYS):
            sides = ("python", "rust") if play % 2 == 0 else ("rust", "python")
            for side in sides:
                if side == "python":
                    lines.extend(play_from_python(name, frames, exact, warm))
                else:
                    lines.extend(play_from_rust(name, path, exact, warm))
    with open(out_path, "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
