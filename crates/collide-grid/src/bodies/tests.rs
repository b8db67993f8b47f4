use super::*;
use crate::plan::{Cells, Level};
use collide_math::Vec3;

/// Unit cells from the origin; level 0 on 4 × 4 columns in two partitions, level 2 on 2 × 2 in one.
fn plan(present: u32) -> Plan {
    let mut plan = Plan { cells: Cells::new([1.0; 2], [0.0; 2]), present, ..Plan::default() };
    plan.map = std::array::from_fn(|l| l as u8);
    plan.map[1] = 2;
    plan.levels[0] = Level::new([2, 2], 1, 0);
    plan.levels[2] = Level::new([1, 1], 0, 2);
    plan.part_level = vec![0, 0, 2];
    plan
}

#[test]
fn bodies_go_to_their_min_corners_cell_and_invalid_boxes_nowhere() {
    let aabbs = [
        Aabb::new(Vec3::new(0.0, 0.5, 0.5), Vec3::new(1.0, 1.5, 1.5)), // level 0, cell (0, 0)
        Aabb::new(Vec3::new(0.0, 2.5, 1.0), Vec3::new(1.0, 3.0, 2.0)), // level 0, cell (2, 1): partition 1
        Aabb::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ONE),           // invalid
        Aabb::new(Vec3::new(0.0, 0.5, 5.0), Vec3::new(1.0, 2.5, 6.0)), // natural level 1, lives at 2: cell (0, 1)
        Aabb::new(Vec3::new(3.0, 2.0, 0.0), Vec3::new(4.0, 1.0, 1.0)), // inverted on y
    ];
    let mut chunk = BodyChunk { bodies: 0..5, ..BodyChunk::default() };
    chunk.scatter(&aabbs, &plan(0b101), InvalidBoxes::OverlapNothing);
    let got =
        |chunk: &BodyChunk, p: usize| chunk.parts[p].iter().map(|e| (e.record.id(), e.bucket)).collect::<Vec<_>>();
    // Partition 2 (level 2): buckets 0..4; body 3 in cell (0, 1).
    assert_eq!((got(&chunk, 0), got(&chunk, 1), got(&chunk, 2)), (vec![(0, 0)], vec![(1, 1)], vec![(3, 1)]));
    assert_eq!((chunk.invalid, chunk.natural), (2, 0b11));
    assert_eq!(chunk.tally.work, 5 + 3, "five boxes read, three entries written");
    // Without level 2 present, body 3 is left out and shows in `natural`.
    chunk.scatter(&aabbs, &plan(0b1), InvalidBoxes::OverlapNothing);
    let lens = [0, 1, 2].map(|p| got(&chunk, p).len());
    assert_eq!((lens, chunk.natural), ([1, 1, 0], 0b11));
}

#[test]
#[should_panic(expected = "body 2: ")]
fn invalid_boxes_panic_naming_the_body_when_asked() {
    let aabbs = [Aabb::from_center_radius(Vec3::ZERO, 1.0); 2]
        .into_iter()
        .chain([Aabb::new(Vec3::ZERO, Vec3::new(1.0, f32::INFINITY, 1.0))])
        .collect::<Vec<_>>();
    BodyChunk { bodies: 0..3, ..BodyChunk::default() }.scatter(&aabbs, &plan(1), InvalidBoxes::Panic);
}
