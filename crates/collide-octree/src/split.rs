//! The static/dynamic split's state: which bodies rest, the static tree built from them, and the pairs cached
//! among them. [`Split::classify`] reads each frame's motion — from the frame's motion hint when it has one,
//! else by comparing every box with the one kept from the last frame — and says when to rebuild the static
//! tree; the octree (`octree.rs`) builds it and walks it.

use crate::tree::{ITEM_BYTES, Item, ShapeStats, Tree};
use crate::walk::SlabIndex;
use collide_broadphase::{Aabb, Frame, Pair, Resize, Tally, is_valid_box, same_bits};

/// When the static tree is built and dropped (see [`OctreeConfig`](crate::OctreeConfig)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SplitPolicy {
    /// Whether bodies at rest are kept apart at all.
    pub on: bool,
    /// Bodies at rest needed before a (re)build.
    pub static_min: usize,
    /// Share of the bodies at rest needed for the split; below it minus 0.1 the static tree is dropped.
    pub static_share: f32,
}

/// The bodies at rest, kept apart from the moving ones.
#[derive(Debug, Default)]
pub(crate) struct Split {
    /// Last frame's boxes, compared bit for bit to find the bodies that did not move when the frame carries no
    /// motion hint, and kept up to date for the moved ones when it does (invariant: `prev.len() ==
    /// in_static.len()` when the split is on; empty when it is off).
    pub prev: Vec<Aabb>,
    /// `in_static[i]`: body `i` is in `static_tree` and its box has not changed since that build.
    pub in_static: Vec<bool>,
    /// Scratch: `moved[i]` for this frame.
    pub moved: Vec<bool>,
    /// Bodies at rest, built once (invariant: its live entries' boxes equal `prev`).
    pub static_tree: Tree,
    /// The pairs among `static_tree`'s bodies at its build, reused while both bodies stay at rest.
    pub static_pairs: Vec<Pair>,
    /// `static_tree`'s [`ShapeStats`], counted at its build.
    pub static_shape: ShapeStats,
    /// `static_tree`'s inner nodes split into slabs for the moving bodies' walk (nodup only).
    pub static_slabs: SlabIndex,
    /// Entries of `static_tree` whose body has moved since (skipped by the walk via `in_static`).
    pub static_stale: usize,
    /// The bodies not live in the static tree: rebuilt into the dynamic tree every frame.
    pub moving: Vec<Item>,
    /// This frame's bodies with an invalid box, in neither tree (the invalid-box contract: they overlap nothing).
    /// Found where a body is collected into `moving`: a body in the static tree had a valid box when it was built
    /// and is still bit for bit the same.
    pub excluded: Vec<u32>,
    /// The buffers a permutation moves `prev` and `in_static` through, kept so that a warm split allocates
    /// nothing to follow one.
    renumbering: (Vec<Aabb>, Vec<bool>),
}

impl Split {
    /// Which bodies did not move since the last frame (`hint[i] == false` promises it; without a hint, compare
    /// the boxes bit for bit), and whether to rebuild the static tree; collects the bodies not in the static tree
    /// into `moving` on the way (one pass), leaving out — into `excluded`, each reported to the frame — the bodies
    /// whose box is invalid. O(n): n flags read with a hint, 2n boxes without.
    pub fn classify(&mut self, frame: &Frame<'_>, policy: &SplitPolicy, tally: &mut Tally) -> bool {
        let (aabbs, hint) = (frame.aabbs, frame.moved);
        let n = aabbs.len();
        self.moving.clear();
        self.excluded.clear();
        if !policy.on || self.prev.len() != n {
            // Split off: no memory of earlier frames at all. Otherwise the first frame, after a reset, or a count
            // change the caller did not announce. Either way every body is moving.
            self.forget();
            if policy.on {
                self.prev.extend_from_slice(aabbs);
            }
            self.in_static.resize(n, false);
            for (i, a) in aabbs.iter().enumerate() {
                collect(&mut self.moving, &mut self.excluded, frame, i, a);
            }
            *tally += Tally::work(n as u64, n as u64 * (2 * size_of::<Aabb>() as u64 + ITEM_BYTES));
            return false;
        }
        let (resting, moved) = match hint {
            Some(hint) => self.mark_moved(frame, |i, _, _| hint[i]),
            None => self.mark_moved(frame, |_, prev, now| !same_bits(prev, now)),
        };
        // Per body a flag (or two boxes) read; per moved body its box copied; the moving bodies gathered.
        let per_body = if hint.is_some() { 2 } else { 2 * size_of::<Aabb>() as u64 + 1 };
        let bytes = n as u64 * per_body + moved * 2 * size_of::<Aabb>() as u64 + self.moving.len() as u64 * ITEM_BYTES;
        *tally += Tally::work(n as u64 + self.moving.len() as u64, bytes);

        let static_live = self.static_tree.bodies - self.static_stale;
        let dynamic = n - static_live;
        let share = f64::from(policy.static_share);
        if (static_live + resting) as f64 >= share * n as f64 {
            let enough_resting = resting >= policy.static_min.max(1) && resting * 4 >= dynamic;
            // Rebuild when half the static tree is stale too: its walk skips more than it finds.
            let too_stale = self.static_stale > 0 && self.static_stale * 2 >= self.static_tree.bodies;
            return enough_resting || too_stale;
        }
        if !self.static_tree.nodes.is_empty() && (static_live as f64) < (share - 0.1) * n as f64 {
            self.dissolve(aabbs);
        }
        false
    }

