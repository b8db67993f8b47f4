//! `cargo xtask record-rapier`: Broadmark-like scenes baked by rapier3d, a real rigid-body engine, as `.aabbs`
//! files for the replay (`scenario = "replay"`) and the bench's `replay` study.
//!
//! Broadmark's scenes (its Unity `SimulationGenerator`, scenarios `FreeFall`, `Brownian`, `Gravity`) are baked
//! with PhysX or Bullet; these are their counterparts baked with rapier, which nobody here wrote, so the boxes
//! carry a real engine's contacts, stacking and sleeping rather than our own simple response:
//!
//! - `free-fall`: cubes and spheres (alternating, unit size, random orientations) start at rest on a jittered
//!   lattice through a closed box and fall onto its floor into a pile. rapier puts an island to sleep once every
//!   body of it has been nearly still for half a second, and the pile is one island: a few spheres rolling on its
//!   top would keep all of it awake, so the free fall's bodies have some damping (linear 0.1, angular 2 per
//!   second), friction 0.8 and a sleep speed of 0.4 units per second (rapier's default is 0.1, Unity's PhysX
//!   default about the same). Then a pile of up to 10 000 bodies falls asleep as a whole within 16 to 23 s (200,
//!   3000 and 10 000 bodies, seed 1): from there its boxes are bit for bit the same from frame to frame, with many
//!   resting contacts. The 100 000-body pile is still one awake island after the default 20 s, though at rest all
//!   but: 71% of its boxes are bit for bit those of the step before, 99% moved less than 2·10⁻⁵ units.
//! - `brownian`: no gravity; the bodies fill the box at random velocities, and every step a hundredth of them get
//!   a fresh random velocity (Broadmark's `CyclePeriod` of 100 frames), so each body is kicked every 100 steps.
//! - `avalanche`: a block of cubes and spheres released at rest at the top of a ramp tilted 40° (low friction,
//!   so cubes slide and spheres roll) that runs from the middle of one wall down to the floor; the block flows
//!   down as one dense stream and piles up in the corner against the far wall. This is the scene closest to what
//!   a game's rigid-body engine makes: nearly every body moves about its own width every few frames, in step with
//!   its neighbours. Its world is sized for 4% density, so the block has a ramp to flow down.
//! - `gravity`: gravity of 4 g whose direction turns (two rotating axes, a turn every 6.2 s, modelled on
//!   Broadmark's `Gravity` scene), so the bodies slosh from wall to wall. Its bodies never sleep: rapier does not wake a sleeping body
//!   when gravity turns, and a body asleep against a wall would stay stuck there.
//!
//! As in Broadmark the world is sized so that the bodies fill 10% of it (for fewer than about 500 bodies it can
//! be a little larger, so that the starting lattice keeps them apart), gravity is 0.0981 world sides per s² (so
//! that a fall takes the same time at every size), and the time step is fixed (1/60 s). The walls are as thick as
//! half the world, so that no body tunnels through one. A file holds the initial boxes and then one frame every
//! `--every` steps; its world box is the inside of the walls grown by one body size, because resting bodies sink
//! a little into the floor, and a bake fails if any box leaves it.
//!
//! Every random choice comes from one seeded `collide_math::Rng`, and rapier runs on one thread (without its
//! `parallel` feature), so a bake is deterministic: the same arguments give the same bytes on the same machine
//! and build (across CPUs and compilers rapier promises that only with its `enhanced-determinism` feature).
//!
//! rapier3d is a dependency of this xtask only, never of a library: version 0.36 is built on parry3d 0.31, the
//! peers' version, so parry is compiled once.

