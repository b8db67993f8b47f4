//! What the grid shows of itself: its occupied cells, one box per cell that holds a body (a bucket of the torus
//! may hold several cells folded together; each is drawn where it really is), as wide along x as the bodies that
//! live in it, with the level as depth.

use crate::part::Part;
use crate::plan::{Plan, natural_level};
use collide_broadphase::{Aabb, DebugBox, DebugGeometry};
use collide_math::Vec3;

/// Append the occupied cells of this frame's `parts` to `out`. O(members · cells per bucket).
pub fn debug_geometry(plan: &Plan, parts: &[Part], out: &mut DebugGeometry) {
    for (p, part) in parts.iter().enumerate() {
        let level = usize::from(plan.part_level[p]);
        let lv = &plan.levels[level];
        for b in 0..lv.part_buckets().min(part.buckets()) {
            let first = out.boxes.len();
            for r in part.bucket(b) {
                let (min, max) = (r.min::<0>(), r.max::<0>());
                let c = plan.cells.of_box([min.y, min.z], [max.y, max.z]);
                debug_assert_eq!(usize::from(plan.map[natural_level(c)]), level);
                let (lo, hi) = plan.cells.square(level, c.x >> level, c.y >> level);
                let cell = Aabb::new(Vec3::new(min.x, lo[0], lo[1]), Vec3::new(max.x, hi[0], hi[1]));
                // One box per cell: a body of a cell drawn already widens it.
                match out.boxes[first..].iter_mut().find(|d| (d.aabb.min.y, d.aabb.min.z) == (cell.min.y, cell.min.z)) {
                    Some(d) => d.aabb = d.aabb.union(&cell),
                    None => out.boxes.push(DebugBox { aabb: cell, depth: level as u32 }),
                }
            }
        }
    }
}
