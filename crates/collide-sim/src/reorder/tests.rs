use super::*;
use collide_math::Rng;

#[test]
fn morton_interleaves_the_bits_of_x_y_and_z() {
    assert_eq!(morton([0, 0, 0]), 0);
    assert_eq!(morton([1, 0, 0]), 0b001);
    assert_eq!(morton([0, 1, 0]), 0b010);
    assert_eq!(morton([0, 0, 1]), 0b100);
    assert_eq!(morton([3, 0, 0]), 0b001_001);
    assert_eq!(morton([1023, 1023, 1023]), (1 << 30) - 1);
    // Written out bit by bit, for arbitrary cells.
    let mut rng = Rng::new(3);
    for _ in 0..1000 {
        let cell = [0; 3].map(|_| rng.below(1024));
        let slow = (0..30).fold(0u32, |code, bit| code | ((cell[bit % 3] >> (bit / 3)) & 1) << bit);
        assert_eq!(morton(cell), slow, "{cell:?}");
    }
}

fn scattered_bodies(n: usize, seed: u64) -> Bodies {
    let mut rng = Rng::new(seed);
    let mut bodies = Bodies::default();
    for _ in 0..n {
        let p = Vec3::new(rng.range_f32(0.0, 100.0), rng.range_f32(0.0, 100.0), rng.range_f32(0.0, 100.0));
        bodies.push_sphere(p, Vec3::new(rng.range_f32(-1.0, 1.0), 0.0, 0.0), rng.range_f32(0.2, 0.6));
    }
    bodies
}

fn container() -> Aabb {
    Aabb::new(Vec3::ZERO, Vec3::splat(100.0))
}

/// The Morton code of every body's cell in index order, computed here from the definition (the container is
/// [0, 100]³, cut into 2^bits cells a side).
fn codes(bodies: &Bodies) -> Vec<u32> {
    let side = 1u32 << Reorder::bits(bodies.len());
    let cell = 100.0 / side as f32;
    bodies.position.iter().map(|p| morton([p.x, p.y, p.z].map(|x| ((x / cell) as u32).min(side - 1)))).collect()
}

/// Sorted by cell, and within a cell by id (the spawn gave ids in index order, and the sort is stable).
fn in_cell_order(bodies: &Bodies) -> bool {
    let codes = codes(bodies);
    (1..bodies.len()).all(|i| (codes[i - 1], bodies.id[i - 1]) < (codes[i], bodies.id[i]))
}

#[test]
fn a_spawn_sorted_by_the_reorder_is_in_morton_order_with_every_body_kept() {
    for parallel in [Parallelism::SERIAL, Parallelism::with_min_work(16)] {
        let mut bodies = scattered_bodies(5000, 1);
        let before = bodies.clone();
        Reorder::new(8, &container()).spawned(parallel, &mut bodies);
        assert!(in_cell_order(&bodies), "not in cell order, stable, after the spawn's sort");
        bodies.validate().unwrap();
        // Every body is where its id says it came from, whole.
        for (i, &id) in bodies.id.iter().enumerate() {
            let k = id as usize;
            assert_eq!(bodies.position[i], before.position[k]);
            assert_eq!(bodies.velocity[i], before.velocity[k]);
            assert_eq!(bodies.radius[i], before.radius[k]);
            assert_eq!(bodies.inv_mass[i], before.inv_mass[k]);
        }
        assert!(!bodies.ids_in_order(), "5000 random bodies cannot already be in Morton order");
    }
}

