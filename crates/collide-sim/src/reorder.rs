//! Spatial reordering of the bodies: every `reorder_every` steps the body columns are sorted along a Morton
//! curve of the bodies' cells, so that bodies near each other in space sit near each other in memory.
//!
//! At 10⁶ bodies the step is bound by memory latency, not arithmetic: a grid's body pass scatters entries into
//! cells, and every narrowphase and resolution read of a pair's two bodies misses the cache, because spawn order
//! is random in space. Particle codes keep their particles in spatial order for this reason (LAMMPS sorts
//! atoms every 1000 steps, HOOMD-blue re-packs them along a Hilbert curve, GROMACS and the SPH codes sort by
//! cell). Bodies move slowly against their size, so an order stays good for many steps and one sort is paid
//! over all of them.
//!
//! Identities survive through [`Bodies::id`]: a body's id moves with it, and everything a user sees goes by id
//! (the state hash, recordings, the app's colours and flashes). The broadphase hears a permutation through its
//! [`on_resize`](collide_broadphase::Broadphase::on_resize): `old_to_new` a bijection, `new_len` unchanged, which
//! an incremental algorithm remaps in O(n) instead of rebuilding.
//!
//! # The order
//!
//! The container is cut into `2^b` cells a side, `b` chosen from the body count so that a cell holds about 8–64
//! bodies (at 10⁶ bodies, 32 cells a side: cells of about 30 bodies, 1.3 KB of a sphere's columns, a few cache
//! lines). Bodies are sorted by the Morton code of their cell with a stable counting sort: within a cell they
//! keep the order they had, which the previous sort made spatial already, so a later sort moves only the bodies
//! that changed cells and the permutation is nearly the identity. The sort depends on the positions and the
//! current order alone: every broadphase and thread count gets the same permutation. Bodies outside the
//! container take the nearest cell; a NaN takes cell 0.
//!
//! # Complexity and memory
//!
//! A reorder is O(n + cells): the cell of each body (in parallel), a histogram, a prefix sum and a scatter of
//! indices, then each column gathered into the step's box buffer (24 bytes a body, rebuilt by the step right
//! after, so lending it costs no memory) and copied back, in parallel chunks. Nothing allocates once warm. It
//! keeps 8 bytes per body (the permutation both ways, whose first half holds the cells while sorting) and 4 bytes
//! per cell; the ids are 4 more ([`Bodies::id`]).

use crate::Bodies;
use collide_broadphase::Parallelism;
use collide_math::{Aabb, Vec3};
use collide_narrowphase::Shape;
use rayon::prelude::*;

/// Bodies per cell the cell count aims at, at least (a cell holds up to 8× this).
const BODIES_PER_CELL: usize = 8;

/// Bits per axis of the cells at most: 2²¹ cells, a histogram of 8 MB, at about 10⁷ bodies.
const MAX_BITS: u32 = 7;

/// The reorder's schedule and buffers.
#[derive(Debug, Default)]
pub struct Reorder {
    /// Steps between two reorders; 0: never.
    every: u32,
    /// The container, whose cells the bodies are sorted by.
    container: Aabb,
    /// The permutation both ways, `2n` words: new → old, then old → new (while sorting, the first half holds each
    /// body's cell).
    words: Vec<u32>,
    /// Per cell, in Morton order: its bodies, then where its next body goes.
    cells: Vec<u32>,
}

impl Reorder {
    /// Reorder every `every` steps (0: never) bodies in `container`.
    #[must_use]
    pub fn new(every: u32, container: &Aabb) -> Self {
        Self { every, container: *container, words: Vec::new(), cells: Vec::new() }
    }

    /// Bits per axis of the cells for `n` bodies: `2^(3b)` cells of 8–64 bodies, between 1 and 7.
    #[must_use]
    pub fn bits(n: usize) -> u32 {
        let cells = (n / BODIES_PER_CELL).max(1);
        (cells.ilog2() / 3).clamp(1, MAX_BITS)
    }

    /// Steps between two reorders; 0: never.
    #[must_use]
    pub fn every(&self) -> u32 {
        self.every
    }

