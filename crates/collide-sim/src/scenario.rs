//! The registry of named, seeded scenes. The app, the bench and the tests all build scenes from this table;
//! a TOML config names one and overrides its parameters.

use crate::Bodies;
use collide_math::{Aabb, Obb, Quat, Rng, Vec3};
use std::f32::consts::PI;

/// A scene, checked: every parameter the spawn needs, with the scenario's defaults filled in and checked.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The scenario row.
    pub scenario: &'static ScenarioDescriptor,
    /// How many bodies.
    pub bodies: usize,
    /// The base radius.
    pub radius: f32,
    /// Radii are drawn uniformly from `radius · [1 − spread, 1 + spread]`.
    pub radius_spread: f32,
    /// Initial speed in units per second.
    pub speed: f32,
    /// The container's inside.
    pub container: Aabb,
    /// Acceleration, units per second² (along −y for `gravity = g` in the config).
    pub gravity: Vec3,
    /// The fraction of bodies that start at rest (the octree's static/dynamic split shows on these).
    pub resting_fraction: f32,
    /// Collision response on or off (off: contacts are still found and counted).
    pub resolution: bool,
    /// Restitution of body–body and body–wall contacts: 1 elastic, 0 plastic.
    pub restitution: f32,
    /// The seed of every random choice.
    pub seed: u64,
    /// Continuous collision detection (`ccd = true`): fast bodies get swept boxes and are stopped at their time
    /// of impact (see the crate docs).
    pub ccd: bool,
    /// The scene's static obstacles (the `tunnel`'s thin wall): not bodies of the broadphase, but tested against
    /// every body each step (O(n·k) for k obstacles).
    pub obstacles: Vec<Obb>,
    /// Which bodies are boxes (`shape` in the config).
    pub shape: ShapeMix,
    /// A box's half extents for the base radius (`half_extents`; the radius on every axis when absent): a box
    /// whose size is drawn as `r` gets `half_extents · r / radius`, each axis varied by `half_extents_spread`.
    pub half_extents: Vec3,
    /// Each half extent of a box is drawn uniformly from `h · [1 − s, 1 + s]`; 0..1.
    pub half_extents_spread: f32,
    /// Coulomb's friction coefficient between bodies and against the walls (0: none, the spheres' old answer).
    pub friction: f32,
    /// Steps between two spatial reorders of the bodies (0: never; see `reorder.rs`).
    pub reorder_every: u32,
    /// The radii's power law, in the scenes whose sizes follow one (`power-law`); `None` elsewhere.
    pub power_law: Option<PowerLaw>,
}

/// Radii drawn from a truncated power law: the density of radius `r` falls as `r^−exponent` from the base radius
/// up to `largest` (a Pareto law cut off at `largest`), so that most bodies are about the base radius and a few
/// are hundreds of times larger, each overlapping thousands of the others.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerLaw {
    /// The density's exponent: above 1 (checked by the plan).
    pub exponent: f32,
    /// The largest radius drawn, in units: above the base radius (checked by the plan).
    pub largest: f32,
}

impl PowerLaw {
    /// The default `power_law_exponent`: with [`POWER_LAW_DEFAULT_CAP`], about 2.3 million overlapping pairs a
    /// frame at 10⁵ bodies in `uniform`'s container (the workload issue 35 was measured on), 90 thousand at 10⁴.
    pub const DEFAULT_EXPONENT: f32 = 2.5;
    /// The exponents a config may give: above 1 (at 1 or below the largest bodies hold most of the volume, and
    /// the scene is no longer mostly small bodies), at most this.
    pub const MAX_EXPONENT: f32 = 8.0;

    /// A radius from the law for base radius `smallest`: the inverse of the truncated law's distribution function
    /// at a uniform draw, in f64 (the powers of a ratio of hundreds lose digits in f32). One draw from `rng`
    /// whatever the parameters, so that the scene's other draws do not move with them.
    #[must_use]
    pub fn draw(&self, smallest: f32, rng: &mut Rng) -> f32 {
        let u = f64::from(rng.next_f32());
        let a = 1.0 - f64::from(self.exponent);
        let (lo, hi) = (f64::from(smallest).powf(a), f64::from(self.largest).powf(a));
        let r = (lo - u * (lo - hi)).powf(1.0 / a) as f32;
        r.clamp(smallest, self.largest)
    }
}

/// The default `power_law_cap`: the largest radius is this fraction of the container's smallest side (a body a
/// fifth of the side in radius: about 3% of the container's volume, overlapping about a tenth of the bodies).
pub const POWER_LAW_DEFAULT_CAP: f32 = 0.2;
/// The largest `power_law_cap`: a body of radius half the smallest side just fits.
pub const POWER_LAW_MAX_CAP: f32 = 0.5;

