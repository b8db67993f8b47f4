use super::Scene;
use crate::Aabb;
use collide_math::{Rng, Vec3};

/// The container most scenes live in: `[0, 100]³`.
pub(super) const WORLD: f32 = 100.0;

fn cube(center: Vec3, half: f32) -> Aabb {
    Aabb::from_center_radius(center, half)
}

/// `n` cubes of half edge in `half_range`, centres uniform in the world box.
pub(super) fn uniform(rng: &mut Rng, n: usize, half_range: (f32, f32)) -> Vec<Aabb> {
    (0..n)
        .map(|_| cube(rng.point_in(Vec3::ZERO, Vec3::splat(WORLD)), rng.range_f32(half_range.0, half_range.1)))
        .collect()
}

/// The static scenes of the kit. Sizes are chosen so that each has a few hundred to a few thousand pairs:
/// enough to exercise every branch, small enough for the O(n²) reference in a debug test. One long function on
/// purpose: the scenes read as a list, each with the reason it is there.
#[must_use]
pub fn static_scenes() -> Vec<Scene> {
    let mut rng = Rng::new(0xC0111DE);
    let mut scenes = Vec::new();

    scenes.push(Scene { name: "uniform", aabbs: uniform(&mut rng, 1500, (0.5, 3.0)) });

    // Five tight Gaussian clusters: many pairs inside, few across; the octree-nodup and grid hard case.
    let centers: Vec<Vec3> = (0..5).map(|_| rng.point_in(Vec3::splat(10.0), Vec3::splat(90.0))).collect();
    let clustered = (0..1500)
        .map(|i| {
            let c = centers[i % centers.len()];
            let offset = Vec3::new(rng.normal(), rng.normal(), rng.normal()) * 3.0;
            cube(c + offset, rng.range_f32(0.2, 1.0))
        })
        .collect();
    scenes.push(Scene { name: "clustered", aabbs: clustered });

    // Everything at one point: every pair overlaps (n(n-1)/2 of them); trees must stop splitting.
    scenes.push(Scene { name: "one-point", aabbs: vec![cube(Vec3::splat(42.0), 1.0); 150] });
    scenes.push(Scene { name: "one-point-zero-size", aabbs: vec![cube(Vec3::splat(17.5), 0.0); 100] });

    // One body larger than the rest of the world together, among many small ones; it goes first, last and in
    // the middle so index order cannot hide a bug.
    let mut huge = uniform(&mut rng, 600, (0.2, 1.0));
    let big = Aabb::new(Vec3::splat(-50.0), Vec3::splat(150.0));
    huge.insert(0, big);
    huge.insert(300, Aabb::new(Vec3::new(10.0, 10.0, 10.0), Vec3::new(60.0, 70.0, 80.0)));
    huge.push(big);
    scenes.push(Scene { name: "huge-among-small", aabbs: huge });

    // Mixed sizes: 10% of bodies 8x the radius of the rest (1:8).
    let mixed = (0..1200)
        .map(|i| {
            let r = if i % 10 == 3 { 4.0 } else { 0.5 };
            cube(rng.point_in(Vec3::ZERO, Vec3::splat(WORLD)), r)
        })
        .collect();
    scenes.push(Scene { name: "mixed-sizes", aabbs: mixed });

    // Bodies touching the container walls exactly (min or max on 0 or WORLD), corners included.
    let mut walls = Vec::new();
    for i in 0..400 {
        let h = 1.0;
        let mut c = rng.point_in(Vec3::splat(h), Vec3::splat(WORLD - h));
        let axis = i % 3;
        c[axis] = if i % 2 == 0 { h } else { WORLD - h };
        if i % 7 == 0 {
            c[(axis + 1) % 3] = if i % 4 < 2 { h } else { WORLD - h };
        }
        walls.push(cube(c, h));
    }
    scenes.push(Scene { name: "walls", aabbs: walls });

    scenes.push(Scene { name: "grid-3x3x3-touching", aabbs: touching_grid(3) });
    scenes.push(Scene { name: "grid-8x8x8-touching", aabbs: touching_grid(8) });

    // Zero-size boxes on a coarse lattice: exact coincidences are the only overlaps.
    let points = (0..500)
        .map(|_| {
            let p = Vec3::new(rng.below(6) as f32, rng.below(6) as f32, rng.below(6) as f32) * 10.0;
            Aabb::new(p, p)
        })
        .collect();
    scenes.push(Scene { name: "zero-size", aabbs: points });

    // A flat layer: every box has the same z extent, so one axis gives no separation at all.
    let flat = (0..800)
        .map(|_| {
            let c = rng.point_in(Vec3::ZERO, Vec3::new(WORLD, WORLD, 0.0));
            Aabb::new(c - Vec3::new(1.0, 1.0, 0.0), c + Vec3::new(1.0, 1.0, 0.0))
        })
        .collect();
    scenes.push(Scene { name: "flat-layer", aabbs: flat });

    // Far from the origin and partly negative: no algorithm may assume a world box at the origin.
    let far = uniform(&mut rng, 500, (0.5, 2.0))
        .into_iter()
        .map(|b| {
            let shift = Vec3::new(-1.0e4, 2.5e3, -3.0e3);
            Aabb::new(b.min + shift, b.max + shift)
        })
        .collect();
    scenes.push(Scene { name: "far-from-origin", aabbs: far });

    // Long thin sticks along each axis: large extent on one axis, tiny on the others.
    let sticks = (0..600)
        .map(|i| {
            let c = rng.point_in(Vec3::ZERO, Vec3::splat(WORLD));
            let mut h = Vec3::splat(0.2);
            h[i % 3] = 25.0;
            Aabb::from_center_half_extents(c, h)
        })
        .collect();
    scenes.push(Scene { name: "sticks", aabbs: sticks });

    // Huge but finite coordinates: a few bodies at ±1e30 among ordinary ones (a structure sized on the bounds
    // must not pile the ordinary ones into one cell), one box spanning ±1e30 on every axis, and a crowd living near
    // 1e30 itself, where the float spacing is ~1e23 (boxes 1e25 wide, some touching exactly).
    scenes.push(Scene { name: "far-outliers", aabbs: with_outliers(uniform(&mut rng, 800, (0.5, 2.0))) });
    let near = (0..400)
        .map(|i| {
            let c = Vec3::new(1.0e30, -1.0e30, 1.0e30) + rng.point_in(Vec3::ZERO, Vec3::splat(1.0e27));
            let c = if i % 7 == 0 { Vec3::new(1.0e30, -1.0e30, 1.0e30) } else { c };
            cube(c, 1.0e25)
        })
        .collect();
    scenes.push(Scene { name: "near-1e30", aabbs: near });

    // The ends of f32: boxes on the faces f32::MAX and f32::MIN (flat ones too), one spanning the whole range, among
    // ordinary ones. A centre computed as `(min + max) / 2` overflows to infinity here (the fuzz target found an
    // octree that stored such a box where its centre's cell was not).
    let mut limits = uniform(&mut rng, 200, (0.5, 2.0));
    let (max, min) = (f32::MAX, f32::MIN);
    for i in 0..24 {
        let c = limits[i * 8].center();
        let mut lo = c - Vec3::ONE;
        let mut hi = c + Vec3::ONE;
        let axis = i % 3;
        if i % 2 == 0 {
            (lo[axis], hi[axis]) = (max, max)
        } else {
            (lo[axis], hi[axis]) = (min, min * 0.5)
        }
        if i % 4 == 0 {
            hi[(axis + 1) % 3] = max;
        }
        limits.push(Aabb::new(lo, hi));
    }
    limits.push(Aabb::new(Vec3::splat(min), Vec3::splat(max)));
    scenes.push(Scene { name: "float-limits", aabbs: limits });

    // Signed zeros: boxes meeting at 0.0 from both sides, written with −0.0 on one side and +0.0 on the other, which
    // compare equal (and must overlap) though their bits differ.
    let zeros = (0..64)
        .map(|i| {
            let s = |bit: usize| if i >> bit & 1 == 1 { -0.0 } else { 0.0 };
            let (lo, hi) = (Vec3::new(s(0), s(1), s(2)), Vec3::new(s(3), s(4), s(5)));
            match i % 3 {
                0 => Aabb::new(Vec3::splat(-1.0).with_x(lo.x), Vec3::new(hi.x, 1.0, 1.0)),
                1 => Aabb::new(lo, Vec3::ONE + hi),
                _ => Aabb::new(Vec3::splat(-1.0) - lo, hi),
            }
        })
        .collect();
    scenes.push(Scene { name: "signed-zeros", aabbs: zeros });

    scenes.push(Scene { name: "empty", aabbs: Vec::new() });
    scenes.push(Scene { name: "single", aabbs: vec![cube(Vec3::ONE, 1.0)] });
    scenes
        .push(Scene { name: "two-touching", aabbs: vec![cube(Vec3::ZERO, 1.0), cube(Vec3::new(2.0, 0.0, 0.0), 1.0)] });
    scenes
}

