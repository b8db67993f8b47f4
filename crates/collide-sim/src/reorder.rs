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
//! # The key
//!
//! A body's key is the Morton code (10 bits per axis, 30 in all) of the cell its centre falls in, the cells a
//! few body diameters wide and at most 1024 to a side of the container; the body's current index breaks ties, so
//! every key is distinct and the sort's result is one permutation, whatever the sort and the thread count.
//! Bodies outside the container take the nearest cell.
//!
//! # Complexity and memory
//!
//! A reorder is O(n) for the keys, O(n log n) for the sort (rayon's in-place unstable sort) and O(n) for the
//! permutation: each column is gathered into the step's box buffer (24 bytes a body, rebuilt by the step right
//! after, so lending it costs no memory) and copied back, in parallel chunks. The first sort, of the spawn's
//! random order, is done when the scene spawns. Nothing allocates once warm. It keeps 8 bytes per body (the
//! keys, whose buffer then holds the permutation both ways); the ids are 4 more ([`Bodies::id`]).

use crate::Bodies;
use collide_broadphase::Parallelism;
use collide_math::{Aabb, Vec3};
use collide_narrowphase::Shape;
use rayon::prelude::*;

/// Cells per axis of the key at most: 10 bits each, so that three fit in the 32 high bits with the index below.
const CELLS_PER_AXIS: f32 = 1024.0;

/// A cell's side in body radii: a few bodies to a cell keeps neighbours together while the key stays coarse
/// enough that a body crosses a cell boundary only every few dozen steps.
const CELL_IN_RADII: f32 = 4.0;

/// The reorder's schedule and buffers.
#[derive(Debug, Default)]
pub struct Reorder {
    /// Steps between two reorders; 0: never.
    every: u32,
    /// The container's corner and the cell side the keys are counted from.
    origin: Vec3,
    inv_cell: f32,
    /// The sort keys (cell code above, index below); after the sort, the permutation both ways as `u32`s.
    keys: Vec<u64>,
}

impl Reorder {
    /// Reorder every `every` steps (0: never) bodies of base radius `radius` in `container`.
    #[must_use]
    pub fn new(every: u32, container: &Aabb, radius: f32) -> Self {
        let width = container.extents().max_element().max(f32::MIN_POSITIVE);
        let cell = (CELL_IN_RADII * radius).max(width / CELLS_PER_AXIS);
        let inv_cell = if cell.is_finite() && cell > 0.0 { 1.0 / cell } else { 0.0 };
        Self { every, origin: container.min, inv_cell, keys: Vec::new() }
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

    /// Bytes held per body: the keys (the ids are the bodies' own, [`Bodies::id`]).
    pub const BYTES_PER_BODY: u64 = 8;

    /// Sort the freshly spawned `bodies` (allocating: a spawn is not a step). Nothing to tell a broadphase,
    /// which has seen no frame yet.
    pub fn spawned(&mut self, parallelism: Parallelism, bodies: &mut Bodies) {
        if self.every == 0 || !self.sort_keys(parallelism, &bodies.position) {
            return;
        }
        let order: Vec<u32> = self.keys.iter().map(|&k| k as u32).collect();
        bodies.gather(&order);
    }

    /// Reorder `bodies`, gathering each column through `scratch` (the step's box buffer, whose boxes are lost:
    /// the step rebuilds them all, the motion hint marking every body moved, as after any resize). Returns the map
    /// the broadphase needs (old index → new index), or `None` when the order did not change. No allocation once
    /// warm.
    pub fn reorder(&mut self, parallelism: Parallelism, bodies: &mut Bodies, scratch: &mut [Aabb]) -> Option<&[u32]> {
        puffin::profile_function!();
        if !self.sort_keys(parallelism, &bodies.position) {
            return None;
        }
        let n = bodies.len();
        // The keys' buffer becomes two u32 arrays: new → old in the first n, old → new in the next n. Entry j
        // moves to u32 slot j, which is inside the u64 slot j/2 already read.
        let words: &mut [u32] = bytemuck::cast_slice_mut(&mut self.keys);
        for j in 0..n {
            words[j] = words[2 * j + usize::from(cfg!(target_endian = "big"))];
        }
        let (new_to_old, old_to_new) = words.split_at_mut(n);
        for (new, &old) in new_to_old.iter().enumerate() {
            old_to_new[old as usize] = new as u32;
        }
        let order: &[u32] = new_to_old;
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
        Some(&self.keys_as_words()[n..2 * n])
    }

    fn keys_as_words(&self) -> &[u32] {
        bytemuck::cast_slice(&self.keys)
    }

    /// Fill and sort the keys of `positions`. Returns `false` when they are in order already (nothing to move).
    fn sort_keys(&mut self, parallelism: Parallelism, positions: &[Vec3]) -> bool {
        let n = positions.len();
        self.keys.resize(n, 0);
        let (origin, inv_cell) = (self.origin, self.inv_cell);
        let key = |(i, p): (usize, &Vec3)| (u64::from(morton(cell_of(*p, origin, inv_cell))) << 32) | i as u64;
        if parallelism.is_parallel(n) {
            self.keys.par_iter_mut().zip(positions.par_iter().enumerate()).for_each(|(k, ip)| *k = key(ip));
        } else {
            self.keys.iter_mut().zip(positions.iter().enumerate()).for_each(|(k, ip)| *k = key(ip));
        }
        if self.keys.is_sorted() {
            return false;
        }
        if parallelism.is_parallel(n) {
            self.keys.par_sort_unstable();
        } else {
            self.keys.sort_unstable();
        }
        true
    }

    /// Check the buffers after a reorder: the permutation both ways is a bijection and each other's inverse.
    pub fn validate(&self, n: usize) -> Result<(), String> {
        let words = self.keys_as_words();
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

/// The cell of `p`, clamped to the key's 1024 cells per axis (a NaN lands in cell 0: the step removes such a body
/// before any broadphase sees it).
#[inline]
fn cell_of(p: Vec3, origin: Vec3, inv_cell: f32) -> [u32; 3] {
    let c = (p - origin) * inv_cell;
    // `as` saturates: below 0 (and NaN) gives 0.
    [c.x, c.y, c.z].map(|x| (x as u32).min(CELLS_PER_AXIS as u32 - 1))
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
        let n = column.len();
        let words = n * size_of::<W>() / 4;
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