/// The shapes of a scene's bodies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ShapeMix {
    /// Every body a sphere.
    #[default]
    Sphere,
    /// Every body an oriented box.
    Box,
    /// Every other body (the odd indices) a box: half spheres, half boxes.
    Mixed,
}

impl ShapeMix {
    /// The config's names, in order.
    pub const NAMES: [&'static str; 3] = ["sphere", "box", "mixed"];

    /// The shape mix called `name`, or the message listing the valid names.
    pub fn find(name: &str) -> Result<Self, String> {
        match name {
            "sphere" => Ok(Self::Sphere),
            "box" => Ok(Self::Box),
            "mixed" => Ok(Self::Mixed),
            _ => Err(format!("unknown shape `{name}`; valid shapes: {}", Self::NAMES.join(", "))),
        }
    }

    /// The config's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// `true` when body `i` is a box.
    #[must_use]
    pub fn is_box(self, i: usize) -> bool {
        match self {
            Self::Sphere => false,
            Self::Box => true,
            Self::Mixed => i % 2 == 1,
        }
    }

    /// The share of boxes among the bodies.
    #[must_use]
    pub fn box_share(self) -> f32 {
        match self {
            Self::Sphere => 0.0,
            Self::Box => 1.0,
            Self::Mixed => 0.5,
        }
    }
}

/// Mixed into the seed of each box's own generator (its orientation and half extents), so that the boxes' draws
/// leave the scene's generator — positions, velocities, sizes — as it is for spheres: a mixed scene is the sphere
/// scene with every other body made a box.
const SHAPE_SALT: u64 = 0xB0C5_5EED_0F0B_0C5E;

impl Setup {
    /// The largest radius any body can have (a box's bounding radius).
    #[must_use]
    pub fn max_radius(&self) -> f32 {
        let largest = match self.power_law {
            Some(law) => law.largest,
            None => self.radius * (1.0 + self.radius_spread) * self.scenario.largest_radius_factor,
        };
        let sphere = largest;
        if self.shape == ShapeMix::Sphere {
            return sphere;
        }
        let cube = self.half_extents.length() * (1.0 + self.half_extents_spread) * (largest / self.radius);
        if self.shape == ShapeMix::Box { cube } else { cube.max(sphere) }
    }

    /// `true` when a run's `tunnelled` count should be shown even at 0: `ccd` is on, or the scene has obstacles to
    /// go through (the headless summary and the app's Frame panel; a count above 0 is shown anyway).
    #[must_use]
    pub fn shows_tunnelling(&self) -> bool {
        self.ccd || !self.obstacles.is_empty()
    }

    /// `true` when the scene's bodies need the spin columns: boxes, or friction.
    #[must_use]
    pub fn spins(&self) -> bool {
        self.shape != ShapeMix::Sphere || self.friction > 0.0
    }