use collide_aabbs::Writer;
use collide_math::{Aabb, Quat, Rng, Vec3};
use rapier3d::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options of `cargo xtask record-rapier`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// Scenes to bake: free-fall, brownian, gravity, avalanche (repeat or separate with commas); default all four.
    #[arg(long = "scene", value_delimiter = ',', num_args = 1..)]
    scenes: Vec<String>,
    /// Body counts (repeat or separate with commas); default 10000 and 100000.
    #[arg(long = "bodies", value_delimiter = ',', num_args = 1..)]
    bodies: Vec<usize>,
    /// Steps to simulate; default per scene (free fall 1200, 20 s: a pile of 10 000 is asleep by then; the
    /// avalanche 420, 7 s: the stream has reached the far wall; the others 300).
    #[arg(long)]
    steps: Option<u64>,
    /// Write a frame every K steps (the initial boxes are always the first frame).
    #[arg(long, default_value_t = 1)]
    every: u64,
    /// Output folder; default `target/rapier-scenes/`. Files are named `rapier-<scene>-<n>.aabbs`.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The seed of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// A Broadmark-like scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scene {
    FreeFall,
    Brownian,
    Gravity,
    Avalanche,
}

impl Scene {
    const ALL: [Self; 4] = [Self::FreeFall, Self::Brownian, Self::Gravity, Self::Avalanche];

    fn name(self) -> &'static str {
        match self {
            Self::FreeFall => "free-fall",
            Self::Brownian => "brownian",
            Self::Gravity => "gravity",
            Self::Avalanche => "avalanche",
        }
    }

    fn parse(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|s| s.name() == name).ok_or_else(|| {
            let valid: Vec<_> = Self::ALL.iter().map(|s| s.name()).collect();
            format!("unknown scene `{name}`; valid scenes: {}", valid.join(", "))
        })
    }

    /// Steps when `--steps` is not given: the free fall until its pile is asleep, the avalanche until its stream
    /// reaches the far wall, the others five seconds.
    fn default_steps(self) -> u64 {
        match self {
            Self::FreeFall => 1200,
            Self::Avalanche => 420,
            Self::Brownian | Self::Gravity => 300,
        }
    }
}

/// Fraction of the world's volume inside bodies (Broadmark's `ObjectDensity`).
const DENSITY: f32 = 0.1;
/// Gravity as a fraction of the world's side per s² (Broadmark's `NormGravity`).
const NORM_GRAVITY: f32 = 0.0981;
/// The largest initial or kick speed as a fraction of the world's side per second. Broadmark's 0.75 moves a body
/// its own size every frame at 100 000 bodies; a tenth of it keeps the brownian scene a gas, not a spray.
const NORM_SPEED: f32 = 0.075;
/// Steps over which every body of the brownian scene is kicked once (Broadmark's `CyclePeriod`).
const KICK_CYCLE: usize = 100;
/// Seconds per turn of the gravity scene's axes (Broadmark's `GravityFrequency`) and its gravity multiple.
const GRAVITY_PERIOD: f32 = 6.2;
const GRAVITY_SCALE: f32 = 4.0;
/// The avalanche's density: its block, packed at [`MIN_SPACING`], needs room above a ramp to flow down.
const AVALANCHE_DENSITY: f32 = 0.04;
/// The avalanche ramp's tilt (radians), and the height of its upper end, at the `+x` wall, as a share of the
/// half side below the world's centre.
const RAMP_TILT: f32 = 40.0 * std::f32::consts::PI / 180.0;
const RAMP_TOP: f32 = 0.0;
/// Friction of the ramp and of the avalanche's bodies. rapier averages two colliders' coefficients: a cube on the
/// ramp has 0.2, well below tan 35° ≈ 0.7, so it slides, and the stream moves about a body's width every few
/// frames at 10⁵ bodies.
const RAMP_FRICTION: f32 = 0.1;
const AVALANCHE_FRICTION: f32 = 0.15;
/// Gap between the ramp and the lowest layer of the block, so that no body starts touching it.
const RAMP_GAP: f32 = 0.3;
/// The fixed time step.
const DT: f32 = 1.0 / 60.0;
/// Closest lattice spacing: a unit cube's diagonal (any orientation fits in its circumscribed sphere) plus a gap.
const MIN_SPACING: f32 = 1.75;
/// How far the file's world box reaches past the walls' inner faces: one body size.
const WORLD_SLACK: f32 = 1.0;
/// Print progress at most this often: a step of the 100 000-body free fall takes seconds while its pile forms.
const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// What a bake wrote.
#[derive(Debug)]
struct Baked {
    frames: u64,
    bytes: u64,
    seconds: f64,
    /// Share of the bodies asleep after the last step.
    asleep: f64,
}

