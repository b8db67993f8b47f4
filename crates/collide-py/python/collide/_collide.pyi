"""Type stubs of collide's extension module (re-exported by ``collide``)."""

from collections.abc import Iterator, Sequence
from os import PathLike
from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt

__version__: str

def algorithms() -> list[str]:
    """The registered algorithm names, in the registry's order (``brute`` first, ``auto`` last)."""

def describe(name: str) -> dict[str, Any]:
    """One algorithm's ``name``, ``summary`` and ``params`` (each with its description, and a number's
    ``default``, ``min``, ``max`` and ``integer``, or a list's ``choices``). Unknown names raise ``ValueError``."""

class Broadphase:
    """A broadphase by registry name, with its state kept between calls (frames).

    ``Broadphase(name="auto", **params)``: ``params`` are the algorithm's parameters (``collide.describe(name)``),
    numbers or, for ``auto``'s ``candidates``, a list of names. Unknown names, unknown parameters and values out of
    range raise ``ValueError`` naming them.
    """

    def __init__(self, name: str = "auto", **params: float | int | str | Sequence[str]) -> None: ...
    @property
    def name(self) -> str:
        """The registry name it was built with."""
    @property
    def active_name(self) -> str:
        """The algorithm that answered the last call (for ``auto``: the candidate it ran)."""
    @property
    def n(self) -> int | None:
        """The body count the next call must have; ``None`` before the first call and after ``reset()``."""
    def find_pairs(
        self,
        mins: npt.NDArray[np.float32],
        maxs: npt.NDArray[np.float32],
        moved: npt.NDArray[np.bool_] | None = None,
    ) -> npt.NDArray[np.uint32]:
        """Every overlapping pair of boxes as an ``(m, 2)`` uint32 array, smaller index first, each pair once, in
        no particular order. ``mins`` and ``maxs`` are ``(n, 3)`` float32 arrays (body ``i`` is the same body from
        call to call unless ``resize`` said otherwise). ``moved``: an optional ``(n,)`` bool array; ``False`` at
        ``i`` promises box ``i`` is bit for bit the previous call's (checked). The GIL is released while it works.

        Raises ``ValueError`` for a wrong shape or dtype, a NaN or infinite coordinate, ``min > max``, a body count
        that changed without ``resize``, or a broken ``moved`` promise."""
    def resize(self, old_to_new: Sequence[int] | npt.NDArray[np.integer[Any]], new_len: int) -> None:
        """Bodies were added or removed since the last call: ``old_to_new[i]`` is old body ``i``'s new index or
        -1 when removed; new indices nothing maps to are added bodies."""
    def reset(self) -> None:
        """Forget every earlier frame; the next call may have any body count."""
    def stats(self) -> dict[str, float]:
        """The last call's counters (``pair_tests``, ``work``, ``bytes_touched`` and the algorithm's own)."""

class AabbsHeader(TypedDict):
    scene_name: str
    objects_type: str
    n: int
    frames: int
    world_min: tuple[float, float, float]
    world_max: tuple[float, float, float]

class AabbsFile(Iterator[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]):
    """An open ``.aabbs`` file: its ``header``, ``len()`` frames, and its frames as ``(mins, maxs)`` pairs of
    ``(n, 3)`` float32 arrays, read one at a time."""

    @property
    def header(self) -> AabbsHeader: ...
    @property
    def n(self) -> int: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> AabbsFile: ...
    def __next__(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...

def read_aabbs(path: str | PathLike[str]) -> AabbsFile:
    """Open a Broadmark ``.aabbs`` file: the header is checked at once, frames are read and checked as iterated.
    A missing file raises ``OSError``; a malformed one ``ValueError`` naming the file, frame and box."""