/// `aabbs` with five far bodies among them: small boxes at `+1e30` and `−1e30` on every axis and at `1e30` on one
/// axis only, and one box spanning `±1e30` on every axis (it overlaps every other body), placed first, in the middle
/// and last.
pub(super) fn with_outliers(mut aabbs: Vec<Aabb>) -> Vec<Aabb> {
    let far = 1.0e30;
    let mid = aabbs.len() / 2;
    aabbs.insert(0, cube(Vec3::splat(far), 1.0));
    aabbs.insert(mid, Aabb::new(Vec3::splat(-far), Vec3::splat(far)));
    aabbs.insert(mid, cube(Vec3::new(50.0, far, 50.0), 2.0));
    aabbs.push(cube(Vec3::splat(-far), 1.0));
    aabbs.push(cube(Vec3::new(-far, 50.0, far), 0.5));
    aabbs
}

/// A `k×k×k` grid of unit boxes whose faces touch exactly (`[i, i+1]` on each axis): neighbours by face, edge
/// and corner all overlap, so body pairs within Chebyshev distance 1 are exactly the answer.
fn touching_grid(k: usize) -> Vec<Aabb> {
    let mut boxes = Vec::with_capacity(k * k * k);
    for x in 0..k {
        for y in 0..k {
            for z in 0..k {
                let min = Vec3::new(x as f32, y as f32, z as f32);
                boxes.push(Aabb::new(min, min + Vec3::ONE));
            }
        }
    }
    boxes
}

/// Small named scenes for insta snapshots: few enough pairs to read in a review.
#[must_use]
pub fn snapshot_scenes() -> Vec<Scene> {
    let mut rng = Rng::new(0x5AA9);
    let small_uniform = (0..60)
        .map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(20.0)), rng.range_f32(0.5, 2.5)))
        .collect();
    let mut mixed: Vec<Aabb> =
        (0..40).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(20.0)), 0.6)).collect();
    mixed.push(Aabb::from_center_radius(Vec3::splat(10.0), 4.8));
    vec![
        Scene { name: "grid-3x3x3-touching", aabbs: touching_grid(3) },
        Scene { name: "small-uniform", aabbs: small_uniform },
        Scene { name: "small-mixed", aabbs: mixed },
        Scene { name: "one-point-8", aabbs: vec![Aabb::from_center_radius(Vec3::splat(3.0), 0.5); 8] },
    ]
}
