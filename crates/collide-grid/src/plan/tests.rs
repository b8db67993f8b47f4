use super::*;

#[test]
fn cells_are_floors_clamped_and_monotone() {
    let cells = Cells::new([0.5, 0.5], [1.0, -1.0]);
    assert_eq!(cells.of(Vec4::new(1.0, -1.0, 1.49, -1.01)), IVec4::new(0, 0, 0, -1));
    let limit = (1 << 22) - 1;
    let c = cells.of(Vec4::new(1e30, -1e30, f32::MAX, -f32::MAX));
    assert_eq!(c, IVec4::new(limit, -limit, limit, -limit));
    let c = cells.of(Vec4::new(1.0 + 0.5 * 4_194_302.5, -1.0 - 0.5 * 3.5, 1.0 - 0.5 * 4_194_302.5, -1.0));
    assert_eq!(c, IVec4::new(4_194_302, -4, -4_194_303, 0));
    // Monotone across the clamp and the float's coarse steps.
    let vs = [-f32::MAX, -1e30, -3e8, -2.0e8, -1.0, 0.0, 0.7, 1.2e8, 2.7e8, 1e30, f32::MAX];
    let of: Vec<i32> = vs.iter().map(|&v| cells.of(Vec4::splat(v)).x).collect();
    assert!(of.windows(2).all(|w| w[0] <= w[1]), "{of:?}");
    // An origin far from the coordinates: the subtraction overflows to infinity, and the clamp still holds.
    let far = Cells::new([1.0, 1.0], [-3e38, 3e38]);
    assert_eq!(far.of(Vec4::new(3e38, -3e38, 0.0, 0.0)), IVec4::new(limit, -limit, limit, -limit));
    assert_eq!(cells.square(1, 1, -1), ([2.0, -2.0], [3.0, -1.0]));
}

#[test]
fn natural_levels_are_the_finest_where_a_box_spans_two_cells_at_most() {
    let level = |lo: [i32; 2], hi: [i32; 2]| natural_level(IVec4::new(lo[0], lo[1], hi[0], hi[1]));
    assert_eq!(level([0, 0], [1, 1]), 0);
    assert_eq!(level([5, -3], [5, -2]), 0);
    // Two cells apart: level 1 when the pair straddles no boundary of level 1, else level 2.
    assert_eq!(level([0, 0], [2, 0]), 1);
    assert_eq!(level([1, 0], [3, 0]), 1, "cells 0 and 1 of level 1");
    assert_eq!(level([3, 0], [5, 0]), 1);
    assert_eq!(level([-1, 0], [1, 0]), 1);
    assert_eq!(level([0, 7], [0, 15]), 3, "7 >> 3 = 0, 15 >> 3 = 1");
    assert_eq!(level([0, 7], [0, 16]), 4);
    let limit = (1 << 22) - 1;
    assert_eq!(level([-limit, 0], [limit, 0]), 22);
    // Small at a level, small at every coarser one.
    let mut rng = collide_math::Rng::new(3);
    for _ in 0..10_000 {
        let lo = [rng.below(2000) as i32 - 1000, rng.below(2000) as i32 - 1000];
        let hi = [lo[0] + rng.below(300) as i32, lo[1] + rng.below(40) as i32];
        let c = IVec4::new(lo[0], lo[1], hi[0], hi[1]);
        let l = natural_level(c);
        assert!(small_at(c, l) && (l == 0 || !small_at(c, l - 1)), "{c}: {l}");
        assert!((l..MAX_LEVELS).all(|m| small_at(c, m)), "{c}: {l}");
    }
}

#[test]
fn cells_hash_onto_the_torus_and_its_partitions() {
    // 8 rows in 4 partitions of 2 rows, 4 columns: a partition holds 2 · 4 buckets.
    let level = Level::new([3, 2], 2, 5);
    assert_eq!((level.torus(), level.parts(), level.part_buckets()), ([8, 4], 4, 8));
    assert_eq!(level.locate(0, 0), (5, 0));
    assert_eq!(level.locate(3, 2), (6, 4 + 2));
    // Cell (−1, −1) wraps to row 7, column 3; cell (9, 5) to row 1, column 1.
    assert_eq!(level.locate(-1, -1), (8, 4 + 3));
    assert_eq!(level.locate(9, 5), (5, 4 + 1));
    assert_eq!(Level::new([0, 0], 3, 0).part_bits, 0, "no more partitions than rows");
    assert_eq!(levels(0b1011).collect::<Vec<_>>(), [0, 1, 3]);
    assert_eq!((low_mask(0), low_mask(2), low_mask(31)), (1, 7, u32::MAX));
}
