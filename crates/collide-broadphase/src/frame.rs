use crate::invalid::InvalidBoxes;
use collide_math::Aabb;

/// What a broadphase is given each step. It grows as algorithms need more context (velocities for swept
/// boxes, …); construct it with [`Frame::new`] and the `with_*` methods so that new fields do not break
/// callers.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Frame<'a> {
    /// This step's boxes, indexed like last step's (unless a [`Resize`] came in between).
    pub aabbs: &'a [Aabb],
    /// The step number, counting from 0.
    pub step: u64,
    /// The simulated time step in seconds that moved the bodies to these boxes.
    pub dt: f32,
    /// An optional hint of which boxes changed since the previous call (see [`Frame::with_moved`]).
    pub moved: Option<&'a [bool]>,
    /// What an invalid box makes the broadphase do (see [`Frame::with_invalid_boxes`]).
    pub invalid_boxes: InvalidBoxes,
    /// An optional hint of how fast the bodies move (see [`Frame::with_speed`]).
    pub speed: Option<f32>,
}

impl<'a> Frame<'a> {
    /// A frame of `aabbs` at step 0 with `dt = 1/60`.
    #[must_use]
    pub fn new(aabbs: &'a [Aabb]) -> Self {
        Self { aabbs, step: 0, dt: 1.0 / 60.0, moved: None, invalid_boxes: InvalidBoxes::DEFAULT, speed: None }
    }

    /// The same frame at step `step`.
    #[must_use]
    pub fn with_step(mut self, step: u64) -> Self {
        self.step = step;
        self
    }

    /// The same frame with time step `dt`.
    #[must_use]
    pub fn with_dt(mut self, dt: f32) -> Self {
        self.dt = dt;
        self
    }

    /// The same frame with a motion hint, one flag per body: `moved[i] == false` **promises** that `aabbs[i]` is
    /// bit for bit ([`same_bits`]) the box body `i` had in the previous call (same index; after an
    /// [`on_resize`](crate::Broadphase::on_resize), the index of the new numbering, and a body added since is
    /// marked moved). `true` promises nothing: a caller may mark bodies conservatively.
    ///
    /// A simulation knows this for free while it builds the boxes (it is writing them anyway); an algorithm that
    /// keeps resting bodies apart (the octree's static tree) reads `n` flags instead of copying and comparing `n`
    /// boxes. Algorithms may ignore it, and must stay correct when it is absent.
    ///
    /// Panics when `moved` and `aabbs` differ in length: a hint for other bodies would be a wrong promise.
    #[must_use]
    pub fn with_moved(mut self, moved: &'a [bool]) -> Self {
        assert_eq!(moved.len(), self.aabbs.len(), "the motion hint needs one flag per box");
        self.moved = Some(moved);
        self
    }

    /// The same frame with a speed hint: the bodies' typical displacement per call over their box's size (its
    /// longest side) — 0.5 for the thesis's scene, below 0.01 for a slow drift. A caller that knows its bodies'
    /// velocities (a simulation: `|v|·dt / size`, averaged over a sample) gives it; nobody is bound by it and
    /// every algorithm stays correct without it or with a wrong one.
    ///
    /// The boxes of one call say nothing of speed, so without the hint the meta-broadphase learns it from the
    /// displacement between its first two calls; with it, the first call can already build the structure that
    /// suits the scene's speed (a dynamic tree for a slow drift) instead of a cheap one to be replaced. A
    /// non-finite or negative hint is ignored.
    #[must_use]
    pub fn with_speed(mut self, speed: f32) -> Self {
        self.speed = (speed.is_finite() && speed >= 0.0).then_some(speed);
        self
    }

    /// The same frame with `policy` for invalid boxes (non-finite, or `min > max` on an axis): panic naming the
    /// body ([`InvalidBoxes::Panic`], the default in debug builds) or treat the box as overlapping nothing
    /// ([`InvalidBoxes::OverlapNothing`], the default in release builds). See the [invalid-box
    /// contract](crate::invalid).
    #[must_use]
    pub fn with_invalid_boxes(mut self, policy: InvalidBoxes) -> Self {
        self.invalid_boxes = policy;
        self
    }

    /// An algorithm met body `body`'s invalid box and leaves the body out of its structure: under
    /// [`InvalidBoxes::Panic`] this panics with a message naming the body and its box; under
    /// [`InvalidBoxes::OverlapNothing`] it returns and the body overlaps nothing. Out of line: the hot loops that
    /// call it only pay for the branch that leads here.
    #[cold]
    #[inline(never)]
    #[track_caller]
    pub fn reject_invalid(&self, body: usize) {
        self.invalid_boxes.reject(body, &self.aabbs[body]);
    }

    /// The number of bodies.
    #[must_use]
    pub fn len(&self) -> usize {
        self.aabbs.len()
    }

    /// `true` when there are no bodies.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.aabbs.is_empty()
    }
}