    /// `true` when step `step` begins with a reorder (never step 0: the spawn is sorted already).
    #[must_use]
    pub fn due(&self, step: u64) -> bool {
        self.every > 0 && step > 0 && step.is_multiple_of(u64::from(self.every))
    }

    /// Bytes held per body: the permutation both ways (the ids are the bodies' own, [`Bodies::id`]; the cells'
    /// histogram is an eighth of a word a body at most).
    pub const BYTES_PER_BODY: u64 = 8;

    /// Sort the freshly spawned `bodies` (allocating: a spawn is not a step). Nothing to tell a broadphase,
    /// which has seen no frame yet.
    pub fn spawned(&mut self, parallelism: Parallelism, bodies: &mut Bodies) {
        if self.every == 0 || !self.sort(parallelism, &bodies.position) {
            return;
        }
        let n = bodies.len();
        bodies.gather(&self.words[..n]);
    }

    /// Reorder `bodies`, gathering each column through `scratch` (the step's box buffer, whose boxes are lost:
    /// the step rebuilds them all, the motion hint marking every body moved, as after any resize). Returns the map
    /// the broadphase needs (old index → new index), or `None` when the order did not change. No allocation once
    /// warm.
    pub fn reorder(&mut self, parallelism: Parallelism, bodies: &mut Bodies, scratch: &mut [Aabb]) -> Option<&[u32]> {
        puffin::profile_function!();
        if !self.sort(parallelism, &bodies.position) {
            return None;
        }
        let n = bodies.len();
        let order = &self.words[..n];
        let scratch: &mut [u32] = bytemuck::cast_slice_mut(scratch);
        let gather = Gather { order, parallel: parallelism.is_parallel(n) };
        gather.column::<[u32; 3], _>(&mut bodies.position, scratch);
        gather.column::<[u32; 3], _>(&mut bodies.velocity, scratch);
        gather.column::<[u32; 1], _>(&mut bodies.radius, scratch);
        gather.column::<[u32; 1], _>(&mut bodies.inv_mass, scratch);
        gather.column::<[u32; 2], _>(&mut bodies.last_contact, scratch);
        gather.column::<[u32; 1], _>(&mut bodies.id, scratch);
        if let Some(s) = &mut bodies.spin {
            gather.shapes(&mut s.shape, scratch);
            gather.column::<[u32; 3], _>(&mut s.half_extents, scratch);
            gather.column::<[u32; 4], _>(&mut s.rotation, scratch);
            gather.column::<[u32; 3], _>(&mut s.angular_velocity, scratch);
            gather.column::<[u32; 3], _>(&mut s.inv_inertia, scratch);
        }
        Some(&self.words[n..2 * n])
    }

    /// Sort the bodies at `positions` by their cells: `words` := new → old, then old → new. Returns `false` when
    /// the order does not change (nothing to move).
    fn sort(&mut self, parallelism: Parallelism, positions: &[Vec3]) -> bool {
        let n = positions.len();
        let bits = Self::bits(n);
        let side = (1u32 << bits) as f32;
        let inv_cell = side / self.container.extents().max(Vec3::splat(f32::MIN_POSITIVE));
        let (origin, last) = (self.container.min, (1u32 << bits) - 1);
        let cell_of = |p: &Vec3| {
            let c = (*p - origin) * inv_cell;
            // `as` saturates: below 0, and NaN, give 0.
            morton([c.x, c.y, c.z].map(|x| (x as u32).min(last)))
        };
        self.words.resize(2 * n, 0);
        let (first, second) = self.words.split_at_mut(n);
        // Each body's cell, in the first half for now.
        if parallelism.is_parallel(n) {
            first.par_iter_mut().zip(positions.par_iter()).for_each(|(c, p)| *c = cell_of(p));
        } else {
            first.iter_mut().zip(positions).for_each(|(c, p)| *c = cell_of(p));
        }
        self.cells.clear();
        self.cells.resize(1 << (3 * bits), 0);
        for &c in first.iter() {
            self.cells[c as usize] += 1;
        }
        let mut start = 0;
        for count in &mut self.cells {
            (*count, start) = (start, start + *count);
        }
        // Stable: bodies of one cell keep their order. Old → new into the second half, then inverted into the first.
        for (new, &c) in second.iter_mut().zip(first.iter()) {
            let slot = &mut self.cells[c as usize];
            *new = *slot;
            *slot += 1;
        }
        if second.iter().enumerate().all(|(i, &new)| new as usize == i) {
            return false;
        }
        for (old, &new) in second.iter().enumerate() {
            first[new as usize] = old as u32;
        }
        true
    }

