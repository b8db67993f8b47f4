//! What the window draws of the world: the [`Scene`] handed to the renderer, refilled every frame from the world,
//! the view settings and the camera, and what drawing keeps between frames — each body's run of contacts (the
//! flash), a replay's boxes in a pair, the debug geometry's buffer.
//!
//! It reads the world and changes nothing in it; the app calls [`Drawing::follow`] after the world's steps (or a
//! seek) and [`Drawing::build`] before the renderer draws.

use crate::settings::Settings;
use crate::world::World;
use collide_broadphase::DebugGeometry;
use collide_math::Aabb;
use collide_render::{BoxInstance, Camera, PointLight, Scene, SphereInstance};
use glam::{Quat, Vec3};

/// The colour of a static obstacle's outline.
pub const OBSTACLE_COLOR: [u8; 4] = [255, 170, 60, 255];

/// Colours of the bodies: muted, distinguishable, none of them the flash's red.
const PALETTE: [[u8; 4]; 6] = [
    [120, 160, 210, 255],
    [110, 190, 150, 255],
    [200, 180, 110, 255],
    [170, 140, 200, 255],
    [100, 180, 190, 255],
    [190, 190, 190, 255],
];

/// The scene to draw and the state drawing keeps (see the module docs).
#[derive(Default)]
pub struct Drawing {
    /// The scene handed to the renderer, refilled every frame.
    pub scene: Scene,
    debug: DebugGeometry,
    /// A replay's boxes that are in a pair of the frame on screen (they flash), refilled every frame.
    touching: Vec<bool>,
    /// The contact runs the flash follows ([`ContactRuns`]).
    runs: ContactRuns,
}

impl Drawing {
    /// Catch up with the world after its steps or a seek: a simulation's contact runs, a replay's boxes in a pair
    /// (in a buffer reused from frame to frame). O(n), no allocation once warm.
    pub fn follow(&mut self, world: &World) {
        match world {
            World::Sim(sim) => {
                let bodies = sim.bodies();
                self.runs.update(&bodies.last_contact, &bodies.id, sim.steps().saturating_sub(1));
            }
            World::Replay(player) => {
                let replay = player.replay();
                self.touching.clear();
                self.touching.resize(replay.aabbs().len(), false);
                for p in replay.pairs() {
                    self.touching[p.a as usize] = true;
                    self.touching[p.b as usize] = true;
                }
            }
        }
    }

    /// How many bodies touched another in the last step (a replay: boxes in a pair of the frame on screen).
    #[must_use]
    pub fn colliding_bodies(&self, world: &World) -> usize {
        match world {
            World::Sim(sim) => {
                let last = sim.steps().saturating_sub(1);
                sim.bodies().last_contact.iter().filter(|&&c| c == last).count()
            }
            World::Replay(_) => self.touching.iter().filter(|&&t| t).count(),
        }
    }

    /// Fill the scene for `camera`: lights, the bodies with their flash, the container, the scene's obstacles and
    /// the active algorithm's debug geometry.
    pub fn build(&mut self, world: &World, settings: &Settings, camera: Camera) {
        puffin::profile_function!();
        let container = world.run().container();
        let width = container.extents().max_element();
        let scene = &mut self.scene;
        scene.camera = camera;
        scene.point_lights.clear();
        scene.point_lights.extend(settings.lights.iter().map(|l| PointLight {
            position: Vec3::from(l.position),
            color: Vec3::from(l.color),
            range: l.range * width,
        }));
        scene.clear_geometry();
        match world {
            World::Sim(sim) => {
                let bodies = sim.bodies();
                // `steps()` is the number of the next step; the last one run is one less.
                let now = sim.steps().saturating_sub(1);
                let fade = settings.flash_steps.max(1) as f32;
                // Boxes are drawn as themselves, turned by their orientation; spheres as spheres. A body's colour
                // and flash go by its id, which a spatial reorder does not change.
                for i in 0..bodies.len() {
                    let id = bodies.id[i] as usize;
                    let (p, color, flash) =
                        (bodies.position[i], PALETTE[id % PALETTE.len()], self.runs.flash(id, now, fade));
                    match bodies.obb(i) {
                        Some(b) => {
                            let mut instance = BoxInstance::new(p, b.half_extents, b.rotation, color);
                            instance.flash = flash;
                            scene.boxes.push(instance);
                        }
                        None => {
                            let radius = bodies.radius[i];
                            scene.spheres.push(SphereInstance { center: p.into(), radius, color, flash });
                        }
                    }
                }
            }
            World::Replay(player) => {
                // A replay knows boxes only: each is drawn as itself, flashing while it is in a pair of the frame
                // on screen (the file has no contacts, and no history to fade).
                let replay = player.replay();
                scene.boxes.extend(replay.aabbs().iter().zip(&self.touching).enumerate().map(|(i, (b, &hit))| {
                    let mut instance =
                        BoxInstance::new(b.center(), b.extents() * 0.5, Quat::IDENTITY, PALETTE[i % PALETTE.len()]);
                    instance.flash = if hit { 1.0 } else { 0.0 };
                    instance
                }));
            }
        }
        if settings.show_container {
            scene.wire_box(container.min, container.max, [200, 200, 200, 255]);
        }
        // The scene's static obstacles (the `tunnel`'s thin wall): the bodies bounce off them, so they are shown.
        if let Some(sim) = world.sim() {
            for obstacle in &sim.setup().obstacles {
                outline_obstacle(scene, obstacle, &container);
            }
        }
        for l in &settings.lights {
            scene.cross(Vec3::from(l.position), width * 0.01, [255, 240, 120, 255]);
        }
        let run = world.run();
        if settings.debug_view(run.algorithm().0.name) {
            self.debug.clear();
            run.broadphase().debug_geometry(&mut self.debug);
            for b in self.debug.boxes.iter().take(settings.debug_max_boxes) {
                // Deeper levels fade and cool, so the coarse structure stays readable over the fine one.
                let t = (b.depth as f32 / 8.0).min(1.0);
                let alpha = (220.0 * (1.0 - 0.7 * t)) as u8;
                let color =
                    [(80.0 + 150.0 * (1.0 - t)) as u8, (200.0 - 60.0 * t) as u8, (90.0 + 140.0 * t) as u8, alpha];
                scene.wire_box(b.aabb.min, b.aabb.max, color);
            }
            for [a, b] in &self.debug.segments {
                scene.segment(*a, *b, [255, 160, 60, 200]);
            }
        }
    }
}