/// Bake every scene at every size asked for.
pub fn run(args: &Args) -> Result<(), String> {
    let scenes = if args.scenes.is_empty() {
        Scene::ALL.to_vec()
    } else {
        args.scenes.iter().map(|s| Scene::parse(s)).collect::<Result<_, _>>()?
    };
    let sizes = if args.bodies.is_empty() { vec![10_000, 100_000] } else { args.bodies.clone() };
    if let Some(&n) = sizes.iter().find(|&&n| n == 0 || n > i32::MAX as usize) {
        return Err(format!("--bodies {n}: a scene needs 1 to {} bodies", i32::MAX));
    }
    if args.every == 0 {
        return Err("--every 0: write a frame every 1 or more steps".into());
    }
    let out = args.out.clone().unwrap_or_else(default_out);
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    for &scene in &scenes {
        let steps = args.steps.unwrap_or(scene.default_steps());
        if steps < args.every {
            return Err(format!(
                "--steps {steps} with --every {}: a file needs at least one frame after the first",
                args.every
            ));
        }
        for &n in &sizes {
            let path = out.join(format!("rapier-{}-{n}.aabbs", scene.name()));
            let b = bake(scene, n, steps, args.every, args.seed, &path, true)?;
            eprintln!(
                "record-rapier: wrote {} ({n} bodies, {} frames, {:.1} MB) in {:.1} s; {:.1}% asleep at the end",
                path.display(),
                b.frames,
                b.bytes as f64 / 1e6,
                b.seconds,
                100.0 * b.asleep
            );
        }
    }
    Ok(())
}

/// Where the scenes go without `--out`: `target/rapier-scenes/` (too big to commit).
pub fn default_out() -> PathBuf {
    crate::root().join("target").join("rapier-scenes")
}

/// Bake `scene` at `n` bodies exactly as `cargo xtask record-rapier --scene SCENE --bodies N` does (its default
/// steps, every step, seed 1) into [`default_out`], with its progress on standard error: the bench's `selector`
/// study bakes a scene it misses this way. Returns the file.
pub fn bake_default(scene: &str, n: usize) -> Result<PathBuf, String> {
    run(&default_args(scene, n)?)?;
    Ok(default_out().join(format!("rapier-{scene}-{n}.aabbs")))
}

/// The arguments of `cargo xtask record-rapier --scene SCENE --bodies N`, parsed from that command line, so that
/// every other option keeps the subcommand's default.
fn default_args(scene: &str, n: usize) -> Result<Args, String> {
    let line = ["record-rapier", "--scene", scene, "--bodies", &n.to_string()];
    let matches = <Args as clap::Args>::augment_args(clap::Command::new("record-rapier"))
        .try_get_matches_from(line)
        .map_err(|e| e.to_string())?;
    <Args as clap::FromArgMatches>::from_arg_matches(&matches).map_err(|e| e.to_string())
}

/// The rapier world of one scene and the handles of its bodies, in file order.
struct World {
    sim: PhysicsWorld,
    bodies: Vec<(RigidBodyHandle, ColliderHandle)>,
    /// The file's world box: the walls' inside grown by [`WORLD_SLACK`].
    bounds: Aabb,
}

