//! A step's contacts resolved on several threads, with the result of resolving them one by one in the order of
//! their pairs.
//!
//! **The order.** Resolving contact after contact is order-dependent: a body in two contacts is pushed by the first
//! before the second is measured. The order that defines the answer is the pairs' order, `(a, b)` ascending (what
//! the simulation got by sorting its pairs every step). Two contacts that share no body commute — each reads and
//! writes only its own two bodies — so every order that keeps, for each body, its contacts in ascending pair order
//! gives the same bits. This solver runs such an order in **rounds**: a contact whose pair is the smallest left at
//! both its bodies is ready; the ready contacts of a round share no body, so they run in parallel; then they leave,
//! and the next round finds the next ready ones. Which contacts are ready depends only on the set of contacts, not
//! on the order the broadphase found them in nor on the threads, so the state after resolution is bit for bit the
//! one-by-one answer, on any thread count, for any broadphase, without sorting the pairs.
//!
//! **The bodies.** The contacts of a step touch a minority of the bodies, scattered through the body arrays. They
//! are marked in a bitset, numbered by rank (a body's place among the marked ones, so that the numbering follows
//! the body order), copied into a dense local array, solved there, and copied back, each body range by its own
//! task. The local state and the marks are atomics with relaxed ordering: each body is written by at most one task
//! between two joins, so nothing races; the atomics only let tasks write entries that Rust cannot prove apart.
//!
//! **Rounds that stall.** A chain of contacts whose pairs ascend along the chain (bodies numbered along a row) takes
//! one round per contact. When a round resolves less than an eighth of what is left, the rest is sorted by pair and
//! resolved one by one — the same order, so the same answer.

use crate::{BodyState, resolve_contact};
use collide_broadphase::{Pair, Parallelism};
use collide_math::Vec3;
use collide_narrowphase::{Contact, sphere_sphere};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

/// Bodies per task of the passes over body ranges (a multiple of 64, the bits of a mark word): about 10 µs of a
/// per-body pass at 10⁶ bodies. Rayon's iterators split a range of chunks into a few pieces per thread, so small
/// chunks cost little; they bound how finely the work can be shared, and fix the ranges the walls' lists follow.
const BODIES_PER_CHUNK: usize = 64 * 32;

/// Contacts per task of the passes over contacts.
const CONTACTS_PER_CHUNK: usize = 1024;

/// Bodies per chunk of the passes over body ranges under `parallelism`: [`BODIES_PER_CHUNK`], or fewer when a
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

/// A round that resolves less than `1 / STALL` of the contacts left ends the rounds (see the module docs).
const STALL: usize = 8;

/// A contact between two marked bodies, by their ranks.
#[derive(Clone, Copy, Debug)]
struct Link {
    /// The rank of the pair's `a`.
    a: u32,
    /// The rank of the pair's `b`.
    b: u32,
    /// The pair's key: the order of resolution.
    key: u64,
    /// The narrowphase's contact.
    contact: Contact,
}

/// A marked body's state during resolution: position, velocity, inverse mass and radius as `f32` bits.
#[derive(Debug, Default)]
struct Local([AtomicU32; 8]);