/// Outline a static obstacle: its edges and the diagonals of its mid-plane across the thinnest axis, so that a thin
/// wall reads as a plane and not as a frame. An axis-aligned obstacle is cut to the container (the `tunnel`'s wall
/// reaches beyond it, for paths that leave the container within a step); a turned one is drawn whole.
fn outline_obstacle(scene: &mut Scene, obstacle: &collide_math::Obb, container: &Aabb) {
    let axes = obstacle.axes();
    let (center, half) = if obstacle.rotation == Quat::IDENTITY {
        match obstacle.aabb().intersection(container) {
            Some(inside) => (inside.center(), inside.half_extents()),
            None => return,
        }
    } else {
        (obstacle.center, obstacle.half_extents)
    };
    scene.wire_oriented_box(center, axes, half, OBSTACLE_COLOR);
    let corner = |s: Vec3| center + axes * (half * s);
    let thin = half.min_position();
    let (u, v) = ((thin + 1) % 3, (thin + 2) % 3);
    for flip in [-1.0, 1.0] {
        let (mut a, mut b) = (Vec3::ZERO, Vec3::ZERO);
        (a[u], a[v], b[u], b[v]) = (-1.0, -flip, 1.0, flip);
        scene.segment(corner(a), corner(b), OBSTACLE_COLOR);
    }
}

/// Per body, the step its current run of contacts began: a contact flashes when it begins and fades over
/// `flash_steps`, so that bodies resting on each other or on the floor — in contact every step — fade back to their
/// colour instead of reading as one red slab, while a new hit still flashes. A run goes on while the body is seen
/// in contact at frame after frame (the window may run several steps a frame: a gap between two of them is not
/// seen). Kept across frames by body id (a spatial reorder moves bodies between indices, not ids); reset when the
/// body count changes.
#[derive(Debug, Default)]
pub struct ContactRuns {
    /// Per body id: the step its current (or last) run of contacts began; `u64::MAX` for never.
    began: Vec<u64>,
    /// Per body id: its last contact step as seen at the previous update.
    seen: Vec<u64>,
    /// The step of the previous update.
    step: u64,
}

impl ContactRuns {
    /// Bring the runs up to `now` (the last step run) from every body's last contact step, `ids[i]` being body
    /// `i`'s id. O(n), no allocation once warm.
    pub fn update(&mut self, last_contact: &[u64], ids: &[u32], now: u64) {
        if self.began.len() != last_contact.len() {
            self.began.clear();
            self.began.resize(last_contact.len(), u64::MAX);
            self.seen.clear();
            self.seen.resize(last_contact.len(), u64::MAX);
        }
        for (&contact, &id) in last_contact.iter().zip(ids) {
            let (began, seen) = (&mut self.began[id as usize], &mut self.seen[id as usize]);
            // A contact since the previous update that does not continue a run seen then begins one.
            let in_contact_before = *seen == self.step;
            if contact != u64::MAX && contact != *seen && !in_contact_before {
                *began = contact;
            }
            *seen = contact;
        }
        self.step = now;
    }

    /// The flash of body `id` at `now`: 1 when its run of contacts began this step, fading to 0 over `fade` steps.
    #[must_use]
    pub fn flash(&self, id: usize, now: u64, fade: f32) -> f32 {
        match self.began.get(id) {
            Some(&began) if began != u64::MAX => (1.0 - now.saturating_sub(began) as f32 / fade).max(0.0),
            _ => 0.0,
        }
    }
}