/// Bake one scene into `path`: `steps` steps, a frame every `every` (and the initial boxes).
fn bake(
    scene: Scene,
    n: usize,
    steps: u64,
    every: u64,
    seed: u64,
    path: &Path,
    progress: bool,
) -> Result<Baked, String> {
    let started = Instant::now();
    // One stream per scene and size, so that baking one scene alone gives the same file as baking all of them.
    let mut rng = Rng::new(seed ^ (n as u64).rotate_left(17) ^ (scene as u64 + 1).rotate_left(40));
    let mut world = build(scene, n, &mut rng)?;
    let name = format!("rapier {}", scene.name());
    let mut writer = Writer::create(path, &name, "Assorted", n, world.bounds).map_err(|e| e.to_string())?;
    let mut boxes = Vec::with_capacity(n);
    record(&world, 0, &mut boxes, &mut writer)?;
    let turn = 2.0 * std::f32::consts::PI * DT / GRAVITY_PERIOD;
    let (mut axis2, mut axis3) = (Vec3::Y, Vec3::X);
    let side = world.bounds.extents().x - 2.0 * WORLD_SLACK;
    let mut kicked = 0;
    let mut last_print = started;
    for step in 1..=steps {
        match scene {
            Scene::Brownian => {
                for _ in 0..n.div_ceil(KICK_CYCLE) {
                    let v = velocity(&mut rng, side);
                    world.sim.bodies[world.bodies[kicked].0].set_linvel(v, true);
                    kicked = (kicked + 1) % n;
                }
            }
            Scene::Gravity => {
                // Two rotating axes: the second turns about z, the gravity axis about the second.
                axis2 = Quat::from_axis_angle(Vec3::Z, turn) * axis2;
                axis3 = Quat::from_axis_angle(axis2.normalize(), turn) * axis3;
                let g = axis3 * NORM_GRAVITY * side * GRAVITY_SCALE;
                world.sim.gravity = Vector::new(g.x, g.y, g.z);
            }
            Scene::FreeFall | Scene::Avalanche => {}
        }
        world.sim.step();
        if step % every == 0 {
            record(&world, step, &mut boxes, &mut writer)?;
        }
        if progress && (last_print.elapsed() >= PROGRESS_EVERY || step == steps) {
            last_print = Instant::now();
            eprintln!(
                "record-rapier: {} n={n}: step {step}/{steps}, {:.0}% asleep, {:.0} s",
                scene.name(),
                100.0 * asleep(&world),
                started.elapsed().as_secs_f64()
            );
        }
    }
    let frames = writer.finish().map_err(|e| e.to_string())?;
    let bytes = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?.len();
    Ok(Baked { frames, bytes, seconds: started.elapsed().as_secs_f64(), asleep: asleep(&world) })
}

/// Share of the bodies asleep.
fn asleep(world: &World) -> f64 {
    let sleeping = world.bodies.iter().filter(|&&(b, _)| world.sim.bodies[b].is_sleeping()).count();
    sleeping as f64 / world.bodies.len() as f64
}

/// Append the bodies' boxes as a frame; a box outside the world box is an error (a body that escaped).
fn record(world: &World, step: u64, boxes: &mut Vec<Aabb>, writer: &mut Writer) -> Result<(), String> {
    boxes.clear();
    boxes.extend(world.bodies.iter().map(|&(_, c)| {
        let b = world.sim.colliders[c].compute_aabb();
        Aabb::new(Vec3::new(b.mins.x, b.mins.y, b.mins.z), Vec3::new(b.maxs.x, b.maxs.y, b.maxs.z))
    }));
    if let Some(i) = boxes.iter().position(|b| !world.bounds.contains(b)) {
        return Err(format!(
            "step {step}: body {i}'s box {:?} left the world {:?} (through a wall?)",
            boxes[i], world.bounds
        ));
    }
    writer.write_frame(boxes).map_err(|e| e.to_string())
}

