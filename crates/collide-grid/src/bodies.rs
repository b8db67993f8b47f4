//! The body pass: each body's box read once, checked, its cells and level computed, and its sweep record written
//! once, for the bucket of its min corner's cell at its level. The frame's only pass over the caller's boxes;
//! everything after it reads the records.
//!
//! The bodies are cut into chunks, one task each; a chunk writes its entries into one vector per partition of
//! its own, so chunks never share a buffer, and a partition later reads its vector of every chunk in chunk order
//! (`part.rs`).

use crate::part::Entry;
use crate::plan::{MAX_LEVELS, Plan, is_valid, natural_level, small_at};
use collide_broadphase::sweep::SweepBox;
use collide_broadphase::{Aabb, InvalidBoxes, Tally};
use std::ops::Range;

/// A chunk of bodies and the entries it wrote, one vector per partition (kept across frames).
#[derive(Clone, Debug, Default)]
pub struct BodyChunk {
    /// The bodies of this chunk.
    pub bodies: Range<usize>,
    /// `parts[p]`: the entries of this chunk's bodies for partition `p`, in body order.
    pub parts: Vec<Vec<Entry>>,
    /// Bodies whose box is invalid (non-finite or inverted), left out.
    pub invalid: u64,
    /// The natural levels of its bodies (bit `l`).
    pub natural: u32,
    /// The boxes read and entries written.
    pub tally: Tally,
    /// `corners[l]`: the bounds of the min corners of this chunk's bodies of level `l`, for the levels the plan
    /// cuts into cubes (`plan.cut`; empty for the others), so that the cubes' build need not read its entries
    /// once more for them (`cubes.rs`).
    pub corners: [Corners; MAX_LEVELS],
}

/// The bounds of some bodies' min corners: their level-0 cells on y and z, and `min.x`. Empty by default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Corners {
    /// The lowest and highest level-0 cell of a min corner, `[y, z]`.
    pub low: [i32; 2],
    pub high: [i32; 2],
    /// The lowest and highest `min.x`.
    pub x_low: f32,
    pub x_high: f32,
}

impl Default for Corners {
    fn default() -> Self {
        Self { low: [i32::MAX; 2], high: [i32::MIN; 2], x_low: f32::INFINITY, x_high: f32::NEG_INFINITY }
    }
}

impl Corners {
    /// Add a body whose min corner's level-0 cells are `cell` (`[y, z]`) and whose `min.x` is `x`.
    #[inline(always)]
    pub fn add(&mut self, cell: [i32; 2], x: f32) {
        self.low = [self.low[0].min(cell[0]), self.low[1].min(cell[1])];
        self.high = [self.high[0].max(cell[0]), self.high[1].max(cell[1])];
        (self.x_low, self.x_high) = (self.x_low.min(x), self.x_high.max(x));
    }

    /// The bounds of both sets of bodies.
    #[must_use]
    pub fn union(self, other: Self) -> Self {
        Self {
            low: [self.low[0].min(other.low[0]), self.low[1].min(other.low[1])],
            high: [self.high[0].max(other.high[0]), self.high[1].max(other.high[1])],
            x_low: self.x_low.min(other.x_low),
            x_high: self.x_high.max(other.x_high),
        }
    }
}

impl BodyChunk {
    /// Read the chunk's boxes of `aabbs` and write their entries into `parts`, one vector per partition of
    /// `plan`. `policy`: the frame's, whether an invalid box panics naming the body or is left out. A body whose
    /// level is not present in the plan is left out too, and shows in `natural`: the caller plans again and
    /// repeats the pass.
    pub fn scatter(&mut self, aabbs: &[Aabb], plan: &Plan, policy: InvalidBoxes) {
        let parts = plan.parts();
        if self.parts.len() < parts {
            self.parts.resize_with(parts, Vec::new);
        }
        self.parts.iter_mut().for_each(Vec::clear);
        let (mut invalid, mut natural) = (0, 0u32);
        let (cells, present, cut) = (&plan.cells, plan.present, plan.cut);
        self.corners = [Corners::default(); MAX_LEVELS];
        let corners = &mut self.corners;
        // The common frame: one level, level 0, where every body of natural level 0 lives. Its constants in
        // registers, and such a body placed without the general path's lookups.
        let single = present == 1 && plan.map[0] == 0;
        let level0 = plan.levels[0];
        // Plain slices in the loop: through the vector, every push reloaded its pointer.
        let out = &mut self.parts[..parts];
        for i in self.bodies.clone() {
            let b = &aabbs[i];
            if !is_valid(b) {
                policy.reject(i, b);
                invalid += 1;
                continue;
            }
            let c = cells.of_box([b.min.y, b.min.z], [b.max.y, b.max.z]);
            if single && small_at(c, 0) {
                natural |= 1;
                if cut & 1 == 1 {
                    corners[0].add([c.x, c.y], b.min.x);
                }
                let (part, bucket) = level0.locate(c.x, c.y);
                out[part].push(Entry { record: SweepBox::on::<0>(b, i as u32), bucket: bucket as u32 });
                continue;
            }
            let nl = natural_level(c);
            natural |= 1 << nl;
            let level = usize::from(plan.map[nl]);
            if present >> level & 1 == 0 {
                continue;
            }
            if cut >> level & 1 == 1 {
                corners[level].add([c.x, c.y], b.min.x);
            }
            let (part, bucket) = plan.levels[level].locate(c.x >> level, c.y >> level);
            out[part].push(Entry { record: SweepBox::on::<0>(b, i as u32), bucket: bucket as u32 });
        }
        (self.invalid, self.natural) = (invalid, natural);
        // Per body a box read (24 B); per entry 32 B written.
        let n = self.bodies.len() as u64;
        let entries = n - invalid;
        self.tally = Tally::work(n + entries, n * 24 + entries * 32);
    }
}

#[cfg(test)]
mod tests;
