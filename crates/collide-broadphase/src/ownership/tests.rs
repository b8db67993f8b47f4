use super::*;
use crate::{Aabb, PairList, reference_pairs};
use collide_math::Rng;

/// A 4×4×4 partition of `[0, 8)³` with infinite outer faces, boxes stored in every cell they touch: each
/// overlapping pair is reported by exactly one cell, touching boxes and boxes outside the lattice included.
#[test]
fn one_cell_reports_each_pair_once() {
    let mut rng = Rng::new(4);
    let aabbs: Vec<Aabb> = (0..400)
        .map(|_| {
            let c = Vec3::new(rng.below(20) as f32, rng.below(20) as f32, rng.below(20) as f32) * 0.5 - 1.0;
            Aabb::from_center_radius(c, rng.below(3) as f32 * 0.5)
        })
        .collect();
    let bound = |c: u32| {
        if c == 0 {
            f32::NEG_INFINITY
        } else if c == 4 {
            f32::INFINITY
        } else {
            2.0 * c as f32
        }
    };
    let mut got = PairList::new();
    for cell in 0..64u32 {
        let k = [cell % 4, cell / 4 % 4, cell / 16];
        let lo = Vec3::new(bound(k[0]), bound(k[1]), bound(k[2]));
        let hi = Vec3::new(bound(k[0] + 1), bound(k[1] + 1), bound(k[2] + 1));
        let stored: Vec<usize> =
            (0..aabbs.len()).filter(|&i| aabbs[i].min.cmplt(hi).all() && aabbs[i].max.cmpge(lo).all()).collect();
        for (x, &i) in stored.iter().enumerate() {
            for &j in &stored[x + 1..] {
                if aabbs[i].overlaps(&aabbs[j]) && owns(lo, hi, owner_point(aabbs[i].min, aabbs[j].min)) {
                    got.push(i as u32, j as u32);
                }
            }
        }
    }
    let mut want = PairList::new();
    reference_pairs(&aabbs, &mut want);
    assert_eq!(got.sort_dedup(), 0, "a pair reported twice");
    assert_eq!(got, want);
}
