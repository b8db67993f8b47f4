//! A step's contacts resolved on several threads, with the result of resolving them one by one in the order of
//! their pairs.
//!
//! **The order.** Resolving contact after contact is order-dependent: a body in two contacts is pushed by the first
//! before the second is measured. The order that defines the answer is the pairs' order, `(a, b)` ascending. Two
//! contacts that share no body commute — each reads and writes only its own two bodies — so every order that keeps,
//! for each body, its contacts in ascending pair order gives the same bits.
//!
//! **Levels.** The solver sorts the contacts by pair once (a counting sort on the smaller body, then the few
//! contacts of one body by the larger) and gives each its *level*: one more than the highest level among the
//! earlier contacts of its two bodies, so that a contact comes after every earlier contact it shares a body with.
//! Two contacts of one level share no body (the later one would have a higher level), so a level's contacts run in
//! parallel, and the levels run in order. The levels depend only on the set of contacts, not on the order the
//! broadphase found them in nor on the threads: the state after resolution is bit for bit the one-by-one answer,
//! on any thread count, for any broadphase. A scene of scattered contacts has a few levels, most contacts in the
//! first; a chain of contacts whose pairs ascend along it has one level per contact, each resolved on this thread
//! without a parallel section.
//!
//! **The bodies.** The contacts of a step touch a minority of the bodies, scattered through the body arrays. The
//! caller marks them first ([`ContactBodies`], which numbers them by rank: a body's place among the marked ones, so
//! that the numbering follows the body order); the solver copies them into a dense local array, solves there, and
//! copies them back, each body range by its own task. The local state is atomics with relaxed ordering (plain loads
//! and stores on x86): each body is written by at most one task between two joins, so nothing races; the atomics
//! only let tasks write entries that Rust cannot prove apart.
//!
//! **Bodies that spin** (`solver/spin.rs`): a step with boxes or friction resolves its manifolds beside the sphere
//! contacts through [`Solver::solve_spin`] (a link keeps its manifold's index in its padding), on the same levels,
//! with a second local array for the marked bodies' rotations.

use crate::{BodyState, ContactBodies, resolve_contact};
use collide_broadphase::{Pair, Parallelism, prefetch};
use collide_math::Vec3;
use collide_narrowphase::{Contact, Manifold, sphere_sphere};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Bodies per task of the passes over body ranges (a multiple of 64, the bits of a mark word): about 10 µs of a
/// per-body pass at 10⁶ bodies. Rayon's iterators split a range of chunks into a few pieces per thread, so small
/// chunks cost little; they bound how finely the work can be shared, and fix the ranges the walls' lists follow.
const BODIES_PER_CHUNK: usize = 64 * 32;

/// How many links ahead the passes over links prefetch what they will read at random (states, levels).
const PREFETCH_AHEAD: usize = 8;

/// Ranks per partition of the sort by pair: a table of 4 KiB for the low bits.
const LOW_RANKS: usize = 1024;

/// Contacts per task of the passes over contacts.
const CONTACTS_PER_CHUNK: usize = 1024;

/// Bodies per chunk of the passes over body ranges under `parallelism`: `BODIES_PER_CHUNK` (2048), or fewer when a
/// test lowers the threshold below it (down to 64), so that its small scenes still split into several chunks.
/// Every pass of a step over body ranges (here and in the simulation) uses this one value.
#[must_use]
pub fn bodies_per_chunk(parallelism: Parallelism) -> usize {
    BODIES_PER_CHUNK.min(parallelism.min_work()).next_multiple_of(64).max(64)
}

/// Contacts per chunk: as [`bodies_per_chunk`], down to 16.
fn contacts_per_chunk(parallelism: Parallelism) -> usize {
    CONTACTS_PER_CHUNK.min(parallelism.min_work().max(16))
}

/// A contact between two marked bodies, by their ranks: 32 bytes, one per half cache line.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct Link {
    /// The rank of the pair's `a`.
    a: u32,
    /// The rank of the pair's `b`.
    b: u32,
    /// The narrowphase's normal (from `b` toward `a`).
    normal: Vec3,
    /// The narrowphase's depth.
    depth: f32,
    /// The narrowphase's contact still describes the bodies: no earlier contact of the step moved either.
    fresh: bool,
    /// The pair's manifold, by index into the step's manifolds ([`NO_MANIFOLD`] for a sphere–sphere contact); in
    /// the link's padding, so a link stays 32 bytes.
    manifold: u32,
}

/// [`Link::manifold`] of a sphere–sphere contact.
const NO_MANIFOLD: u32 = u32::MAX;