    /// Fill `moved` by `moved_of(i, prev[i], aabbs[i])`, refresh `prev` for the moved bodies, retire moved static bodies
    /// (stale entries) and collect the bodies not live in the static tree into `moving` (the invalid ones into
    /// `excluded`). Returns the bodies that rest outside the static tree, and the bodies that moved.
    #[inline(always)]
    fn mark_moved(&mut self, frame: &Frame<'_>, moved_of: impl Fn(usize, &Aabb, &Aabb) -> bool) -> (usize, u64) {
        self.moved.clear();
        let (mut resting, mut moved_count) = (0, 0);
        for (i, (p, a)) in self.prev.iter_mut().zip(frame.aabbs).enumerate() {
            let moved = moved_of(i, p, a);
            self.moved.push(moved);
            if moved {
                moved_count += 1;
                *p = *a;
                if self.in_static[i] {
                    self.in_static[i] = false;
                    self.static_stale += 1;
                }
            } else if !self.in_static[i] {
                resting += 1;
            }
            if !self.in_static[i] {
                collect(&mut self.moving, &mut self.excluded, frame, i, a);
            }
        }
        (resting, moved_count)
    }

    /// Drop the static tree: too few bodies rest for the split to pay (see
    /// [`OctreeConfig::static_share`](crate::OctreeConfig::static_share)).
    fn dissolve(&mut self, aabbs: &[Aabb]) {
        self.clear_static();
        self.in_static.fill(false);
        self.moving.clear();
        // The invalid bodies are already in `excluded` (every non-static body went through `collect`).
        let valid = aabbs.iter().enumerate().filter(|(_, a)| is_valid_box(a));
        self.moving.extend(valid.map(|(i, a)| Item { aabb: *a, id: i as u32 }));
    }

    /// Rename every body by the permutation `resize` (the simulation's spatial reorder): the remembered boxes and
    /// the static flags move to the new numbering through kept buffers, the static tree's items, its slabs and its
    /// cached pairs are renamed in place, and so are the last frame's moving and excluded bodies. The static tree
    /// stays built: a body at rest before the permutation is at rest after it, under its new name. O(n + static
    /// items + static pairs), no allocation once warm. Panics unless the split knows `resize.old_len()` bodies.
    pub fn permute(&mut self, resize: &Resize<'_>) {
        let map = resize.old_to_new;
        if !self.prev.is_empty() {
            resize.permute(&mut self.prev, &mut self.renumbering.0);
        }
        resize.permute(&mut self.in_static, &mut self.renumbering.1);
        self.static_tree.rename(map);
        self.static_slabs.rename(map);
        for p in &mut self.static_pairs {
            *p = Pair::new(map[p.a as usize], map[p.b as usize]);
        }
        crate::tree::rename_items(&mut self.moving, map);
        for id in &mut self.excluded {
            *id = map[*id as usize];
        }
    }

    /// Forget every earlier frame (keeps the allocations).
    pub fn forget(&mut self) {
        self.prev.clear();
        self.in_static.clear();
        self.clear_static();
    }

    fn clear_static(&mut self) {
        self.static_tree.clear();
        self.static_pairs.clear();
        self.static_slabs.clear();
        self.static_stale = 0;
    }

    /// Split this frame's bodies by `moved` for a static rebuild: the resting ones into `input` (the static
    /// tree's build input), the moved ones into `moving`; every resting body becomes live in the static set. The
    /// invalid ones (already in `excluded`) go to neither.
    pub fn separate(&mut self, aabbs: &[Aabb], input: &mut Vec<Item>) {
        self.moving.clear();
        for (i, ((a, &moved), s)) in aabbs.iter().zip(&self.moved).zip(&mut self.in_static).enumerate() {
            let item = Item { aabb: *a, id: i as u32 };
            *s = !moved && is_valid_box(a);
            if !is_valid_box(a) {
                continue;
            }
            if moved {
                self.moving.push(item);
            } else {
                input.push(item);
            }
        }
        self.static_stale = 0;
    }

    /// The bodies live in the static tree.
    pub fn static_live(&self) -> usize {
        self.static_tree.bodies - self.static_stale
    }
}

/// Body `i` with box `a` into `moving`, or, when its box is invalid, reported to the frame (a panic under
/// `InvalidBoxes::Panic`) and into `excluded`. The check is nine comparisons of a box being copied anyway, behind
/// a branch that valid input always predicts.
#[inline(always)]
fn collect(moving: &mut Vec<Item>, excluded: &mut Vec<u32>, frame: &Frame<'_>, i: usize, a: &Aabb) {
    if is_valid_box(a) {
        moving.push(Item { aabb: *a, id: i as u32 });
    } else {
        frame.reject_invalid(i);
        excluded.push(i as u32);
    }
}
