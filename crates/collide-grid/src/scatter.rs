//! The body pass: each body's box read once, checked, made into a sweep record and copied to every slab its box
//! reaches into along x. The frame's only pass over the caller's boxes; everything after it reads the records.
//!
//! The bodies are cut into chunks, one task each; a chunk writes its records into one vector per slab of its own,
//! so chunks never share a buffer, and a slab later reads its vector of every chunk in chunk order.

use crate::plan::{Plan, is_valid};
use collide_broadphase::sweep::SweepBox;
use collide_broadphase::{Aabb, InvalidBoxes, Tally};
use std::ops::Range;

/// A chunk of bodies and the records it wrote, one vector per slab (kept across frames).
#[derive(Clone, Debug, Default)]
pub struct BodyChunk {
    /// The bodies of this chunk.
    pub bodies: Range<usize>,
    /// `parts[s]`: the records of this chunk's boxes that reach into slab `s`, in body order.
    pub parts: Vec<Vec<SweepBox>>,
    /// Bodies whose box is invalid (non-finite or inverted), left out.
    pub invalid: u64,
    /// The records written and bytes moved.
    pub tally: Tally,
}

impl BodyChunk {
    /// Read the chunk's boxes of `aabbs` and write their records into `parts`, one vector per slab of `plan`.
    /// `policy`: the frame's, whether an invalid box panics naming the body or is left out.
    pub fn scatter(&mut self, aabbs: &[Aabb], plan: &Plan, policy: InvalidBoxes) {
        let slabs = plan.slabs();
        if self.parts.len() < slabs {
            self.parts.resize_with(slabs, Vec::new);
        }
        for part in &mut self.parts {
            part.clear();
        }
        let (mut invalid, mut written) = (0, 0);
        for i in self.bodies.clone() {
            let b = &aabbs[i];
            if !is_valid(b) {
                policy.reject(i, b);
                invalid += 1;
                continue;
            }
            let record = SweepBox::on::<0>(b, i as u32);
            if slabs == 1 {
                self.parts[0].push(record);
                written += 1;
                continue;
            }
            let first = plan.slab_of(b.min.x);
            let last = plan.slab_after(first, b.max.x);
            for part in &mut self.parts[first..=last] {
                part.push(record);
            }
            written += last - first + 1;
        }
        self.invalid = invalid;
        // Per body a box read (24 B); per record 28 B written.
        let n = self.bodies.len() as u64;
        self.tally = Tally::work(n + written as u64, n * 24 + written as u64 * 28);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use collide_math::Vec3;

    #[test]
    fn records_go_to_every_slab_their_box_reaches_and_invalid_boxes_nowhere() {
        let mut plan = Plan {
            slab_bounds: vec![0.0, 10.0],
            levels: vec![Default::default()],
            level_extent: 1.0,
            ..Plan::default()
        };
        plan.index_slabs();
        let aabbs = [
            Aabb::new(Vec3::new(-5.0, 0.0, 0.0), Vec3::new(-1.0, 1.0, 1.0)), // slab 0
            Aabb::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(12.0, 1.0, 1.0)), // slabs 0, 1, 2
            Aabb::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ONE),             // invalid
            Aabb::new(Vec3::new(10.0, 0.0, 0.0), Vec3::new(11.0, 1.0, 1.0)), // slab 2 (a boundary starts it)
            Aabb::new(Vec3::new(3.0, 2.0, 0.0), Vec3::new(4.0, 1.0, 1.0)),   // inverted on y
        ];
        let mut chunk = BodyChunk { bodies: 0..5, ..BodyChunk::default() };
        chunk.scatter(&aabbs, &plan, InvalidBoxes::OverlapNothing);
        let ids = |s: usize| chunk.parts[s].iter().map(SweepBox::id).collect::<Vec<_>>();
        assert_eq!((ids(0), ids(1), ids(2)), (vec![0, 1], vec![1], vec![1, 3]));
        assert_eq!(chunk.invalid, 2);
        assert_eq!(chunk.tally.work, 5 + 5);
    }

    #[test]
    #[should_panic(expected = "body 2: ")]
    fn invalid_boxes_panic_naming_the_body_when_asked() {
        let plan = Plan { levels: vec![Default::default()], level_extent: 1.0, ..Plan::default() };
        let aabbs = [Aabb::from_center_radius(Vec3::ZERO, 1.0); 2]
            .into_iter()
            .chain([Aabb::new(Vec3::ZERO, Vec3::new(1.0, f32::INFINITY, 1.0))])
            .collect::<Vec<_>>();
        BodyChunk { bodies: 0..3, ..BodyChunk::default() }.scatter(&aabbs, &plan, InvalidBoxes::Panic);
    }
}