/// A placeholder link for slots about to be overwritten.
const NO_LINK: Link = Link { a: 0, b: 0, normal: Vec3::Y, depth: 0.0, fresh: true, manifold: NO_MANIFOLD };

/// A marked body's state during resolution: position, velocity, inverse mass and radius as `f32` bits, in one
/// half cache line.
#[derive(Debug, Default)]
#[repr(align(32))]
struct Local([AtomicU32; 8]);

impl Local {
    fn store(&self, state: &BodyState, radius: f32) {
        let (p, v) = (state.position, state.velocity);
        for (slot, x) in self.0.iter().zip([p.x, p.y, p.z, v.x, v.y, v.z, state.inv_mass, radius]) {
            slot.store(x.to_bits(), Relaxed);
        }
    }

    /// Store the position and velocity only (the inverse mass and radius do not change while resolving).
    fn store_motion(&self, state: &BodyState) {
        let (p, v) = (state.position, state.velocity);
        for (slot, x) in self.0.iter().zip([p.x, p.y, p.z, v.x, v.y, v.z]) {
            slot.store(x.to_bits(), Relaxed);
        }
    }

    fn load(&self) -> (BodyState, f32) {
        let x = |i: usize| f32::from_bits(self.0[i].load(Relaxed));
        let state =
            BodyState { position: Vec3::new(x(0), x(1), x(2)), velocity: Vec3::new(x(3), x(4), x(5)), inv_mass: x(6) };
        (state, x(7))
    }
}

/// The body columns [`Solver::solve`] reads, indexed by body.
#[derive(Clone, Copy, Debug)]
pub struct SphereColumns<'a> {
    /// Centres.
    pub position: &'a [Vec3],
    /// Velocities.
    pub velocity: &'a [Vec3],
    /// Inverse masses.
    pub inv_mass: &'a [f32],
    /// Radii.
    pub radius: &'a [f32],
}

/// The deterministic parallel resolution of a step's contacts (see the module docs). Every buffer lives across
/// steps: a warm solver allocates nothing.
#[derive(Debug, Default)]
pub struct Solver {
    /// The contacts, by the ranks of their bodies among the [`ContactBodies`], in the narrowphase's order.
    links: Vec<Link>,
    /// Per partition of [`LOW_RANKS`] ranks, then prefix sums: where its links start (sorting by pair).
    starts: Vec<u32>,
    /// The links in ascending pair order.
    sorted: Vec<Link>,
    /// Per marked body: the level of its last contact so far (0: none yet), while levelling; per level, the
    /// running insertion point while grouping.
    last: Vec<u32>,
    /// Per link of `sorted`: its level, from 1.
    level: Vec<u32>,
    /// Per level, then prefix sums: where its links start in `batches` (`levels + 1` entries).
    level_starts: Vec<u32>,
    /// The links grouped by level, each level in ascending pair order.
    batches: Vec<Link>,
    /// Per marked body, by rank: its state while resolving.
    state: Vec<Local>,
    /// Levels of the last [`Solver::solve`].
    levels: u32,
    /// Per marked body, by rank: its rotation while resolving (filled by [`Solver::solve_spin`] only).
    spin: Vec<spin::LocalSpin>,
}

impl Solver {
    /// `links` := the contacts and then the manifolds, their bodies by rank among `bodies` (which holds exactly
    /// their bodies); the pairs must be distinct.
    fn link(
        &mut self,
        parallelism: Parallelism,
        contacts: &[(Pair, Contact)],
        manifolds: &[(Pair, Manifold)],
        bodies: &ContactBodies,
    ) {
        self.links.resize(contacts.len(), NO_LINK);
        let rank = |i: u32| bodies.rank(i);
        let fill = |(link, &(pair, contact)): (&mut Link, &(Pair, Contact))| {
            *link = Link {
                a: rank(pair.a),
                b: rank(pair.b),
                normal: contact.normal,
                depth: contact.depth,
                fresh: true,
                manifold: NO_MANIFOLD,
            };
        };
        let size = contacts_per_chunk(parallelism);
        if contacts.len() > size && parallelism.is_parallel(contacts.len()) {
            self.links.par_iter_mut().zip(contacts.par_iter()).with_min_len(size).for_each(fill);
        } else {
            self.links.iter_mut().zip(contacts).for_each(fill);
        }
        // The manifolds' links after the contacts' (the levels sort them all by pair); few in a step, serial.
        self.links.extend(manifolds.iter().enumerate().map(|(k, (pair, m))| Link {
            a: rank(pair.a),
            b: rank(pair.b),
            normal: m.normal,
            depth: m.depth(),
            fresh: true,
            manifold: k as u32,
        }));
    }