/// The scene's world: sized for the bodies, walled, its gravity set, its bodies placed.
fn build(scene: Scene, n: usize, rng: &mut Rng) -> Result<World, String> {
    if scene == Scene::Avalanche {
        return build_avalanche(n, rng);
    }
    // Unit cubes and unit spheres (diameter 1), alternating: their mean volume sizes the world. The lattice has
    // at least n cells and its spacing is at least MIN_SPACING, which for small n can make the world larger.
    let mean_volume = (1.0 + std::f32::consts::PI / 6.0) / 2.0;
    let mut per_axis = (n as f64).cbrt().round().max(1.0) as usize;
    while per_axis.pow(3) < n {
        per_axis += 1;
    }
    let spacing = ((n as f32 * mean_volume / DENSITY).cbrt() / per_axis as f32).max(MIN_SPACING);
    let side = spacing * per_axis as f32;
    if !side.is_finite() || side > 1e6 {
        return Err(format!("{n} bodies make a world {side} units wide, too large for f32 boxes"));
    }
    let mut sim = PhysicsWorld::new();
    sim.integration_parameters.dt = DT;
    sim.gravity = match scene {
        Scene::FreeFall | Scene::Avalanche => Vector::new(0.0, -NORM_GRAVITY * side, 0.0),
        Scene::Gravity => Vector::new(NORM_GRAVITY * side * GRAVITY_SCALE, 0.0, 0.0),
        Scene::Brownian => Vector::ZERO,
    };
    walls(&mut sim, side);
    let inside = Aabb::from_center_radius(Vec3::ZERO, side / 2.0);
    let bodies = spawn(&mut sim, rng, scene, n, per_axis, spacing, inside);
    Ok(World { sim, bodies, bounds: inside.expanded(WORLD_SLACK) })
}

/// The avalanche's world: walls sized for [`AVALANCHE_DENSITY`] (or larger, until the block fits above the
/// ramp), the ramp, and the block.
fn build_avalanche(n: usize, rng: &mut Rng) -> Result<World, String> {
    let mean_volume = (1.0 + std::f32::consts::PI / 6.0) / 2.0;
    let mut side = (n as f32 * mean_volume / AVALANCHE_DENSITY).cbrt().max(4.0 * MIN_SPACING);
    let block = loop {
        if let Some(block) = Block::fit(n, side) {
            break block;
        }
        side *= 1.1;
    };
    if !side.is_finite() || side > 1e6 {
        return Err(format!("{n} bodies make a world {side} units wide, too large for f32 boxes"));
    }
    let mut sim = PhysicsWorld::new();
    sim.integration_parameters.dt = DT;
    sim.gravity = Vector::new(0.0, -NORM_GRAVITY * side, 0.0);
    walls(&mut sim, side);
    ramp(&mut sim, side);
    let bodies = block.spawn(&mut sim, rng, n, side);
    let inside = Aabb::from_center_radius(Vec3::ZERO, side / 2.0);
    Ok(World { sim, bodies, bounds: inside.expanded(WORLD_SLACK) })
}

/// The ramp's surface height at `x` in a world of `side`: from `RAMP_TOP · side / 2` at the `+x` wall, falling at
/// [`RAMP_TILT`] toward `-x` (below the floor before the far wall: the floor there is where the pile forms).
fn ramp_height(x: f32, side: f32) -> f32 {
    let h = side / 2.0;
    RAMP_TOP * h - (h - x) * RAMP_TILT.tan()
}

/// The ramp: a fixed slab a quarter of the world thick whose top face is the ramp's surface, reaching through
/// the walls and the floor (fixed colliders may overlap).
fn ramp(sim: &mut PhysicsWorld, side: f32) {
    let h = side / 2.0;
    let t = side / 8.0;
    let (sin, cos) = RAMP_TILT.sin_cos();
    // The slab's centre lies below the surface point above x = 0, along the surface's normal (-sin, cos).
    let surface = Vector::new(0.0, ramp_height(0.0, side), 0.0);
    let centre = surface - Vector::new(-sin, cos, 0.0) * t;
    let slab = ColliderBuilder::cuboid(2.0 * side, t, h + 2.0 * t)
        .translation(centre)
        .rotation(Vector::new(0.0, 0.0, RAMP_TILT))
        .friction(RAMP_FRICTION);
    let ground = sim.insert_body(RigidBodyBuilder::fixed());
    sim.insert_collider(slab, Some(ground));
}

