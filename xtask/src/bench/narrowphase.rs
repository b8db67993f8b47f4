//! The narrowphase against parry: the same random box–box pairs (and sphere–box pairs) through our
//! `collide_narrowphase::box_box` and parry's `query::contact`, interleaved in one run, nanoseconds per pair.
//!
//! The pairs come from `collide_narrowphase::samples` (the oracle tests' generator: random sizes and orientations,
//! about half overlapping), built once; each side gets its shapes in its own form before the clock starts (our
//! `Obb`s; parry's `Pose`s and shapes), so only the test itself is timed. The repetitions alternate — ours,
//! parry's `contact`, parry's `contact_cuboid_cuboid`, ours, … — so that the shared machine's load falls on all of
//! them alike; the table gives the best and the median repetition. parry is timed twice for box–box: through
//! `query::contact` (the entry point the issue names; for two cuboids parry 0.31 dispatches it to GJK/EPA — its
//! dedicated `contact_cuboid_cuboid` is commented out of the dispatcher, and answers differently, so it is not
//! timed here), and through `contact_manifold_cuboid_cuboid`, the clipping manifold rapier's narrow phase uses for
//! two boxes — the closest peer to ours in what it computes.
//!
//! The results differ in kind, which the ratio should be read with: ours returns a manifold of up to four points
//! (reference-face clipping), parry's `contact` one point pair, its manifold up to eight points. The check column counts the pairs each side
//! calls touching; they agree up to the near-contact band the oracle test documents.

use super::Ctx;
use super::report::{self, Section};
use collide_math::{Obb, Rng, Vec3};
use collide_narrowphase::{box_box, samples, sphere_box};
use parry3d::math::{Pose, Rotation, Vector};
use parry3d::query;
use parry3d::query::ContactManifold;
use parry3d::query::details::contact_manifold_cuboid_cuboid;
use parry3d::shape::{Ball, Cuboid, Shape};
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

/// The pairs' seed.
const SEED: u64 = 0x4E50;

/// One implementation's timing on one pair type.
struct Timing {
    pairs: &'static str,
    implementation: &'static str,
    /// Nanoseconds per pair of each repetition.
    ns: Vec<f64>,
    /// Pairs it called touching (the correctness check).
    touching: usize,
}

impl Timing {
    fn best(&self) -> f64 {
        self.ns.iter().copied().fold(f64::INFINITY, f64::min)
    }

    fn median(&self) -> f64 {
        let mut v = self.ns.clone();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }
}

fn vector(p: Vec3) -> Vector {
    Vector::new(p.x, p.y, p.z)
}

fn pose(o: &Obb) -> Pose {
    let q = o.rotation;
    Pose::from_parts(vector(o.center), Rotation::from_xyzw(q.x, q.y, q.z, q.w))
}

/// Time `f` over all pairs once: nanoseconds per pair, and the touching count it returns.
fn time_once(n: usize, f: &mut dyn FnMut() -> usize) -> (f64, usize) {
    let t = Instant::now();
    let touching = black_box(f());
    (t.elapsed().as_secs_f64() * 1e9 / n as f64, touching)
}

/// Run every closure `reps` times, interleaved, and collect their timings.
fn interleaved(
    n: usize,
    reps: usize,
    runs: &mut [(&'static str, &'static str, &mut dyn FnMut() -> usize)],
) -> Vec<Timing> {
    let mut out: Vec<Timing> = runs
        .iter()
        .map(|(pairs, implementation, _)| Timing { pairs, implementation, ns: vec![], touching: 0 })
        .collect();
    for _ in 0..reps {
        for (timing, (_, _, f)) in out.iter_mut().zip(runs.iter_mut()) {
            let (ns, touching) = time_once(n, *f);
            timing.ns.push(ns);
            timing.touching = touching;
        }
    }
    out
}

