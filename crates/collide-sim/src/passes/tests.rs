use super::*;
use collide_math::Rng;

/// The flat, four-bodies-at-a-time loop gives the bits of `v += g·dt; p += v·dt` on `Vec3`s, body by body —
/// with and without gravity, on a body count whose last chunk is not a multiple of four, serial and in
/// parallel chunks.
#[test]
fn integration_gives_the_bits_of_the_per_body_formula() {
    let mut rng = Rng::new(11);
    let n = 1003;
    let position: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::splat(-50.0), Vec3::splat(50.0))).collect();
    let velocity: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::splat(-9.0), Vec3::splat(9.0))).collect();
    let dt = 1.0 / 60.0;
    for gravity in [Vec3::ZERO, Vec3::new(0.0, -9.81, 0.0), Vec3::new(0.3, -9.81, 1.7)] {
        let (mut want_p, mut want_v) = (position.clone(), velocity.clone());
        for (p, v) in want_p.iter_mut().zip(&mut want_v) {
            if gravity != Vec3::ZERO {
                *v += gravity * dt;
            }
            *p += *v * dt;
        }
        for parallelism in [Parallelism::SERIAL, Parallelism::with_min_work(0)] {
            let (mut p, mut v) = (position.clone(), velocity.clone());
            rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .expect("a pool")
                .install(|| integrate(parallelism, &mut p, &mut v, gravity, dt));
            let bits = |x: &[Vec3]| x.iter().flat_map(|v| v.to_array().map(f32::to_bits)).collect::<Vec<_>>();
            assert_eq!(bits(&p), bits(&want_p), "positions, gravity {gravity}, {parallelism:?}");
            assert_eq!(bits(&v), bits(&want_v), "velocities, gravity {gravity}, {parallelism:?}");
        }
    }
}