#[test]
fn a_reorder_permutes_every_column_and_returns_the_inverse_map() {
    // Serial, and parallel on both threads (the two groups of columns on two tasks).
    for parallel in [Parallelism::SERIAL, Parallelism::with_min_work(16)] {
        let mut bodies = scattered_bodies(3000, 2);
        bodies.enable_spin();
        for i in (0..3000).step_by(3) {
            bodies.make_box(i, Vec3::new(0.3, 0.2, 0.1), collide_math::Quat::from_rotation_y(i as f32));
        }
        bodies.last_contact.iter_mut().enumerate().for_each(|(i, c)| *c = i as u64 * 3);
        let mut aabbs = vec![Aabb::default(); bodies.len()];
        let before = bodies.clone();
        let mut reorder = Reorder::new(8, &container());
        let map = reorder.reorder(parallel, &mut bodies, &mut aabbs).expect("random bodies are out of order").to_vec();
        reorder.validate(bodies.len()).unwrap();
        bodies.validate().unwrap();
        assert!(in_cell_order(&bodies));
        let s = bodies.spin().unwrap();
        let s0 = before.spin().unwrap();
        for (old, &new) in map.iter().enumerate() {
            let new = new as usize;
            assert_eq!(bodies.id[new] as usize, old, "ids follow their bodies (the spawn gave id = index)");
            assert_eq!(bodies.position[new], before.position[old]);
            assert_eq!(bodies.velocity[new], before.velocity[old]);
            assert_eq!(bodies.radius[new], before.radius[old]);
            assert_eq!(bodies.inv_mass[new], before.inv_mass[old]);
            assert_eq!(bodies.last_contact[new], before.last_contact[old]);
            assert_eq!(s.shape[new], s0.shape[old]);
            assert_eq!(s.half_extents[new], s0.half_extents[old]);
            assert_eq!(s.rotation[new], s0.rotation[old]);
            assert_eq!(s.angular_velocity[new], s0.angular_velocity[old]);
            assert_eq!(s.inv_inertia[new], s0.inv_inertia[old]);
        }
        assert_eq!(s.boxes(), s0.boxes());
        // Sorted now: a second reorder finds nothing to move.
        assert!(reorder.reorder(parallel, &mut bodies, &mut aabbs).is_none());
    }
}

#[test]
fn a_reorder_is_due_every_k_steps_but_never_at_step_zero_or_when_off() {
    let r = Reorder::new(4, &container());
    let due: Vec<u64> = (0..13).filter(|&s| r.due(s)).collect();
    assert_eq!(due, [4, 8, 12]);
    let off = Reorder::new(0, &container());
    assert!((0..100).all(|s| !off.due(s)));
}

#[test]
fn bodies_outside_the_container_and_non_finite_ones_take_a_clamped_cell_without_panicking() {
    let mut bodies = scattered_bodies(100, 3);
    bodies.position[0] = Vec3::splat(-1e30);
    bodies.position[1] = Vec3::splat(1e30);
    bodies.position[2] = Vec3::new(f32::NAN, 5.0, f32::INFINITY);
    let mut aabbs = vec![Aabb::default(); 100];
    let mut reorder = Reorder::new(1, &container());
    reorder.reorder(Parallelism::SERIAL, &mut bodies, &mut aabbs);
    bodies.validate().unwrap();
    // The far corners' bodies take the first and the last cells, clamped on every axis.
    assert!(codes(&bodies).is_sorted());
    let code_of = |p: Vec3| codes(&bodies)[bodies.position.iter().position(|&q| q == p).unwrap()];
    assert_eq!((code_of(Vec3::splat(-1e30)), code_of(Vec3::splat(1e30))), (0, 7));
}

#[test]
fn the_cells_hold_8_to_64_bodies_and_their_count_is_bounded() {
    for n in [1, 7, 8, 63, 64, 1000, 100_000, 1_000_000, 100_000_000] {
        let bits = Reorder::bits(n);
        let cells = 1usize << (3 * bits);
        assert!((1..=MAX_BITS).contains(&bits), "n = {n}: {bits} bits");
        if (64..=1 << (3 * MAX_BITS + 3)).contains(&n) {
            let per_cell = n as f64 / cells as f64;
            assert!((8.0..=64.0).contains(&per_cell), "n = {n}: {per_cell} bodies a cell");
        }
    }
}

/// A later sort keeps the order within each cell: bodies that did not change cells keep their relative order, so
/// moving a few bodies moves few places.
#[test]
fn a_later_sort_moves_only_what_changed_cells() {
    let mut bodies = scattered_bodies(4000, 5);
    let mut reorder = Reorder::new(1, &container());
    reorder.spawned(Parallelism::SERIAL, &mut bodies);
    // Ten bodies jump far; the others stay.
    for i in (0..4000).step_by(400) {
        bodies.position[i] = Vec3::splat(100.0) - bodies.position[i];
    }
    let mut scratch = vec![Aabb::default(); 4000];
    let map = reorder.reorder(Parallelism::SERIAL, &mut bodies, &mut scratch).unwrap().to_vec();
    assert!(in_cell_order(&bodies) || codes(&bodies).is_sorted());
    // Every body but the ten keeps its order relative to the others that stayed.
    let stayed: Vec<u32> = (0..4000u32).filter(|i| i % 400 != 0).map(|i| map[i as usize]).collect();
    assert!(stayed.is_sorted(), "bodies that stayed in their cells changed their relative order");
}