/// The vertical clearance that puts a body's circumscribed sphere [`RAMP_GAP`] clear of the ramp's surface.
fn ramp_lift() -> f32 {
    (3f32.sqrt() / 2.0 + RAMP_GAP) / RAMP_TILT.cos()
}

/// The avalanche's block: `lanes` bodies across the world (z), `columns` along the ramp (x, from the `+x` wall
/// down), as many layers deep as the count needs; every layer follows the ramp's slope, so the block rests on it as a sheared brick.
#[derive(Clone, Copy, Debug)]
struct Block {
    lanes: usize,
    columns: usize,
}

impl Block {
    /// The block of `n` bodies for a world of `side`, about 1.5 times as long as deep, or `None` when it does not
    /// fit: its lowest body must clear the floor, its top must stay below the ceiling, and it must leave the
    /// lower part of the ramp free.
    fn fit(n: usize, side: f32) -> Option<Self> {
        let lanes = ((side - 2.0 * RAMP_GAP) / MIN_SPACING).floor() as usize;
        if lanes == 0 {
            return None;
        }
        let rows = n.div_ceil(lanes);
        let layers = ((rows as f32 / 1.5).sqrt().ceil() as usize).max(1);
        let columns = rows.div_ceil(layers);
        let h = side / 2.0;
        let far = h - RAMP_GAP - (columns as f32 - 0.5) * MIN_SPACING;
        let lowest = ramp_height(far, side) + ramp_lift();
        let top = ramp_height(h, side) + ramp_lift() + layers as f32 * MIN_SPACING;
        let fits = lowest >= -h + RAMP_GAP + 3f32.sqrt() && top <= h - RAMP_GAP - 3f32.sqrt() && far >= 0.0;
        fits.then_some(Self { lanes, columns })
    }

    /// The `n` bodies at rest (cubes and spheres alternating, random orientations), lane first, then column from
    /// the `+x` wall, then layer from the ramp up. Returns each body's and collider's handle, in file order.
    fn spawn(
        self,
        sim: &mut PhysicsWorld,
        rng: &mut Rng,
        n: usize,
        side: f32,
    ) -> Vec<(RigidBodyHandle, ColliderHandle)> {
        let h = side / 2.0;
        // Neighbours are MIN_SPACING apart on every axis, a little more than a cube's diagonal: a jitter of under
        // half the difference keeps them apart.
        let jitter = (MIN_SPACING - 3f32.sqrt()) / 2.0 * 0.9;
        let lift = ramp_lift();
        let lanes_width = self.lanes as f32 * MIN_SPACING;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let (lane, row) = (i % self.lanes, i / self.lanes);
            let (column, layer) = (row % self.columns, row / self.columns);
            let x = h - RAMP_GAP - (column as f32 + 0.5) * MIN_SPACING;
            let y = ramp_height(x, side) + lift + layer as f32 * MIN_SPACING;
            let z = -lanes_width / 2.0 + (lane as f32 + 0.5) * MIN_SPACING;
            let wobble = Vec3::new(rng.range_f32(-1.0, 1.0), rng.range_f32(-1.0, 1.0), rng.range_f32(-1.0, 1.0));
            let p = Vec3::new(x, y, z) + wobble * jitter;
            let spin = rng.unit_vector() * rng.range_f32(0.0, std::f32::consts::PI);
            let body = RigidBodyBuilder::dynamic()
                .translation(Vector::new(p.x, p.y, p.z))
                .rotation(Vector::new(spin.x, spin.y, spin.z))
                .linear_damping(0.05)
                .angular_damping(0.5);
            let shape = if i % 2 == 0 { ColliderBuilder::cuboid(0.5, 0.5, 0.5) } else { ColliderBuilder::ball(0.5) };
            let (b, c) = sim.insert(body, shape.friction(AVALANCHE_FRICTION).restitution(0.1));
            // Sleep below 0.4 units per second, as the free fall's pile does.
            sim.bodies[b].activation_mut().normalized_linear_threshold = 0.2;
            out.push((b, c));
        }
        out
    }
}

