use super::*;
use collide_math::Rng;

fn build(boxes: &[Aabb], parallelism: Parallelism) -> FlatBvh {
    let mut bvh = FlatBvh::default();
    Builder::default().build(&mut bvh, boxes, parallelism);
    bvh
}

/// Random boxes, duplicated centres (equal codes: the index tie-break), a flat layer, and unusable boxes:
/// the tree is checked against the boxes, serial and parallel, and both paths build the same tree.
#[test]
fn builds_a_valid_tree_serial_and_parallel() {
    let mut rng = Rng::new(12);
    let mut boxes: Vec<Aabb> = (0..3000)
        .map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(50.0)), rng.range_f32(0.1, 2.0)))
        .collect();
    boxes.extend((0..300).map(|i| Aabb::from_center_radius(Vec3::splat(7.0), (i % 3) as f32)));
    boxes.extend((0..100).map(|i| Aabb::from_center_radius(Vec3::new(i as f32, 3.0, 9.0), 0.5)));
    boxes[17] = Aabb::EMPTY;
    boxes[900] = Aabb::new(Vec3::splat(f32::NAN), Vec3::ONE);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let serial = build(&boxes, Parallelism::SERIAL);
    serial.check(Some(&boxes)).unwrap();
    assert_eq!(serial.len, boxes.len() - 2);
    let parallel = pool.install(|| build(&boxes, Parallelism::with_min_work(0)));
    parallel.check(Some(&boxes)).unwrap();
    assert_eq!(parallel.nodes, serial.nodes);
    assert!(serial.height >= 12 && serial.height < 60, "height {}", serial.height);
}

#[test]
fn small_and_degenerate_inputs() {
    for boxes in [
        vec![],
        vec![Aabb::EMPTY],
        vec![Aabb::from_center_radius(Vec3::ONE, 1.0)],
        vec![Aabb::from_center_radius(Vec3::ONE, 1.0); 2],
        vec![Aabb::from_center_radius(Vec3::ONE, 0.0); 150],
        vec![
            Aabb::new(Vec3::splat(-1.0e30), Vec3::splat(1.0e30)),
            Aabb::from_center_radius(Vec3::splat(3.0e38), 1.0e38),
        ],
    ] {
        let bvh = build(&boxes, Parallelism::SERIAL);
        bvh.check(Some(&boxes)).unwrap();
    }
    // All at one point: equal codes, so the tree is the tree of the indices (balanced).
    let bvh = build(&vec![Aabb::from_center_radius(Vec3::ONE, 0.0); 1024], Parallelism::SERIAL);
    assert_eq!(bvh.height, 10);
}

#[test]
fn the_check_catches_a_wrong_box() {
    let mut rng = Rng::new(3);
    let boxes: Vec<Aabb> =
        (0..200).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(20.0)), 1.0)).collect();
    let mut bvh = build(&boxes, Parallelism::SERIAL);
    bvh.nodes[5].boxes[1].max.x += 1.0;
    assert!(bvh.check(Some(&boxes)).unwrap_err().contains("node 5 child 1"));
}
