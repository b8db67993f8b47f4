//! What the grid shows of itself: its occupied cells, one box per cell that holds a body (a bucket of the torus
//! may hold several cells folded together; each is drawn where it really is), as wide along x as the bodies it
//! holds within the slab, with the level as depth.

use crate::plan::Plan;
use crate::slab::{Kind, Slab, levels};
use collide_broadphase::{Aabb, DebugBox, DebugGeometry};
use collide_math::Vec3;

/// Append the occupied cells of this frame's `slabs` to `out`. O(entries · cells per bucket).
pub fn debug_geometry(plan: &Plan, slabs: &[Slab], out: &mut DebugGeometry) {
    for (s, slab) in slabs.iter().enumerate() {
        let (start, end) = (plan.slab_start(s), plan.slab_end(s));
        for l in levels(slab.layout.present) {
            let level = &plan.levels[l];
            for c in 0..level.columns() {
                let first = out.boxes.len();
                for r in slab.bucket(slab.layout.bucket(plan, l, Kind::Members, c)) {
                    let (j, k) = level.cell_in_column(r, c);
                    let (lo, hi) = level.cell_square(j, k);
                    let x = (r.lo().max(start), r.hi().min(end));
                    let cell = Aabb::new(Vec3::new(x.0, lo[0], lo[1]), Vec3::new(x.1, hi[0], hi[1]));
                    // One box per cell: a body of a cell drawn already widens it.
                    match out.boxes[first..]
                        .iter_mut()
                        .find(|d| (d.aabb.min.y, d.aabb.min.z) == (cell.min.y, cell.min.z))
                    {
                        Some(d) => d.aabb = d.aabb.union(&cell),
                        None => out.boxes.push(DebugBox { aabb: cell, depth: l as u32 }),
                    }
                }
            }
        }
    }
}