    /// Check the buffers after a reorder: the permutation both ways is a bijection and each other's inverse.
    pub fn validate(&self, n: usize) -> Result<(), String> {
        let words = &self.words;
        if words.len() < 2 * n {
            return Err(format!("keys hold {} words, fewer than the 2·{n} of a permutation", words.len()));
        }
        let (new_to_old, old_to_new) = words[..2 * n].split_at(n);
        for (new, &old) in new_to_old.iter().enumerate() {
            match old_to_new.get(old as usize) {
                Some(&back) if back as usize == new => {}
                _ => return Err(format!("new index {new} comes from {old}, which does not map back to it")),
            }
        }
        Ok(())
    }
}

/// The Morton code of a cell: the bits of x, y and z interleaved (x lowest), 30 bits.
#[inline]
#[must_use]
pub fn morton(cell: [u32; 3]) -> u32 {
    spread(cell[0]) | spread(cell[1]) << 1 | spread(cell[2]) << 2
}

/// The low 10 bits of `x`, two zero bits after each.
#[inline]
fn spread(x: u32) -> u32 {
    let mut x = x & 0x3ff;
    x = (x | x << 16) & 0x0300_00ff;
    x = (x | x << 8) & 0x0300_f00f;
    x = (x | x << 4) & 0x030c_30c3;
    (x | x << 2) & 0x0924_9249
}

/// A permutation applied column by column: each column gathered into a scratch buffer of plain words, then
/// copied back, both in parallel chunks above the threshold.
struct Gather<'a> {
    /// `order[j]`: the old index of the body that goes to index `j`.
    order: &'a [u32],
    parallel: bool,
}

/// Rows of a parallel gather or copy: enough to amortise a task, few enough to spread over the threads.
const GATHER_CHUNK: usize = 16 * 1024;

impl Gather<'_> {
    /// Gather `column` through `scratch`, its entries seen as `W`, words of the same size (`[u32; k]`).
    fn column<W: bytemuck::Pod + Send + Sync, T: bytemuck::Pod>(&self, column: &mut [T], scratch: &mut [u32]) {
        let column: &mut [W] = bytemuck::cast_slice_mut(column);
        let words = size_of_val(column) / 4;
        let scratch: &mut [W] = bytemuck::cast_slice_mut(&mut scratch[..words]);
        let source: &[W] = column;
        if self.parallel {
            scratch.par_chunks_mut(GATHER_CHUNK).zip(self.order.par_chunks(GATHER_CHUNK)).for_each(|(out, order)| {
                out.iter_mut().zip(order).for_each(|(o, &from)| *o = source[from as usize]);
            });
            column.par_chunks_mut(GATHER_CHUNK).zip(scratch.par_chunks(GATHER_CHUNK)).for_each(|(c, s)| {
                c.copy_from_slice(s);
            });
        } else {
            scratch.iter_mut().zip(self.order).for_each(|(o, &from)| *o = source[from as usize]);
            column.copy_from_slice(scratch);
        }
    }

    /// Gather the shapes (an enum, not plain words) as bytes.
    fn shapes(&self, shapes: &mut [Shape], scratch: &mut [u32]) {
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(scratch);
        for (b, &from) in bytes.iter_mut().zip(self.order) {
            *b = shapes[from as usize] as u8;
        }
        for (s, &b) in shapes.iter_mut().zip(bytes.iter()) {
            *s = if b == Shape::Box as u8 { Shape::Box } else { Shape::Sphere };
        }
    }
}

#[cfg(test)]
mod tests;