    /// The levels of the last [`Solver::solve`]: batches of contacts that share no body, run one after another.
    #[must_use]
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// Resolve `contacts` (their pairs distinct) with restitution `e` on the bodies' `columns` (read here, written
    /// back by [`Solver::write_back`]): every contact's push and impulse, one by one in ascending pair order as far
    /// as the answer can tell (see the module docs), each contact measured again when an earlier one moved one of
    /// its bodies. `bodies` are the contacts' bodies, marked by the caller ([`ContactBodies::mark`]).
    pub fn solve(
        &mut self,
        parallelism: Parallelism,
        contacts: &[(Pair, Contact)],
        bodies: &ContactBodies,
        columns: &SphereColumns<'_>,
        e: f32,
    ) {
        self.link(parallelism, contacts, &[], bodies);
        self.load(parallelism, bodies, columns);
        self.sort_by_pair(bodies.len());
        self.level_links(bodies.len());
        let state = &self.state;
        self.run_levels(parallelism, |link| resolve(state, link, e));
    }

    /// Copy the marked bodies' states into the dense local array.
    fn load(&mut self, parallelism: Parallelism, bodies: &ContactBodies, columns: &SphereColumns<'_>) {
        self.state.resize_with(bodies.len(), Local::default);
        let state = &self.state;
        let SphereColumns { position, velocity, inv_mass, radius } = *columns;
        for_chunks(parallelism, position.len(), |range| {
            for (i, r) in bodies.ranked_in(range) {
                let body = BodyState { position: position[i], velocity: velocity[i], inv_mass: inv_mass[i] };
                state[r as usize].store(&body, radius[i]);
            }
        });
    }

    /// `resolve` on every link, level after level; a level's links in parallel chunks.
    fn run_levels(&self, parallelism: Parallelism, resolve: impl Fn(&Link) + Sync + Send) {
        let size = contacts_per_chunk(parallelism);
        for level in 0..self.levels as usize {
            let batch = &self.batches[self.level_starts[level] as usize..self.level_starts[level + 1] as usize];
            let run = |chunk: &[Link]| {
                for (k, link) in chunk.iter().enumerate() {
                    // The states of a link a few places on: at 10⁶ bodies the states outgrow the cache.
                    if let Some(ahead) = chunk.get(k + PREFETCH_AHEAD) {
                        prefetch::read(&self.state[ahead.a as usize]);
                        prefetch::read(&self.state[ahead.b as usize]);
                    }
                    resolve(link);
                }
            };
            if batch.len() > size && parallelism.is_parallel(batch.len()) {
                batch.par_chunks(size).for_each(run);
            } else {
                run(batch);
            }
        }
    }

    /// `sorted` := the links in ascending pair order, by the rank of `a` (ranks follow the body order) in two
    /// counting passes that stay in the cache — the high bits into partitions of [`LOW_RANKS`] ranks, then each
    /// partition by the low bits —, then each body's few links as `a` by the rank of `b` (an insertion sort). One
    /// counting pass over every rank would scatter into a table of 4 bytes a marked body, past the cache at 10⁶
    /// bodies, where these two cost about a fifth of it.
    fn sort_by_pair(&mut self, marked: usize) {
        let partitions = marked.div_ceil(LOW_RANKS).max(1);
        let low = |link: &Link| link.a as usize % LOW_RANKS;
        // The high bits: `links` into partitions of `batches` (a scratch here; grouping by level rewrites it).
        self.starts.clear();
        self.starts.resize(partitions + 1, 0);
        for link in &self.links {
            self.starts[link.a as usize / LOW_RANKS + 1] += 1;
        }
        for p in 0..partitions {
            self.starts[p + 1] += self.starts[p];
        }
        self.batches.resize(self.links.len(), NO_LINK);
        self.last.clear();
        self.last.extend_from_slice(&self.starts[..partitions]);
        for link in &self.links {
            let slot = &mut self.last[link.a as usize / LOW_RANKS];
            self.batches[*slot as usize] = *link;
            *slot += 1;
        }
        // The low bits, partition by partition, into `sorted`; then every body's run by `b`.
        self.sorted.resize(self.links.len(), NO_LINK);
        let mut counts = [0u32; LOW_RANKS + 1];
        for p in 0..partitions {
            let range = self.starts[p] as usize..self.starts[p + 1] as usize;
            counts.fill(0);
            for link in &self.batches[range.clone()] {
                counts[low(link) + 1] += 1;
            }
            for r in 0..LOW_RANKS {
                counts[r + 1] += counts[r];
            }
            let out = &mut self.sorted[range.clone()];
            let mut next = counts;
            for link in &self.batches[range] {
                let slot = &mut next[low(link)];
                out[*slot as usize] = *link;
                *slot += 1;
            }
            for r in 0..LOW_RANKS {
                let run = &mut out[counts[r] as usize..counts[r + 1] as usize];
                for k in 1..run.len() {
                    let mut j = k;
                    while j > 0 && run[j - 1].b > run[j].b {
                        run.swap(j - 1, j);
                        j -= 1;
                    }
                }
            }
        }
    }

