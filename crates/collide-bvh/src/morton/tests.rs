use super::*;

#[test]
fn spread_interleaves_ten_bits() {
    assert_eq!(spread(0), 0);
    assert_eq!(spread(1), 1);
    assert_eq!(spread(0b11), 0b1001);
    assert_eq!(spread(0x3FF), 0x0924_9249);
    // Bits above the tenth are dropped.
    assert_eq!(spread(0x400), 0);
    for v in 0..1024u32 {
        let s = spread(v);
        assert_eq!(SPREAD[v as usize], s);
        for bit in 0..10 {
            assert_eq!((s >> (3 * bit)) & 1, (v >> bit) & 1, "v {v} bit {bit}");
        }
        assert_eq!(s & !0x0924_9249, 0);
    }
}

#[test]
fn codes_order_by_octree_cell() {
    let grid = Grid::new(Vec3::ZERO, Vec3::splat(8.0), MAX_BITS);
    // The lower-x half of the grid comes first (x is the top bit), then y, then z.
    let lower = grid.code(Vec3::new(3.9, 7.9, 7.9));
    let upper = grid.code(Vec3::new(4.1, 0.0, 0.0));
    assert!(lower < upper);
    assert_eq!(grid.code(Vec3::ZERO), 0);
    assert_eq!(grid.code(Vec3::splat(8.0)), 0x3FFF_FFFF, "the far corner is the last cell");
    assert_eq!(grid.code(Vec3::splat(-5.0)), 0, "clamped");
    // A flat axis has one cell: the code depends on the other axes only.
    let flat = Grid::new(Vec3::new(0.0, 2.0, 0.0), Vec3::new(8.0, 2.0, 8.0), MAX_BITS);
    assert_eq!(flat.code(Vec3::new(1.0, 2.0, 1.0)) & 0x1249_2492, 0);
}

#[test]
fn huge_spans_stay_finite() {
    let grid = Grid::new(Vec3::splat(-3.0e38), Vec3::splat(3.0e38), MAX_BITS);
    assert!(grid.scale.is_finite() && grid.scale.cmpgt(Vec3::ZERO).all());
    assert!(grid.code(Vec3::splat(-3.0e38)) < grid.code(Vec3::ZERO));
    assert!(grid.code(Vec3::ZERO) < grid.code(Vec3::splat(3.0e38)));
    let b = Aabb::new(Vec3::splat(3.0e38), Vec3::splat(3.4e38));
    assert!(center(&b).is_finite());
    assert_eq!(key_index(key(UNUSABLE, 77)), 77);
    assert!(key(0x3FFF_FFFF, u32::MAX) < key(UNUSABLE, 0));
    // Seven bits: 128 steps, the far corner the last 21-bit code.
    let coarse = Grid::new(Vec3::ZERO, Vec3::splat(8.0), 7);
    assert_eq!(coarse.code(Vec3::splat(8.0)), (1 << 21) - 1);
    assert_eq!(coarse.code(Vec3::splat(4.0)), 0b111 << 18);
    assert_eq!((bits_for(1000), bits_for(1 << 21), bits_for(3 << 20)), (7, 7, MAX_BITS));
}