impl Local {
    fn store(&self, state: &BodyState, radius: f32) {
        let (p, v) = (state.position, state.velocity);
        for (slot, x) in self.0.iter().zip([p.x, p.y, p.z, v.x, v.y, v.z, state.inv_mass, radius]) {
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

/// The deterministic parallel resolution of a step's contacts (see the module docs). Every buffer lives across
/// steps: a warm solver allocates nothing.
#[derive(Debug, Default)]
pub struct Solver {
    /// Bit `i % 64` of word `i / 64`: body `i` is in a contact of this step.
    marks: Vec<AtomicU64>,
    /// Per mark word: the marked bodies in the words before it (`marks.len() + 1` entries).
    ranks: Vec<u32>,
    /// The contacts, by rank.
    links: Vec<Link>,
    /// Per marked body, by rank: its state while resolving.
    state: Vec<Local>,
    /// Per marked body: a contact of this step has already moved it (its other contacts are measured again).
    resolved: Vec<AtomicBool>,
    /// Per marked body, two alternating rounds: the smallest pair key left at the body.
    least: [Vec<AtomicU64>; 2],
    /// The links not resolved yet.
    left: Vec<u32>,
    /// Per chunk of `left`: the links a round kept.
    kept: Vec<Vec<u32>>,
    /// Rounds of the last [`Solver::solve`], the serial finish counted as one.
    rounds: u32,
}

impl Solver {
    /// Mark the bodies of `contacts` among `bodies` bodies and number them; keep the contacts for
    /// [`Solver::solve`]. Pairs must be distinct and their indices below `bodies`.
    pub fn prepare(&mut self, parallelism: Parallelism, bodies: usize, contacts: &[(Pair, Contact)]) {
        let words = bodies.div_ceil(64);
        self.marks.truncate(words);
        self.marks.iter().for_each(|w| w.store(0, Relaxed));
        self.marks.resize_with(words, AtomicU64::default);
        let marks = &self.marks;
        let mark = |i: u32| {
            marks[i as usize / 64].fetch_or(1 << (i % 64), Relaxed);
        };
        let size = contacts_per_chunk(parallelism);
        chunked(parallelism, contacts, size, |chunk| {
            for (pair, _) in chunk {
                mark(pair.a);
                mark(pair.b);
            }
        });
        self.ranks.clear();
        let mut total = 0;
        for w in &self.marks {
            self.ranks.push(total);
            total += w.load(Relaxed).count_ones();
        }
        self.ranks.push(total);
        self.links.resize(contacts.len(), Link { a: 0, b: 0, key: 0, contact: NONE });
        let (marks, ranks) = (&self.marks, &self.ranks);
        let rank = |i: u32| rank(marks, ranks, i);
        let fill = |(link, &(pair, contact)): (&mut Link, &(Pair, Contact))| {
            *link = Link { a: rank(pair.a), b: rank(pair.b), key: pair.key(), contact };
        };
        if parallelism.is_parallel(contacts.len()) {
            self.links.par_iter_mut().zip(contacts.par_iter()).with_min_len(size).for_each(fill);
        } else {
            self.links.iter_mut().zip(contacts).for_each(fill);
        }
    }

    /// Body `i`'s rank among the marked bodies (`i` must be marked).
    fn rank(&self, i: u32) -> u32 {
        rank(&self.marks, &self.ranks, i)
    }

    /// The number of bodies in this step's contacts.
    #[must_use]
    pub fn marked(&self) -> usize {
        self.ranks.last().map_or(0, |&r| r as usize)
    }

    /// The rounds the last [`Solver::solve`] took (the serial finish counts as one).
    #[must_use]
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// The marked bodies in `range` (whose ends are multiples of 64, or the end of the bodies), ascending.
    pub fn marked_in(&self, range: Range<usize>) -> impl Iterator<Item = usize> + '_ {
        debug_assert!(range.start.is_multiple_of(64));
        let words = range.start / 64..range.end.div_ceil(64).min(self.marks.len());
        self.marks[words.clone()].iter().zip(words).flat_map(|(w, index)| {
            let mut bits = w.load(Relaxed);
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let bit = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    index * 64 + bit
                })
            })
        })
    }

    /// Resolve the prepared contacts with restitution `e` on the bodies' columns (read here, written back by
    /// [`Solver::write_back`]): every contact's push and impulse, one by one in ascending pair order as far as the
    /// answer can tell (see the module docs), each contact measured again when an earlier one moved one of its
    /// bodies.
    pub fn solve(
        &mut self,
        parallelism: Parallelism,
        e: f32,
        position: &[Vec3],
        velocity: &[Vec3],
        inv_mass: &[f32],
        radius: &[f32],
    ) {
        let marked = self.marked();
        self.state.resize_with(marked, Local::default);
        self.resolved.resize_with(marked, AtomicBool::default);
        self.resolved[..marked].iter().for_each(|r| r.store(false, Relaxed));
        for least in &mut self.least {
            least.resize_with(marked, AtomicU64::default);
        }
        self.least[0][..marked].iter().for_each(|l| l.store(u64::MAX, Relaxed));
        let this = &*self;
        for_chunks(parallelism, position.len(), |range| {
            for i in this.marked_in(range) {
                let state = BodyState { position: position[i], velocity: velocity[i], inv_mass: inv_mass[i] };
                this.state[this.rank(i as u32) as usize].store(&state, radius[i]);
            }
        });
        self.left.clear();
        self.left.extend(0..self.links.len() as u32);
        self.rounds = 0;
        while !self.left.is_empty() {
            let before = self.left.len();
            self.round(parallelism, e);
            self.rounds += 1;
            if self.left.len() * STALL > before * (STALL - 1) {
                self.finish(e);
                self.rounds += 1;
            }
        }
    }

    /// One round: the links whose key is the least left at both their bodies are resolved, the others kept.
    fn round(&mut self, parallelism: Parallelism, e: f32) {
        let size = contacts_per_chunk(parallelism);
        let count = self.left.len().div_ceil(size);
        if self.kept.len() < count {
            self.kept.resize_with(count, Vec::new);
        }
        let mut kept = std::mem::take(&mut self.kept);
        let (current, next) = (&self.least[self.rounds as usize % 2], &self.least[(self.rounds as usize + 1) % 2]);
        let links = &self.links;
        chunked(parallelism, &self.left, size, |chunk| {
            for &l in chunk {
                let link = &links[l as usize];
                current[link.a as usize].fetch_min(link.key, Relaxed);
                current[link.b as usize].fetch_min(link.key, Relaxed);
            }
        });
        let (left, this) = (&self.left, &*self);
        let pass = |c: usize, kept: &mut Vec<u32>| {
            kept.clear();
            for &l in &left[c * size..((c + 1) * size).min(left.len())] {
                let link = &links[l as usize];
                let (a, b) = (link.a as usize, link.b as usize);
                // The other round's minimum, for the round after this one: its links are among these.
                next[a].store(u64::MAX, Relaxed);
                next[b].store(u64::MAX, Relaxed);
                if current[a].load(Relaxed) == link.key && current[b].load(Relaxed) == link.key {
                    this.resolve(link, e);
                } else {
                    kept.push(l);
                }
            }
        };
        parallelism.for_each("resolution", left.len(), &mut kept[..count], pass);
        self.left.clear();
        for k in &kept[..count] {
            self.left.extend_from_slice(k);
        }
        self.kept = kept;
    }

    /// The links left, sorted by key and resolved one by one.
    fn finish(&mut self, e: f32) {
        let mut left = std::mem::take(&mut self.left);
        left.sort_unstable_by_key(|&l| self.links[l as usize].key);
        for &l in &left {
            self.resolve(&self.links[l as usize], e);
        }
        left.clear();
        self.left = left;
    }

    /// One contact's push and impulse (the order of the seed studies): the narrowphase's contact, or, when an
    /// earlier contact of the step moved one of the bodies, the contact measured again where they are now.
    fn resolve(&self, link: &Link, e: f32) {
        let (a, b) = (link.a as usize, link.b as usize);
        let ((mut s1, r1), (mut s2, r2)) = (self.state[a].load(), self.state[b].load());
        let contact = if self.resolved[a].load(Relaxed) || self.resolved[b].load(Relaxed) {
            sphere_sphere(s1.position, r1, s2.position, r2)
        } else {
            Some(link.contact)
        };
        resolve_contact(&mut s1, &mut s2, contact.as_ref(), e);
        self.state[a].store(&s1, r1);
        self.state[b].store(&s2, r2);
        self.resolved[a].store(true, Relaxed);
        self.resolved[b].store(true, Relaxed);
    }

    /// Copy the resolved positions and velocities back into the bodies' columns, each range of
    /// [`bodies_per_chunk`] bodies by its own task.
    pub fn write_back(&self, parallelism: Parallelism, position: &mut [Vec3], velocity: &mut [Vec3]) {
        let size = bodies_per_chunk(parallelism);
        let copy = |(c, (p, v)): (usize, (&mut [Vec3], &mut [Vec3]))| {
            let start = c * size;
            for i in self.marked_in(start..start + p.len()) {
                let (state, _) = self.state[self.rank(i as u32) as usize].load();
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

/// Body `i`'s rank among the bodies marked in `marks`, whose words' ranks are `ranks`.
fn rank(marks: &[AtomicU64], ranks: &[u32], i: u32) -> u32 {
    let (w, bit) = (i as usize / 64, i % 64);
    ranks[w] + (marks[w].load(Relaxed) & ((1u64 << bit) - 1)).count_ones()
}

/// A placeholder contact for links about to be overwritten.
const NONE: Contact = Contact { normal: Vec3::Y, depth: 0.0, point: Vec3::ZERO };

/// `f` over `items` in chunks of `size`: on rayon's threads when `parallelism` says so for `items.len()`.
fn chunked<T: Sync>(parallelism: Parallelism, items: &[T], size: usize, f: impl Fn(&[T]) + Sync + Send) {
    if items.len() > size && parallelism.is_parallel(items.len()) {
        items.par_chunks(size).for_each(f);
    } else {
        f(items);
    }
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

#[cfg(test)]
#[path = "solver_tests.rs"]
mod tests;