    /// Give every link its level (one more than the last level of either body so far, in pair order) and its
    /// freshness (no earlier link touched either body), and group the links by level into `batches`.
    fn level_links(&mut self, marked: usize) {
        self.last.clear();
        self.last.resize(marked, 0);
        self.level.clear();
        self.level_starts.clear();
        self.level_starts.push(0);
        for k in 0..self.sorted.len() {
            if let Some(ahead) = self.sorted.get(k + PREFETCH_AHEAD) {
                prefetch::read(&self.last[ahead.b as usize]);
            }
            let link = &mut self.sorted[k];
            let (a, b) = (link.a as usize, link.b as usize);
            let (la, lb) = (self.last[a], self.last[b]);
            link.fresh = la == 0 && lb == 0;
            let level = la.max(lb) + 1;
            (self.last[a], self.last[b]) = (level, level);
            self.level.push(level);
            if level as usize >= self.level_starts.len() {
                self.level_starts.push(0);
            }
            self.level_starts[level as usize] += 1;
        }
        self.levels = self.level_starts.len() as u32 - 1;
        for k in 1..self.level_starts.len() {
            self.level_starts[k] += self.level_starts[k - 1];
        }
        // A stable scatter by level: each level keeps the pair order. `last` is the running insertion point.
        self.last.clear();
        self.last.extend_from_slice(&self.level_starts[..self.levels as usize]);
        self.batches.resize(self.sorted.len(), NO_LINK);
        for (link, &level) in self.sorted.iter().zip(&self.level) {
            let slot = &mut self.last[level as usize - 1];
            self.batches[*slot as usize] = *link;
            *slot += 1;
        }
    }

    /// Copy the resolved positions and velocities of `bodies` (those given to the solve) back into the bodies'
    /// columns, each range of [`bodies_per_chunk`] bodies by its own task.
    pub fn write_back(
        &self,
        parallelism: Parallelism,
        bodies: &ContactBodies,
        position: &mut [Vec3],
        velocity: &mut [Vec3],
    ) {
        debug_assert_eq!(bodies.len(), self.state.len(), "the bodies of the last solve");
        let size = bodies_per_chunk(parallelism);
        let copy = |(c, (p, v)): (usize, (&mut [Vec3], &mut [Vec3]))| {
            let start = c * size;
            for (i, r) in bodies.ranked_in(start..start + p.len()) {
                let (state, _) = self.state[r as usize].load();
                (p[i - start], v[i - start]) = (state.position, state.velocity);
            }
        };
        if parallelism.is_parallel(position.len()) {
            position.par_chunks_mut(size).zip(velocity.par_chunks_mut(size)).enumerate().for_each(copy);
        } else {
            position.chunks_mut(size).zip(velocity.chunks_mut(size)).enumerate().for_each(copy);
        }
    }
}

/// One contact's push and impulse (the order of the seed studies): the narrowphase's contact, or, when an
/// earlier contact of the step moved one of the bodies, the contact measured again where they are now.
fn resolve(state: &[Local], link: &Link, e: f32) {
    let (a, b) = (link.a as usize, link.b as usize);
    let ((mut s1, r1), (mut s2, r2)) = (state[a].load(), state[b].load());
    let contact = if link.fresh {
        Some(Contact { normal: link.normal, depth: link.depth, point: Vec3::ZERO })
    } else {
        sphere_sphere(s1.position, r1, s2.position, r2)
    };
    resolve_contact(&mut s1, &mut s2, contact.as_ref(), e);
    state[a].store_motion(&s1);
    state[b].store_motion(&s2);
}

/// `f` over the body ranges of [`bodies_per_chunk`] bodies of `0..bodies`: on rayon's threads when `parallelism`
/// says so for `bodies`.
fn for_chunks(parallelism: Parallelism, bodies: usize, f: impl Fn(Range<usize>) + Sync + Send) {
    let size = bodies_per_chunk(parallelism);
    let range = |c: usize| c * size..((c + 1) * size).min(bodies);
    let count = bodies.div_ceil(size);
    if count > 1 && parallelism.is_parallel(bodies) {
        (0..count).into_par_iter().for_each(|c| f(range(c)));
    } else {
        f(0..bodies);
    }
}

mod spin;

pub use spin::SpinColumns;

#[cfg(test)]
mod tests;
