use super::*;
use crate::samples;
use collide_math::Rng;

#[test]
fn the_normal_points_from_b_to_a_whichever_shape_comes_first() {
    let sphere = Solid::Sphere(Vec3::new(0.0, 1.4, 0.0), 0.5);
    let cube = Solid::Box(Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY));
    let sb = solid_contact(&sphere, &cube).unwrap();
    assert_eq!((sb.normal, sb.len), (Vec3::Y, 1));
    let bs = solid_contact(&cube, &sphere).unwrap();
    assert_eq!(bs.normal, -Vec3::Y);
    assert_eq!(bs.points(), sb.points());
    let above = Solid::Box(Obb::new(Vec3::new(0.0, 1.9, 0.0), Vec3::ONE, Quat::IDENTITY));
    let bb = solid_contact(&above, &cube).unwrap();
    assert_eq!((bb.normal, bb.len), (Vec3::Y, 4));
    let ss = solid_contact(&sphere, &Solid::Sphere(Vec3::ZERO, 1.0)).unwrap();
    assert_eq!(ss.normal, Vec3::Y);
    assert!((ss.depth() - 0.1).abs() < 1e-6);
    assert!(solid_contact(&sphere, &Solid::Sphere(Vec3::new(5.0, 0.0, 0.0), 1.0)).is_none());
}

fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool").install(f)
}

/// Every pair tested one by one with the kernels (the answer) against the batch on every path: serial, forced
/// parallel on 1, 2 and 4 threads, and the shipped threshold — the same lists in the same order.
#[test]
fn the_batch_dispatches_each_pair_to_its_test_in_order_on_every_path() {
    let mut rng = Rng::new(9);
    let n = 2000;
    let position: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(12.0))).collect();
    let shape: Vec<Shape> = (0..n).map(|i| if i % 3 == 0 { Shape::Sphere } else { Shape::Box }).collect();
    let half_extents: Vec<Vec3> = (0..n).map(|_| samples::obb(&mut rng, Vec3::ZERO).half_extents).collect();
    let rotation: Vec<Quat> = (0..n).map(|_| samples::rotation(&mut rng)).collect();
    let radius: Vec<f32> = (0..n).map(|i| rng.range_f32(0.2, 0.9).min(half_extents[i].length())).collect();
    let bodies = ShapeColumns {
        position: &position,
        radius: &radius,
        shape: &shape,
        half_extents: &half_extents,
        rotation: &rotation,
    };
    let mut pairs = Vec::new();
    for i in 0..n as u32 {
        for j in i + 1..n as u32 {
            if (position[i as usize] - position[j as usize]).length() < 2.2 {
                pairs.push(Pair::new(i, j));
            }
        }
    }
    let (mut want_s, mut want_m) = (Vec::new(), Vec::new());
    for &p in &pairs {
        let (a, b) = (p.a as usize, p.b as usize);
        if shape[a] == Shape::Sphere && shape[b] == Shape::Sphere {
            want_s.extend(sphere_sphere(position[a], radius[a], position[b], radius[b]).map(|c| (p, c)));
        } else {
            want_m.extend(solid_contact(&bodies.solid(a), &bodies.solid(b)).map(|m| (p, m)));
        }
    }
    assert!(want_s.len() > 10 && want_m.len() > 100, "{} {}", want_s.len(), want_m.len());
    assert!(want_m.iter().any(|(_, m)| m.len == 4) && want_m.iter().any(|(_, m)| m.len == 1));
    for (threads, parallelism) in [
        (1, Parallelism::with_min_work(0)),
        (2, Parallelism::with_min_work(0)),
        (4, Parallelism::with_min_work(0)),
        (2, Parallelism::SERIAL),
        (2, Parallelism::default()),
    ] {
        let mut batch = ShapeContacts::default();
        let (mut s, mut m) = (vec![want_s[0]], Vec::new());
        in_pool(threads, || batch.find(parallelism, &pairs, &bodies, &mut s, &mut m));
        assert_eq!((&s, &m), (&want_s, &want_m), "{threads} threads, {parallelism:?}");
    }
}