/// The narrowphase study: box–box and sphere–box, ours against parry, side by side.
pub fn narrowphase(ctx: &mut Ctx) -> Result<(), String> {
    let n = if ctx.quick { 5_000 } else { 100_000 };
    let reps = if ctx.quick { 5 } else { 9 };
    ctx.progress.plan(2);
    ctx.progress.start(&format!("narrowphase: box–box, {n} pairs × {reps}"));
    let mut timings = box_pairs(n, reps);
    ctx.progress.finish_one();
    ctx.progress.start(&format!("narrowphase: sphere–box, {n} pairs × {reps}"));
    timings.extend(sphere_pairs(n, reps));
    ctx.progress.finish_one();

    let mut csv =
        String::from("pairs,implementation,n,reps,ns_per_pair_best,ns_per_pair_median,touching,ratio_to_ours\n");
    let mut rows = Vec::new();
    for t in &timings {
        let ours =
            timings.iter().find(|o| o.pairs == t.pairs && o.implementation == "ours").map_or(f64::NAN, Timing::median);
        let ratio = t.median() / ours;
        let _ = writeln!(
            csv,
            "{},{},{n},{reps},{:.2},{:.2},{},{ratio:.3}",
            t.pairs,
            t.implementation,
            t.best(),
            t.median(),
            t.touching
        );
        rows.push(vec![
            t.pairs.to_owned(),
            t.implementation.to_owned(),
            format!("{:.1}", t.best()),
            format!("{:.1}", t.median()),
            format!("{ratio:.2}×"),
            t.touching.to_string(),
        ]);
    }
    ctx.write_text("narrowphase.csv", &csv)?;
    let table = report::table(
        &["pairs", "implementation", "ns/pair best", "ns/pair median", "median / ours", "touching"],
        rows,
    );
    ctx.sections.push(Section {
        title: "Narrowphase: box–box and sphere–box against parry".into(),
        body: format!(
            "{} random pairs per type (`collide_narrowphase::samples`, seed {SEED:#x}: random sizes and orientations, \
             about half overlapping), {reps} interleaved repetitions, one thread. Ours returns a manifold of up to four \
             points; parry's `query::contact` one point pair (for two boxes through GJK/EPA); \"parry manifold\" is \
             `contact_manifold_cuboid_cuboid`, the clipping manifold rapier uses for two boxes. \"touching\" counts the pairs each calls touching (they may differ \
             by the near-contact band, see the crate's oracle test).\n\n{table}",
            report::count(n)
        ),
    });
    Ok(())
}

/// parry's `query::contact` on every pair: how many it calls touching (a contact at distance `<= 0`).
fn parry_contact<A: Shape, B: Shape>(pairs: &[(Pose, A, Pose, B)]) -> usize {
    pairs
        .iter()
        .filter(|(pa, a, pb, b)| {
            black_box(query::contact(pa, a, pb, b, 0.0)).is_ok_and(|c| c.is_some_and(|c| c.dist <= 0.0))
        })
        .count()
}

/// Box–box: ours, parry's `contact`, parry's box manifold.
fn box_pairs(n: usize, reps: usize) -> Vec<Timing> {
    let mut rng = Rng::new(SEED);
    let pairs: Vec<(Obb, Obb)> = (0..n).map(|_| samples::box_pair(&mut rng)).collect();
    let theirs: Vec<(Pose, Cuboid, Pose, Cuboid)> = pairs
        .iter()
        .map(|(a, b)| (pose(a), Cuboid::new(vector(a.half_extents)), pose(b), Cuboid::new(vector(b.half_extents))))
        .collect();
    let mut ours = || pairs.iter().filter(|(a, b)| black_box(box_box(a, b)).is_some()).count();
    let mut parry = || parry_contact(&theirs);
    // parry's box manifold (what rapier's narrow phase calls for two cuboids), one manifold reused and cleared per
    // pair so that its frame-to-frame cache never answers.
    let mut manifold: ContactManifold<(), ()> = ContactManifold::new();
    let mut kernel = || {
        theirs
            .iter()
            .filter(|(pa, a, pb, b)| {
                manifold.clear();
                contact_manifold_cuboid_cuboid(&pa.inv_mul(pb), a, b, 0.0, &mut manifold);
                black_box(&manifold).points.iter().any(|p| p.dist <= 0.0)
            })
            .count()
    };
    interleaved(
        n,
        reps,
        &mut [
            ("box–box", "ours", &mut ours),
            ("box–box", "parry contact", &mut parry),
            ("box–box", "parry manifold", &mut kernel),
        ],
    )
}

/// Sphere–box: ours and parry's `contact`.
fn sphere_pairs(n: usize, reps: usize) -> Vec<Timing> {
    let mut rng = Rng::new(SEED + 1);
    let pairs: Vec<(Vec3, f32, Obb)> = (0..n).map(|_| samples::sphere_box_pair(&mut rng)).collect();
    let theirs: Vec<(Pose, Ball, Pose, Cuboid)> = pairs
        .iter()
        .map(|(c, r, b)| {
            (Pose::from_translation(vector(*c)), Ball::new(*r), pose(b), Cuboid::new(vector(b.half_extents)))
        })
        .collect();
    let mut ours = || pairs.iter().filter(|(c, r, b)| black_box(sphere_box(*c, *r, b)).is_some()).count();
    let mut parry = || parry_contact(&theirs);
    interleaved(n, reps, &mut [("sphere–box", "ours", &mut ours), ("sphere–box", "parry contact", &mut parry)])
}