/// The box's six sides as fixed cuboids, each half the world thick, their inner faces at `±side / 2`.
fn walls(sim: &mut PhysicsWorld, side: f32) {
    let (h, t) = (side / 2.0, side / 4.0);
    let ground = sim.insert_body(RigidBodyBuilder::fixed());
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut half = Vector::splat(h + 2.0 * t);
            half[axis] = t;
            let mut at = Vector::ZERO;
            at[axis] = sign * (h + t);
            let collider = ColliderBuilder::cuboid(half.x, half.y, half.z).translation(at).friction(0.8);
            sim.insert_collider(collider, Some(ground));
        }
    }
}

/// A random velocity of at most the scene's speed.
fn velocity(rng: &mut Rng, side: f32) -> Vector {
    let v = rng.unit_vector() * NORM_SPEED * side * rng.range_f32(0.0, 1.0);
    Vector::new(v.x, v.y, v.z)
}

/// `n` bodies on a jittered lattice of `per_axis³` cells `spacing` apart filling `inside` (cubes and spheres
/// alternating, random orientations): for the free fall from the top layer down and at rest, otherwise from the
/// bottom up at random velocities. Returns each body's and collider's handle, in file order.
fn spawn(
    sim: &mut PhysicsWorld,
    rng: &mut Rng,
    scene: Scene,
    n: usize,
    per_axis: usize,
    spacing: f32,
    inside: Aabb,
) -> Vec<(RigidBodyHandle, ColliderHandle)> {
    // Two neighbours jittered toward each other close the gap by twice the jitter on that axis; what is left of
    // the spacing stays above a cube's diagonal, so no two bodies start overlapping (an overlap would start
    // rapier's solver with an explosion), and none touches a wall.
    let jitter = ((spacing - 3f32.sqrt()) / 2.0).min(0.25) * 0.9;
    let free_fall = scene == Scene::FreeFall;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        // y is the outermost index: the free fall fills the top layers first.
        let (x, z, layer) = (i % per_axis, i / per_axis % per_axis, i / (per_axis * per_axis));
        let y = if free_fall { per_axis - 1 - layer } else { layer };
        let centre = inside.min + spacing * (Vec3::new(x as f32, y as f32, z as f32) + 0.5);
        let wobble = Vec3::new(rng.range_f32(-1.0, 1.0), rng.range_f32(-1.0, 1.0), rng.range_f32(-1.0, 1.0));
        let p = centre + wobble * jitter;
        let spin = rng.unit_vector() * rng.range_f32(0.0, std::f32::consts::PI);
        let v = if free_fall { Vector::ZERO } else { velocity(rng, spacing * per_axis as f32) };
        let mut body = RigidBodyBuilder::dynamic()
            .translation(Vector::new(p.x, p.y, p.z))
            .rotation(Vector::new(spin.x, spin.y, spin.z))
            .linvel(v)
            .can_sleep(scene != Scene::Gravity);
        if free_fall {
            body = body.linear_damping(0.1).angular_damping(2.0);
        }
        let shape = if i % 2 == 0 { ColliderBuilder::cuboid(0.5, 0.5, 0.5) } else { ColliderBuilder::ball(0.5) };
        let friction = if free_fall { 0.8 } else { 0.5 };
        let (b, c) = sim.insert(body, shape.friction(friction).restitution(0.1));
        if free_fall {
            // Sleep below 0.4 units per second (rapier compares half the speed with this threshold).
            sim.bodies[b].activation_mut().normalized_linear_threshold = 0.2;
        }
        out.push((b, c));
    }
    out
}

#[cfg(test)]
mod tests;
