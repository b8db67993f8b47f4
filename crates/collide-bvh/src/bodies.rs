//! What the dynamic tree knows about each body: where it is stored and its fat box (the [`Proxy`]), when its
//! box last changed, where its last insertion happened (for its speed), and the policy that sizes fat boxes.
//!
//! **Fat boxes.** A body is stored with a box larger than its own, and the tree is touched only when its box
//! leaves that fat box. How much larger decides the algorithm's cost: a small margin re-inserts every body every
//! few frames; a large one makes every cached pair a false candidate to test each frame. The margin here has two
//! parts (Bullet's `btDbvtBroadphase` predicts along the velocity the same way; Box2D v3 uses a fixed margin):
//! - a **base margin**, a fraction of the body's size, on every side: it covers the noise of the motion;
//! - a **reach** along the body's estimated velocity (its centre's displacement since its last insertion, per
//!   call), on the side it moves towards only, as far as it would go in a *horizon* of calls. A body at
//!   constant velocity then stays inside for about a horizon; the box grows along the motion, not around it.
//!   Only a body slow enough that half a horizon of motion fits within `max_reach` times its size gets a reach
//!   that long: a long box around a faster one would only fill the cache with pairs that fail the exact test (in
//!   a dense crowd, tens of times the real ones);
//! - a **displacement margin** for a body too fast for that (Box2D's predicted displacement): its displacement
//!   per call times `multiplier` along the motion, plus `spread` times its largest component on every side (the
//!   bodies of a rigid-body scene collide and turn; a margin only ahead would be left sideways at once). A body
//!   moving its own width every few calls — rapier's scenes — then stays in its box for a few calls instead of
//!   leaving it at every one, and the calls on which many bodies leave take the refit path (`refit.rs`). Only a
//!   body whose margin fits within `max_reach` times its size gets one; a faster one (a teleport, a projectile)
//!   gets the base margin alone and is re-inserted every call, with a cache barely larger than the answer.
//!
//! Each body's horizon is jittered between ½ and 1½ of the configured one, by a hash of the body and the call:
//! bodies inserted together (the whole scene at the first frames) would otherwise all leave their boxes on the
//! same frame and re-insert in a burst.

use crate::tree::NONE;
use collide_math::{Aabb, Vec3};

/// Which tree a body is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Stage {
    /// Bodies that moved recently: predicted fat boxes, re-inserted often.
    Dynamic = 0,
    /// Bodies at rest: tight fat boxes, a tree that rarely changes (Bullet's "fixed set").
    Static = 1,
}

/// Marks a leaf in the static tree in [`Proxy::leaf`].
const STATIC_BIT: u32 = 1 << 31;

/// Where a body is stored, and its fat box: 28 bytes, what the per-frame scan reads of each body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Proxy {
    /// The fat box; it contains the body's box of the last call whenever the body is in a tree, and is
    /// [`Aabb::EMPTY`] when it is in none (an unusable box, or a body added since the last call).
    pub fat: Aabb,
    /// The leaf holding the body (its tree in the top bit), or [`NONE`] when it is in no tree.
    leaf: u32,
}

impl Proxy {
    /// A body in no tree.
    pub(crate) const PLACELESS: Self = Self { fat: Aabb::EMPTY, leaf: NONE };

    /// The body's tree and leaf, if it is in one.
    #[inline(always)]
    #[must_use]
    pub(crate) fn place(&self) -> Option<(Stage, u32)> {
        if self.leaf == NONE {
            None
        } else if self.leaf & STATIC_BIT != 0 {
            Some((Stage::Static, self.leaf & !STATIC_BIT))
        } else {
            Some((Stage::Dynamic, self.leaf))
        }
    }

    /// Where the body's leaf sits in the pools, as one number: its tree in the top bit, its node index below;
    /// [`NONE`] when it is in no tree. Moves sorted by it are made in the trees' memory order (see
    /// `DynamicBvh::order_moves`).
    #[inline(always)]
    #[must_use]
    pub(crate) fn pool_order(&self) -> u32 {
        self.leaf
    }

    /// `true` when the body is in the dynamic tree.
    #[inline(always)]
    #[must_use]
    pub(crate) fn is_dynamic(&self) -> bool {
        self.leaf & STATIC_BIT == 0 && self.leaf != NONE
    }

    /// Whether the body is in the static tree.
    #[inline(always)]
    #[must_use]
    pub(crate) fn is_static(&self) -> bool {
        self.leaf & STATIC_BIT != 0 && self.leaf != NONE
    }

    /// Record that the body is in leaf `leaf` of `stage`'s tree, or in none.
    #[inline]
    pub(crate) fn set_place(&mut self, place: Option<(Stage, u32)>) {
        self.leaf = match place {
            None => NONE,
            Some((Stage::Dynamic, leaf)) => leaf,
            Some((Stage::Static, leaf)) => leaf | STATIC_BIT,
        };
    }
}

/// Where a body's centre was at its last insertion, and when: its velocity is estimated from this.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Anchor {
    pub center: Vec3,
    /// The call of the insertion; [`Anchor::UNKNOWN`] before the first one.
    pub at: u32,
}