    /// Give the bodies from `from` on their shapes: in a scene that [`spins`](Setup::spins) the spin columns
    /// are enabled, and every body the mix makes a box becomes one — half extents around its drawn radius
    /// (`half_extents · r / radius`, each axis times a draw from `[1 − s, 1 + s]`) and a uniformly random
    /// orientation, from a generator of its own seeded by the scene's seed and its index. Spawns and scripts push
    /// spheres; this runs after them.
    pub fn assign_shapes(&self, bodies: &mut Bodies, from: usize) {
        if !self.spins() {
            return;
        }
        bodies.enable_spin();
        let s = self.half_extents_spread;
        for i in from..bodies.len() {
            if !self.shape.is_box(i) {
                continue;
            }
            let mut rng =
                Rng::new((self.seed ^ SHAPE_SALT).wrapping_add((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
            let aspect = Vec3::new(
                rng.range_f32(1.0 - s, 1.0 + s),
                rng.range_f32(1.0 - s, 1.0 + s),
                rng.range_f32(1.0 - s, 1.0 + s),
            );
            let half = self.half_extents * (bodies.radius[i] / self.radius) * aspect;
            bodies.make_box(i, half, collide_narrowphase::samples::rotation(&mut rng));
        }
    }

    /// A radius drawn for one body.
    fn draw_radius(&self, rng: &mut Rng) -> f32 {
        if let Some(law) = self.power_law {
            law.draw(self.radius, rng)
        } else if self.radius_spread > 0.0 {
            self.radius * rng.range_f32(1.0 - self.radius_spread, 1.0 + self.radius_spread)
        } else {
            self.radius
        }
    }

    /// A uniform position where a body of radius `r` fits inside the container.
    pub(crate) fn inside(&self, rng: &mut Rng, r: f32) -> Vec3 {
        rng.point_in(self.container.min + Vec3::splat(r), self.container.max - Vec3::splat(r))
    }

    /// A velocity of the configured speed in a uniformly random direction, or zero for resting bodies.
    pub(crate) fn draw_velocity(&self, rng: &mut Rng) -> Vec3 {
        if self.resting_fraction > 0.0 && rng.chance(self.resting_fraction) {
            Vec3::ZERO
        } else {
            rng.unit_vector() * self.speed
        }
    }
}

/// A row of the scenario registry.
#[derive(Clone, Copy)]
pub struct ScenarioDescriptor {
    /// The config value (`scenario = "thesis"`): short kebab-case.
    pub name: &'static str,
    /// One line for `--help`, the app's dropdown and the README.
    pub summary: &'static str,
    /// Bodies when the config does not say.
    pub default_bodies: usize,
    /// Radius when the config does not say.
    pub default_radius: f32,
    /// Gravity (units/s², along −y) when the config does not say.
    pub default_gravity: f32,
    /// Restitution when the config does not say.
    pub default_restitution: f32,
    /// `true` when the body count is fixed by the scene (`two-balls`).
    pub fixed_bodies: bool,
    /// The largest body's radius as a multiple of the base radius (8 in `mixed-sizes`), so that configs are
    /// checked against the container without knowing how the scene spawns.
    pub largest_radius_factor: f32,
    /// The container for `bodies` bodies of mean volume `mean_volume`, when the config gives no width.
    pub container: fn(bodies: usize, mean_volume: f32) -> Aabb,
    /// The speed for this container, when the config gives none.
    pub speed: fn(container: &Aabb) -> f32,
    /// Create the bodies.
    pub spawn: fn(&Setup, &mut Rng, &mut Bodies),
    /// Scripted events at given steps (the cluster's pull and release, the tour's phases); `None` for most
    /// scenes. A script may change velocities and radii and append bodies (the simulation tells the broadphase
    /// of added bodies); it never removes any.
    pub script: Option<fn(step: u64, &Setup, &mut Rng, &mut Bodies)>,
    /// The scene's named phases, by first step, ascending (empty for scenes without phases): the records'
    /// `phase` column and the bench's per-phase sums read them.
    pub phases: &'static [ScenePhase],
    /// The scene's static obstacles for a checked setup (its radius and container); most scenes have none.
    pub obstacles: fn(&Setup) -> Vec<Obb>,
    /// The most bodies the script makes, as a multiple of the configured count (the tour doubles; 1 for scenes
    /// that never append), so that a run is refused up front when the machine cannot hold its largest moment.
    pub growth: usize,
    /// `true` when the radii follow a power law (`power-law`): the config's `power_law_exponent` and
    /// `power_law_cap` apply, and `radius` is the smallest radius. Elsewhere those keys are errors.
    pub power_law: bool,
}

/// A named stretch of a scripted scene, from its first step to the next phase's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScenePhase {
    /// Its first step.
    pub start: u64,
    /// Its name (`uniform`, `cluster`, …): short kebab-case, for the CSV.
    pub name: &'static str,
}

impl ScenarioDescriptor {
    /// The name of the phase step `step` belongs to; empty for scenes without phases.
    #[must_use]
    pub fn phase_at(&self, step: u64) -> &'static str {
        self.phases.iter().take_while(|p| p.start <= step).last().map_or("", |p| p.name)
    }

    /// Steps until the last phase has run as long as the others (the scene's natural length); `None` for scenes
    /// without phases.
    #[must_use]
    pub fn scripted_steps(&self) -> Option<u64> {
        let (first, last) = (self.phases.first()?, self.phases.last()?);
        let each = self.phases.get(1).map_or(TOUR_PHASE_STEPS, |p| p.start - first.start);
        Some(last.start + each)
    }
}

impl std::fmt::Debug for ScenarioDescriptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScenarioDescriptor").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The thesis program's container: x∈[−2,2], y∈[−0.99,2], z∈[−2,2].
const THESIS_BOX: Aabb = Aabb::new(Vec3::new(-2.0, -0.99, -2.0), Vec3::new(2.0, 2.0, 2.0));
/// The thesis program's speed: 0.6 units/s (0.01 units per 1/60 s frame).
const THESIS_SPEED: f32 = 0.6;
/// Volume fraction of the `uniform` family: 2% of the container is inside bodies.
const VOLUME_FRACTION: f32 = 0.02;
/// In `mixed-sizes`, every tenth body has this many times the radius.
const MIXED_FACTOR: f32 = 8.0;
/// In `far-clusters`, the container is this many cluster widths wide.
const FAR_SPREAD: f32 = 1000.0;
/// In `far-clusters`, the clusters at the container's corners.
const FAR_CLUSTERS: usize = 8;
/// The cluster's script: pull at this step, release `CLUSTER_PULL_STEPS` later.
const CLUSTER_PULL_AT: u64 = 60;
/// Steps the pull lasts (1 s at 60 Hz).
const CLUSTER_PULL_STEPS: u64 = 60;
/// The cluster shrinks to this fraction of its size: 1/4, so 64× the density.
const CLUSTER_SHRINK: f32 = 0.25;

/// Steps each phase of the `tour` lasts: 5 s at 60 Hz, long enough that a phase's best broadphase wins it
/// clearly and that a meta-broadphase which takes a second to adapt still gains.
pub const TOUR_PHASE_STEPS: u64 = 300;
/// The tour's base speed, as a fraction of the container's width per second: the thesis's scene moves at
/// 0.6 units/s in a 4-unit box.
const TOUR_SPEED: f32 = 0.15;
/// In the tour's `slow` phase the bodies drift at the base speed divided by this.
const TOUR_SLOW_DIVISOR: f32 = 64.0;
/// In the tour's `rest` phase this fraction of the bodies stops.
const TOUR_RESTING: f32 = 0.9;
/// In the tour's `cluster` phase, held bodies move at the base speed divided by this inside the cluster.
const TOUR_HELD_DIVISOR: f32 = 8.0;

/// The cluster scenario's phases.
const CLUSTER_PHASES: &[ScenePhase] = &[
    ScenePhase { start: 0, name: "uniform" },
    ScenePhase { start: CLUSTER_PULL_AT, name: "pull" },
    ScenePhase { start: CLUSTER_PULL_AT + CLUSTER_PULL_STEPS, name: "released" },
];

/// The tour's phases: each favours a different broadphase (see [`tour_script`]).
const TOUR_PHASES: &[ScenePhase] = &[
    ScenePhase { start: 0, name: "uniform" },
    ScenePhase { start: TOUR_PHASE_STEPS, name: "cluster" },
    ScenePhase { start: 2 * TOUR_PHASE_STEPS, name: "released" },
    ScenePhase { start: 3 * TOUR_PHASE_STEPS, name: "slow" },
    ScenePhase { start: 4 * TOUR_PHASE_STEPS, name: "rest" },
    ScenePhase { start: 5 * TOUR_PHASE_STEPS, name: "grow" },
    ScenePhase { start: 6 * TOUR_PHASE_STEPS, name: "double" },
];

/// A cube centred at the origin holding `bodies` bodies of `mean_volume` at 2% volume fraction.
fn cube_for_fraction(bodies: usize, mean_volume: f32) -> Aabb {
    let width = (bodies as f32 * mean_volume / VOLUME_FRACTION).cbrt();
    Aabb::from_center_radius(Vec3::ZERO, width / 2.0)
}

fn thesis_box(_: usize, _: f32) -> Aabb {
    THESIS_BOX
}

fn spawn_uniform(setup: &Setup, rng: &mut Rng, bodies: &mut Bodies) {
    for _ in 0..setup.bodies {
        let r = setup.draw_radius(rng);
        let p = setup.inside(rng, r);
        let v = setup.draw_velocity(rng);
        bodies.push_sphere(p, v, r);
    }
}

/// `far-clusters`: a cube `FAR_SPREAD` cluster widths wide, each cluster a cube holding an eighth of the bodies at
/// 2% volume fraction.
fn far_box(bodies: usize, mean_volume: f32) -> Aabb {
    let cluster = cube_for_fraction(bodies.div_ceil(FAR_CLUSTERS), mean_volume);
    Aabb::from_center_half_extents(Vec3::ZERO, cluster.half_extents() * FAR_SPREAD)
}

/// The cube of the `far-clusters` cluster nearest `p`: the corner cube, one cluster width wide, on the side of the
/// container's centre where `p` is on each axis.
fn far_cluster_of(container: &Aabb, p: Vec3) -> Aabb {
    let width = container.extents() / FAR_SPREAD;
    let corner = Vec3::select(p.cmpgt(container.center()), Vec3::ONE, Vec3::ZERO);
    let lo = container.min + (container.extents() - width) * corner;
    Aabb::new(lo, lo + width)
}

/// `far-clusters` stays eight clusters: a body leaving its cluster's cube turns back in, as at a wall. Without
/// it the clusters would spread into the empty world for minutes (the container is 1000 cluster widths wide),
/// and the scene would never reach the steady state its memory and timing figures are meant to show.
fn far_clusters_script(_: u64, setup: &Setup, _: &mut Rng, bodies: &mut Bodies) {
    let c = setup.container;
    for (pos, v) in bodies.position.iter().zip(&mut bodies.velocity) {
        let cube = far_cluster_of(&c, *pos);
        for axis in 0..3 {
            if (pos[axis] < cube.min[axis] && v[axis] < 0.0) || (pos[axis] > cube.max[axis] && v[axis] > 0.0) {
                v[axis] = -v[axis];
            }
        }
    }
}

/// Body `i` goes to the cluster at corner `i mod 8` of the container, uniform inside it.
fn spawn_far_clusters(setup: &Setup, rng: &mut Rng, bodies: &mut Bodies) {
    let c = setup.container;
    let width = c.extents() / FAR_SPREAD;
    for i in 0..setup.bodies {
        let k = i % FAR_CLUSTERS;
        let corner = Vec3::new((k & 1) as f32, (k >> 1 & 1) as f32, (k >> 2) as f32);
        let lo = c.min + (c.extents() - width) * corner;
        let r = setup.draw_radius(rng);
        let p = rng.point_in(lo + Vec3::splat(r), lo + width - Vec3::splat(r));
        let v = setup.draw_velocity(rng);
        bodies.push_sphere(p, v, r);
    }
}

fn spawn_mixed(setup: &Setup, rng: &mut Rng, bodies: &mut Bodies) {
    for i in 0..setup.bodies {
        let mut r = setup.draw_radius(rng);
        if i % 10 == 0 {
            r *= MIXED_FACTOR;
        }
        let p = setup.inside(rng, r);
        let v = setup.draw_velocity(rng);
        bodies.push_sphere(p, v, r);
    }
}

fn spawn_rain(setup: &Setup, rng: &mut Rng, bodies: &mut Bodies) {
    // The upper half of the container, drifting slowly; gravity does the rest.
    let c = setup.container;
    let mid = (c.min.y + c.max.y) / 2.0;
    for _ in 0..setup.bodies {
        let r = setup.draw_radius(rng);
        let lo = Vec3::new(c.min.x + r, mid.max(c.min.y + r), c.min.z + r);
        let p = rng.point_in(lo, c.max - Vec3::splat(r));
        let v = setup.draw_velocity(rng);
        bodies.push_sphere(p, v, r);
    }
}

/// The `tunnel`'s radius: spheres 0.04 across.
const TUNNEL_RADIUS: f32 = 0.02;
/// Half the `tunnel`'s smallest container: a cube 4 units wide, the wall at x = 0 across it.
const TUNNEL_HALF_WIDTH: f32 = 2.0;
/// The `tunnel`'s speed: 4 diameters of its default radius per 1/60 s step, so that a discrete step sees a
/// head-on pair or a wall hit about one time in four.
const TUNNEL_SPEED: f32 = 4.0 * 2.0 * TUNNEL_RADIUS * 60.0;
/// The `tunnel`'s wall is this fraction of a sphere's diameter thick.
const TUNNEL_WALL_THICKNESS: f32 = 1.0 / 20.0;

/// The `tunnel`'s container: a cube 4 units wide, or wider when the bodies would fill more than 2% of it (the
/// bench's larger counts).
fn tunnel_box(bodies: usize, mean_volume: f32) -> Aabb {
    let fraction = cube_for_fraction(bodies, mean_volume);
    if fraction.extents().x > 2.0 * TUNNEL_HALF_WIDTH {
        fraction
    } else {
        Aabb::from_center_radius(Vec3::ZERO, TUNNEL_HALF_WIDTH)
    }
}

/// The `tunnel`'s wall: a box 1/20 of a diameter thick in the plane x = 0, across the whole container and as far
/// again beyond it: a step's motion may leave the container (its walls put the body back at the end of the
/// step), and a path out there must not go around the wall's rim.
fn tunnel_wall(setup: &Setup) -> Vec<Obb> {
    let half = setup.container.extents();
    let thickness = TUNNEL_WALL_THICKNESS * 2.0 * setup.radius;
    let center = setup.container.center();
    vec![Obb::new(Vec3::new(0.0, center.y, center.z), Vec3::new(thickness / 2.0, half.y, half.z), Quat::IDENTITY)]
}

/// The `tunnel`: every body starts on the wall's −x side. Bodies go by twos: the even twos are head-on pairs
/// on one line along z (meeting at z = 0, moving parallel to the wall), the odd twos are shot along +x at the
/// wall. Positions are random within the left half, at least a few diameters from the wall and the container.
fn spawn_tunnel(setup: &Setup, rng: &mut Rng, bodies: &mut Bodies) {
    let r = setup.radius;
    let (lo, hi) = (setup.container.min + Vec3::splat(4.0 * r), setup.container.max - Vec3::splat(4.0 * r));
    let left = (lo.x, (-4.0 * r).max(lo.x));
    let mut pair = true;
    while bodies.len() < setup.bodies {
        if pair && bodies.len() + 2 <= setup.bodies {
            let (x, y) = (rng.range_f32(left.0, left.1), rng.range_f32(lo.y, hi.y));
            // A head-on pair: the same line, at ±a along z.
            let a = rng.range_f32(4.0 * r, hi.z.min(-lo.z).max(4.0 * r));
            bodies.push_sphere(Vec3::new(x, y, -a), Vec3::new(0.0, 0.0, setup.speed), r);
            bodies.push_sphere(Vec3::new(x, y, a), Vec3::new(0.0, 0.0, -setup.speed), r);
        } else {
            for _ in 0..2.min(setup.bodies - bodies.len()) {
                let (x, y, z) = (rng.range_f32(left.0, left.1), rng.range_f32(lo.y, hi.y), rng.range_f32(lo.z, hi.z));
                bodies.push_sphere(Vec3::new(x, y, z), Vec3::new(setup.speed, 0.0, 0.0), r);
            }
        }
        pair = !pair;
    }
}

fn spawn_two_balls(setup: &Setup, _: &mut Rng, bodies: &mut Bodies) {
    let r = setup.radius;
    let d = 4.0 * r;
    bodies.push_sphere(Vec3::new(-d, 0.0, 0.0), Vec3::new(setup.speed, 0.0, 0.0), r);
    bodies.push_sphere(Vec3::new(d, 0.0, 0.0), Vec3::new(-setup.speed, 0.0, 0.0), r);
}

fn spawn_two_balls_oblique(setup: &Setup, _: &mut Rng, bodies: &mut Bodies) {
    // Offset by one radius across the line of motion: a glancing hit at 30°.
    let r = setup.radius;
    let d = 4.0 * r;
    bodies.push_sphere(Vec3::new(-d, 0.0, 0.0), Vec3::new(setup.speed, 0.0, 0.0), r);
    bodies.push_sphere(Vec3::new(d, r, 0.0), Vec3::new(-setup.speed, 0.0, 0.0), r);
}

/// The cluster's script: at `CLUSTER_PULL_AT` every body is sent toward the centre so that one second later
/// the cloud has shrunk to `CLUSTER_SHRINK` of its size; then it is released with fresh random velocities and
/// disperses. (The thesis's "jolt", without its everything-at-one-point collapse, which no algorithm can
/// survive at 100 000 bodies because the answer itself has n²/2 pairs.)
fn cluster_script(step: u64, setup: &Setup, rng: &mut Rng, bodies: &mut Bodies) {
    if step == CLUSTER_PULL_AT {
        let center = setup.container.center();
        pull_toward(bodies, center, 1.0 - CLUSTER_SHRINK, CLUSTER_PULL_STEPS as f32 / 60.0);
    } else if step == CLUSTER_PULL_AT + CLUSTER_PULL_STEPS {
        for v in &mut bodies.velocity {
            *v = rng.unit_vector() * setup.speed;
        }
    }
}

/// The tour: seven phases of [`TOUR_PHASE_STEPS`] steps, built so that different broadphases win different
/// phases and a meta-broadphase has something to adapt to.
///
/// 1. `uniform`: uniform positions at the base speed (the thesis's: 0.15 container widths per second).
/// 2. `cluster`: every body is sent toward the centre so that in one second the cloud shrinks to 1/4 of its
///    size (64× the density), and is then held there, moving at 1/8 of the base speed inside the cluster's box.
/// 3. `released`: fresh random directions at the base speed; the cloud disperses.
/// 4. `slow`: every velocity is scaled to 1/64 of the base speed (a slow drift).
/// 5. `rest`: 90% of the bodies stop (a seeded draw); the others move at the base speed.
/// 6. `grow`: every tenth body grows 8× (1:8 sizes); everyone moves at the base speed again.
/// 7. `double`: as many new bodies as there are arrive (uniform positions, base radius and speed).
fn tour_script(step: u64, setup: &Setup, rng: &mut Rng, bodies: &mut Bodies) {
    let c = setup.container;
    let speed = setup.speed;
    let center = c.center();
    // The cluster's box: a quarter of the container's size around its centre.
    let held = Aabb::from_center_half_extents(center, c.half_extents() * CLUSTER_SHRINK);
    let p = TOUR_PHASE_STEPS;
    match step {
        s if s == p => pull_toward(bodies, center, 1.0 - CLUSTER_SHRINK, CLUSTER_PULL_STEPS as f32 / 60.0),
        s if s == p + CLUSTER_PULL_STEPS => {
            for v in &mut bodies.velocity {
                *v = rng.unit_vector() * (speed / TOUR_HELD_DIVISOR);
            }
        }
        s if s > p + CLUSTER_PULL_STEPS && s < 2 * p => {
            // Hold the cluster: a body leaving the cluster's box turns back in.
            for (pos, v) in bodies.position.iter().zip(&mut bodies.velocity) {
                for axis in 0..3 {
                    if (pos[axis] < held.min[axis] && v[axis] < 0.0) || (pos[axis] > held.max[axis] && v[axis] > 0.0) {
                        v[axis] = -v[axis];
                    }
                }
            }
        }
        s if s == 2 * p => {
            for v in &mut bodies.velocity {
                *v = rng.unit_vector() * speed;
            }
        }
        s if s == 3 * p => {
            for v in &mut bodies.velocity {
                *v = v.normalize_or(Vec3::X) * (speed / TOUR_SLOW_DIVISOR);
            }
        }
        s if s == 4 * p => {
            for v in &mut bodies.velocity {
                *v = if rng.chance(TOUR_RESTING) { Vec3::ZERO } else { rng.unit_vector() * speed };
            }
        }
        s if s == 5 * p => {
            for i in 0..bodies.len() {
                // Every tenth body by id: the same bodies whether or not the step reordered them.
                if bodies.id[i].is_multiple_of(10) {
                    bodies.set_radius(i, bodies.radius[i] * MIXED_FACTOR);
                }
                bodies.velocity[i] = rng.unit_vector() * speed;
            }
        }
        s if s == 6 * p => {
            for _ in 0..bodies.len() {
                let r = setup.draw_radius(rng);
                let pos = setup.inside(rng, r);
                bodies.push_sphere(pos, rng.unit_vector() * speed, r);
            }
        }
        _ => {}
    }
}

/// Set every velocity so that, in `seconds`, each body covers `fraction` of its way to `target` (the app's
/// "pull everything toward me" with `fraction = 1`, the cluster scenario's pull with 3/4).
pub fn pull_toward(bodies: &mut Bodies, target: Vec3, fraction: f32, seconds: f32) {
    for (p, v) in bodies.position.iter().zip(&mut bodies.velocity) {
        *v = (target - *p) * (fraction / seconds);
    }
}

/// The defaults most rows share: the `uniform` family (radius 0.5, 2% volume fraction, no gravity, elastic).
const UNIFORM: ScenarioDescriptor = ScenarioDescriptor {
    name: "uniform",
    summary: "radius 0.5 in a cube sized for 2% volume fraction, speed width/5 per second",
    default_bodies: 10_000,
    default_radius: 0.5,
    default_gravity: 0.0,
    default_restitution: 1.0,
    fixed_bodies: false,
    largest_radius_factor: 1.0,
    container: cube_for_fraction,
    speed: |c| c.extents().x / 5.0,
    spawn: spawn_uniform,
    script: None,
    phases: &[],
    obstacles: |_| Vec::new(),
    growth: 1,
    power_law: false,
};

/// The thesis program's workload.
const THESIS: ScenarioDescriptor = ScenarioDescriptor {
    name: "thesis",
    summary: "the thesis program's workload: cubes of edge 0.02 at 0.6 units/s in a 4×2.99×4 box",
    default_radius: 0.01,
    container: thesis_box,
    speed: |_| THESIS_SPEED,
    ..UNIFORM
};

/// Two balls in a 10-unit box.
const TWO_BALLS: ScenarioDescriptor = ScenarioDescriptor {
    name: "two-balls",
    summary: "two equal balls meeting head-on: they swap velocities",
    default_bodies: 2,
    fixed_bodies: true,
    container: |_, _| Aabb::from_center_radius(Vec3::ZERO, 5.0),
    speed: |_| 1.0,
    spawn: spawn_two_balls,
    ..UNIFORM
};

/// Every registered scenario.
pub static SCENARIOS: &[ScenarioDescriptor] = &[
    THESIS,
    ScenarioDescriptor {
        name: "thesis-slow",
        summary: "the thesis workload at 1/64 of the speed: sweep-and-prune's best case",
        speed: |_| THESIS_SPEED / 64.0,
        ..THESIS
    },
    UNIFORM,
    ScenarioDescriptor {
        name: "slow",
        summary: "uniform at width/320 per second: strong temporal coherence",
        speed: |c| c.extents().x / 320.0,
        ..UNIFORM
    },
    ScenarioDescriptor {
        name: "cluster",
        summary: "uniform, pulled to 1/4 of its size (64× density) at step 60, released at step 120",
        speed: |c| c.extents().x / 10.0,
        script: Some(cluster_script),
        phases: CLUSTER_PHASES,
        ..UNIFORM
    },
    ScenarioDescriptor {
        name: "mixed-sizes",
        summary: "uniform with every tenth body 8× the radius (1:8)",
        largest_radius_factor: MIXED_FACTOR,
        container: |n, v| cube_for_fraction(n, v * (0.9 + 0.1 * MIXED_FACTOR.powi(3))),
        spawn: spawn_mixed,
        ..UNIFORM
    },
    ScenarioDescriptor {
        name: "power-law",
        summary: "uniform's container, radii from 0.5 up with density r^-2.5 up to a fifth of the side: a heavy tail",
        power_law: true,
        ..UNIFORM
    },
    ScenarioDescriptor {
        name: "far-clusters",
        summary: "eight uniform clusters held at the corners of a container 1000 cluster widths wide: a huge, empty world",
        container: far_box,
        speed: |c| c.extents().x / FAR_SPREAD / 5.0,
        spawn: spawn_far_clusters,
        script: Some(far_clusters_script),
        ..UNIFORM
    },
    ScenarioDescriptor {
        name: "rain",
        summary: "bodies fall under gravity from the upper half and pile up on the floor",
        default_gravity: 9.81,
        default_restitution: 0.6,
        speed: |c| c.extents().x / 50.0,
        spawn: spawn_rain,
        ..UNIFORM
    },
    TWO_BALLS,
    ScenarioDescriptor {
        name: "two-balls-oblique",
        summary: "two equal balls meeting off-centre: a glancing hit",
        spawn: spawn_two_balls_oblique,
        ..TWO_BALLS
    },
    ScenarioDescriptor {
        name: "tour",
        summary: "seven 300-step phases (uniform, cluster, released, slow, rest, grow 8×, double): a broadphase tour",
        largest_radius_factor: MIXED_FACTOR,
        speed: |c| c.extents().x * TOUR_SPEED,
        script: Some(tour_script),
        phases: TOUR_PHASES,
        growth: 2,
        ..UNIFORM
    },
    ScenarioDescriptor {
        name: "tunnel",
        summary: "small spheres at 4 diameters per step, in head-on pairs and at a thin wall: tunnelling without ccd",
        default_bodies: 64,
        default_radius: TUNNEL_RADIUS,
        default_restitution: 1.0,
        container: tunnel_box,
        speed: |_| TUNNEL_SPEED,
        spawn: spawn_tunnel,
        obstacles: tunnel_wall,
        ..UNIFORM
    },
];

/// The scenario named `name`, or the message listing the valid names.
pub fn find_scenario(name: &str) -> Result<&'static ScenarioDescriptor, String> {
    SCENARIOS.iter().find(|s| s.name == name).ok_or_else(|| {
        let valid: Vec<_> = SCENARIOS.iter().map(|s| s.name).collect();
        format!("unknown scenario `{name}`; valid scenarios: {}", valid.join(", "))
    })
}

/// The mean volume of a body of shape mix `shape` whose size is uniform in `r · [1 − s, 1 + s]`: a sphere's
/// (E[r³]·4π/3), a box's (`8·h_x·h_y·h_z · E[r³]/r³` — the half extents' spread is independent per axis and of
/// mean 1, so it does not change the mean), weighted by the mix's share of boxes. Spheres alone: exactly
/// [`mean_sphere_volume`].
pub(crate) fn mean_body_volume(r: f32, s: f32, shape: ShapeMix, half_extents: Vec3) -> f32 {
    let sphere = mean_sphere_volume(r, s);
    if shape == ShapeMix::Sphere {
        return sphere;
    }
    let boxes = sphere / (4.0 / 3.0 * PI * r * r * r) * 8.0 * half_extents.x * half_extents.y * half_extents.z;
    let share = shape.box_share();
    sphere * (1.0 - share) + boxes * share
}

/// The mean volume of a sphere whose radius is uniform in `r · [1 − s, 1 + s]`: E[r³]·4π/3.
pub(crate) fn mean_sphere_volume(r: f32, s: f32) -> f32 {
    // E[x³] for x uniform in [a, b] is (b⁴ − a⁴) / (4 (b − a)).
    let e_r3 = if s > 0.0 {
        let (a, b) = (r * (1.0 - s), r * (1.0 + s));
        (b.powi(4) - a.powi(4)) / (4.0 * (b - a))
    } else {
        r * r * r
    };
    4.0 / 3.0 * PI * e_r3
}

#[cfg(test)]
mod tests;
