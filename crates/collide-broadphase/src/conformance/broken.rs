//! Broken boxes: the ways a box is made invalid ([`corrupt`]), and a moving body's box while it is broken — what
//! the invalid-box scenes and sequences (`invalid.rs`) and the moving sequences (`sequences.rs`) both build from.

use crate::Aabb;
use collide_math::{Rng, Vec3};

/// The ways a box can be invalid, one per `kind` of [`corrupt`].
pub const KINDS: u8 = 10;

/// `b` made invalid in one of [`KINDS`] ways: a NaN corner coordinate, an infinite corner, a box spanning
/// everything (both corners infinite), inverted on one axis by a lot or by one float step, both corners swapped,
/// or [`Aabb::EMPTY`].
#[must_use]
pub fn corrupt(b: Aabb, kind: u8) -> Aabb {
    let (mut min, mut max) = (b.min, b.max);
    match kind % KINDS {
        0 => min.x = f32::NAN,
        1 => max.z = f32::NAN,
        2 => max.y = f32::INFINITY,
        3 => min.x = f32::NEG_INFINITY,
        4 => return Aabb::new(Vec3::NEG_INFINITY, Vec3::INFINITY),
        5 => min.y = max.y + 10.0,
        6 => max.z = min.z.next_down(),
        7 => return Aabb::new(b.max + 1.0, b.min - 1.0),
        8 => return Aabb::EMPTY,
        _ => (min, max) = (Vec3::splat(f32::NAN), Vec3::splat(f32::NAN)),
    }
    Aabb::new(min, max)
}

/// Body `i` of a moving sequence breaks with this chance per frame (`0` for the valid sequences); a broken body
/// heals with a chance of one in five per frame. Used by [`Sequence::run`].
pub fn break_and_heal(rng: &mut Rng, chance: f32, broken: &mut [u8]) {
    for b in broken.iter_mut() {
        if *b == 0 {
            if rng.chance(chance) {
                *b = 1 + rng.below(u32::from(KINDS)) as u8;
            }
        } else if rng.chance(0.2) {
            *b = 0;
        }
    }
}

/// A broken body's box as the frame shows it: `kind − 1` of [`corrupt`], or the box itself for `0`. Kinds whose
/// result does not depend on the box (everything, empty, all NaN) stay bit for bit the same while the body rests
/// broken, so that a structure keeping resting bodies apart meets an unmoved invalid box too.
pub fn shown(b: Aabb, broken: u8) -> Aabb {
    if broken == 0 { b } else { corrupt(b, broken - 1) }
}