impl Anchor {
    /// No insertion yet: no speed known.
    pub(crate) const UNKNOWN: Self = Self { center: Vec3::ZERO, at: u32::MAX };
}

/// Which bodies moved in the trees this call, and where their move is in the call's move list: the cache asks,
/// for every cached pair, whether a body of it moved (a bit per body, so the whole set stays in the L1 cache
/// while the pairs are walked), and, for a moved body, what its fat box was before.
#[derive(Clone, Debug, Default)]
pub(crate) struct Marks {
    /// Bit `i` set when body `i` moved this call.
    bits: Vec<u64>,
    /// The slot of body `i`'s move, when its bit is set.
    slots: Vec<u32>,
}

impl Marks {
    /// No body moved, for `n` bodies.
    pub(crate) fn clear(&mut self, n: usize) {
        self.bits.clear();
        self.bits.resize(n.div_ceil(64), 0);
        self.slots.resize(n, 0);
    }

    /// Body `i` moved, its move in `slot`.
    #[inline]
    pub(crate) fn set(&mut self, i: usize, slot: u32) {
        self.bits[i / 64] |= 1 << (i % 64);
        self.slots[i] = slot;
    }

    /// `true` when body `i` moved this call.
    #[inline(always)]
    #[must_use]
    pub(crate) fn moved(&self, i: usize) -> bool {
        self.bits[i / 64] >> (i % 64) & 1 != 0
    }

    /// The slot of body `i`'s move this call, if it moved.
    #[inline(always)]
    #[must_use]
    pub(crate) fn slot(&self, i: usize) -> Option<u32> {
        self.moved(i).then(|| self.slots[i])
    }
}

/// How fat boxes are sized (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FatPolicy {
    /// The base margin on every side, as a fraction of the body's largest extent.
    pub margin: f32,
    /// The calls of motion the reach covers (jittered per insertion between ½ and 1½ of this).
    pub horizon: f32,
    /// The most reach on an axis, as a multiple of the body's largest extent.
    pub max_reach: f32,
    /// A body too fast for the horizon's reach: its fat box reaches this many calls of its displacement ahead.
    pub multiplier: f32,
    /// A body too fast for the horizon's reach: this many calls of its largest displacement component on every
    /// side.
    pub spread: f32,
}

impl FatPolicy {
    /// The fat box of a body whose box is `b` now, at call `now`, inserted last as `anchor`; `jitter` in `[0, 1)`.
    #[inline]
    #[must_use]
    pub(crate) fn dynamic_box(&self, b: &Aabb, anchor: Anchor, now: u32, jitter: f32) -> Aabb {
        let size = (b.max - b.min).max_element();
        let base = Vec3::splat(self.margin * size);
        let center = crate::morton::center(b);
        let velocity = if anchor.at == Anchor::UNKNOWN.at || now <= anchor.at {
            Vec3::ZERO
        } else {
            (center - anchor.center) / (now - anchor.at) as f32
        };
        let cap = Vec3::splat(self.max_reach * size);
        // A displacement that overflowed (centres near ±f32::MAX) gives no usable speed (`clamp` would keep a NaN).
        let velocity = if velocity.is_finite() { velocity } else { Vec3::ZERO };
        let speed = velocity.abs().max_element();
        let (reach, spread) = if speed * (0.5 * self.horizon) <= self.max_reach * size {
            // Slow: a horizon's motion ahead.
            ((velocity * (self.horizon * (0.5 + jitter))).clamp(-cap, cap), 0.0)
        } else if speed * (self.multiplier + self.spread) <= self.max_reach * size {
            // Too fast for the horizon: a few calls' displacement ahead and around (see the module docs).
            (velocity * self.multiplier, speed * self.spread)
        } else {
            // Too fast for any affordable box: the base margin alone.
            (Vec3::ZERO, 0.0)
        };
        let base = base + Vec3::splat(spread);
        let fat = Aabb::new(b.min - base + reach.min(Vec3::ZERO), b.max + base + reach.max(Vec3::ZERO));
        // Near f32::MAX the margins overflow: fall back to the body's own box, which contains itself.
        if crate::bounds::is_usable(&fat) { fat } else { *b }
    }

    /// The fat box of a body at rest: the base margin only.
    #[inline]
    #[must_use]
    pub(crate) fn static_box(&self, b: &Aabb) -> Aabb {
        let base = Vec3::splat(self.margin * (b.max - b.min).max_element());
        let fat = Aabb::new(b.min - base, b.max + base);
        if crate::bounds::is_usable(&fat) { fat } else { *b }
    }
}

/// A number in `[0, 1)` from a body and a call (SplitMix64's finaliser): the jitter of that insertion's horizon.
#[inline]
#[must_use]
pub(crate) fn jitter(body: u32, now: u32) -> f32 {
    let mut z = (u64::from(body) << 32 | u64::from(now)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 40) as f32 / (1u64 << 24) as f32
}

#[cfg(test)]
mod tests;