/// `true` when `a` and `b` are the same box bit for bit: the comparison a `false` in the motion hint promises
/// ([`Frame::with_moved`]). Stricter than `==` on floats: `-0.0` and `+0.0` differ here, which can only make a
/// body look moved, never hide a move.
#[inline]
#[must_use]
pub fn same_bits(a: &Aabb, b: &Aabb) -> bool {
    a.min.x.to_bits() == b.min.x.to_bits()
        && a.min.y.to_bits() == b.min.y.to_bits()
        && a.min.z.to_bits() == b.min.z.to_bits()
        && a.max.x.to_bits() == b.max.x.to_bits()
        && a.max.y.to_bits() == b.max.y.to_bits()
        && a.max.z.to_bits() == b.max.z.to_bits()
}

/// Bodies were added, removed or renumbered: how old indices map to new ones.
///
/// `old_to_new[i]` is body `i`'s new index, or [`Resize::REMOVED`]. Every new index that no old index maps
/// to is a body added since the last call; its box arrives with the next frame. New indices are dense:
/// `0..new_len`.
///
/// # Permutations
///
/// A resize that removes and adds nothing is a **permutation** ([`Resize::is_permutation`]): `old_to_new` is a
/// bijection of `0..n` and every body keeps its box, under a new index. The simulation sends one every few hundred
/// steps, when it sorts its bodies along a space-filling curve so that bodies near each other in space sit near
/// each other in memory. A permutation must be remapped in O(n), not rebuilt, with no allocation once warm: an
/// incremental structure renames the bodies it holds (its trees, pair caches, sorted arrays and per-body state
/// stay as they are, only their indices change) and its next frame costs what a frame without the reorder would.
/// [`Resize::permute`] reorders a per-body array through a kept scratch buffer.
#[derive(Clone, Copy, Debug)]
pub struct Resize<'a> {
    /// For each old index, its new index or [`Resize::REMOVED`].
    pub old_to_new: &'a [u32],
    /// The body count after the change.
    pub new_len: usize,
}

impl Resize<'_> {
    /// Marks a removed body in [`Resize::old_to_new`].
    pub const REMOVED: u32 = u32::MAX;

    /// The body count before the change.
    #[must_use]
    pub fn old_len(&self) -> usize {
        self.old_to_new.len()
    }

    /// `true` when the resize only renumbers the bodies: as many after as before, and none removed (so none
    /// added). With the injectivity [`Resize::check`] verifies, `old_to_new` is then a bijection of `0..n` (see
    /// [Permutations](Resize#permutations)). O(n), allocates nothing.
    #[must_use]
    pub fn is_permutation(&self) -> bool {
        self.old_len() == self.new_len && !self.old_to_new.contains(&Self::REMOVED)
    }

    /// Reorder `values`, one per old body, into the new numbering: `values[old]` moves to `old_to_new[old]`.
    /// Goes through `scratch`, which is swapped in: both keep their allocations, so a warm caller that keeps its
    /// scratch allocates nothing. O(n).
    ///
    /// Panics unless this is a permutation of `values.len()` bodies.
    pub fn permute<T: Clone>(&self, values: &mut Vec<T>, scratch: &mut Vec<T>) {
        assert!(
            self.is_permutation() && values.len() == self.old_len(),
            "permute needs a permutation of {} bodies, got a map of {} to {}",
            values.len(),
            self.old_len(),
            self.new_len
        );
        // Every slot is overwritten below: the copy only gives `scratch` the length without a default value.
        scratch.clone_from(values);
        for (old, &new) in self.old_to_new.iter().enumerate() {
            scratch[new as usize] = values[old].clone();
        }
        std::mem::swap(values, scratch);
    }

    /// The new indices of bodies that did not exist before, ascending. O(old + new); allocates (resizes are
    /// rare events, not per-frame work).
    #[must_use]
    pub fn added(&self) -> Vec<u32> {
        let mut kept = vec![false; self.new_len];
        for &n in self.old_to_new {
            if n != Self::REMOVED {
                kept[n as usize] = true;
            }
        }
        (0..self.new_len as u32).filter(|&i| !kept[i as usize]).collect()
    }

    /// The number of removed bodies.
    #[must_use]
    pub fn removed_count(&self) -> usize {
        self.old_to_new.iter().filter(|&&n| n == Self::REMOVED).count()
    }

    /// Check that the map is injective and inside `0..new_len` (tests and debug builds).
    pub fn check(&self) -> Result<(), String> {
        let mut seen = vec![false; self.new_len];
        for (old, &new) in self.old_to_new.iter().enumerate() {
            if new == Self::REMOVED {
                continue;
            }
            let slot = seen
                .get_mut(new as usize)
                .ok_or_else(|| format!("old body {old} maps to {new}, outside 0..{}", self.new_len))?;
            if std::mem::replace(slot, true) {
                return Err(format!("two old bodies map to new index {new}"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
