//! An engine's loop around a collide broadphase: bodies with the engine's own handles, added and removed between
//! frames, some at rest, and the pairs read back as handles.
//!
//! ```sh
//! cargo run --release -p collide-algorithms --example engine_loop              # auto, 3000 bodies, 300 frames
//! cargo run --release -p collide-algorithms --example engine_loop -- sap 600   # any registered name, frames
//! ```
//!
//! What the engine does each frame, and what it tells the broadphase:
//! 1. **Churn.** Every tenth frame some bodies die and some are born. The engine stores its bodies densely and
//!    removes by swapping the last body into the hole (`Vec::swap_remove`), so indices move; it tells the
//!    broadphase once, before the frame, with [`Broadphase::on_resize`]: `old_to_new[i]` is old body `i`'s new
//!    index, or [`Resize::REMOVED`]. Born bodies are the new indices nothing maps to.
//! 2. **Step.** Bodies move and bounce off the walls; three quarters of them rest, so their boxes stay bit for bit the
//!    same. The engine knows which boxes it changed and says so with [`Frame::with_moved`] (a born body counts as
//!    moved). `false` is a promise; `true` promises nothing.
//! 3. **Pairs.** [`Broadphase::find_pairs`] answers in dense indices; the engine maps them to its handles.
//!
//! The example checks every frame's pairs against a double loop over the engine's own bodies (by handle), and
//! fails if one is missing or extra: `tests/engine_loop.rs` runs it for every registered algorithm in CI.

use collide_algorithms::{Aabb, Broadphase, BuildError, Frame, PairList, Resize, Vec3, build, on_worker};
use std::collections::{BTreeSet, HashMap};

/// The engine's own name for a body: stable for the body's life, never reused. collide never sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Handle(u64);

/// One of the engine's bodies.
struct Body {
    handle: Handle,
    position: Vec3,
    velocity: Vec3,
    half_extents: Vec3,
}

impl Body {
    fn aabb(&self) -> Aabb {
        Aabb::from_center_half_extents(self.position, self.half_extents)
    }
}

/// Marks a body born since the frame began in [`Engine::origin`].
const BORN: u32 = u32::MAX;

/// A toy engine: dense bodies, a handle → index map, and the broadphase state it keeps across frames.
pub struct Engine {
    /// Dense: body `i` here is collide's body `i`.
    bodies: Vec<Body>,
    /// Where each body's handle is in `bodies`.
    index_of: HashMap<Handle, u32>,
    /// This frame's boxes, one per body, handed to the broadphase; kept for the next frame.
    boxes: Vec<Aabb>,
    /// The motion hint: `moved[i]` is false only when `boxes[i]` is last frame's box of the same body.
    moved: Vec<bool>,
    /// For each body, its index when the frame began, or [`BORN`]: what `on_resize` is built from.
    origin: Vec<u32>,
    broadphase: Box<dyn Broadphase>,
    /// The broadphase's output, kept across frames so that it stops allocating once grown.
    pairs: PairList,
    next_handle: u64,
    rng: u64,
    half_width: f32,
}

/// What a run did, for the summary line.
#[derive(Debug, Default)]
pub struct Report {
    /// Frames run.
    pub frames: u64,
    /// Bodies alive at the end.
    pub bodies: usize,
    /// Pairs found over all frames.
    pub pairs: u64,
    /// `on_resize` calls made.
    pub resizes: u64,
    /// The algorithm that answered the last frame (for `auto`: the candidate it ran).
    pub last_algorithm: &'static str,
}

impl Engine {
    /// `bodies` boxes of half size 0.3 to 0.7 in a cube sized for about 8% volume fraction, driven by `algorithm`.
    pub fn new(algorithm: &str, bodies: usize, seed: u64) -> Result<Self, BuildError> {
        let broadphase = build(algorithm, [])?;
        let volume = bodies as f32 * 1.0 / 0.08;
        let mut engine = Self {
            bodies: Vec::new(),
            index_of: HashMap::new(),
            boxes: Vec::new(),
            moved: Vec::new(),
            origin: Vec::new(),
            broadphase,
            pairs: PairList::new(),
            next_handle: 1000,
            rng: seed,
            half_width: volume.cbrt() / 2.0,
        };
        for _ in 0..bodies {
            engine.spawn();
        }
        Ok(engine)
    }

    /// Run `frames` frames, checking each frame's pairs against a double loop over the bodies.
    pub fn run(&mut self, frames: u64) -> Result<Report, String> {
        let mut report = Report::default();
        let mut handle_pairs = Vec::new();
        for frame in 0..frames {
            if frame > 0 && frame % 10 == 0 {
                self.churn(frame);
                report.resizes += 1;
            }
            self.step(frame, &mut handle_pairs);
            self.check(frame, &handle_pairs)?;
            report.pairs += handle_pairs.len() as u64;
        }
        report.frames = frames;
        report.bodies = self.bodies.len();
        report.last_algorithm = self.broadphase.active_name();
        Ok(report)
    }

    /// Remove a few bodies by handle (swap-remove: the last body takes the hole), add a few, and tell the
    /// broadphase how the indices moved. Every other churn adds as many as it removes: the count stays, and only
    /// the map says that the bodies at some indices are not the ones that were there.
    fn churn(&mut self, frame: u64) {
        let old_len = self.bodies.len();
        self.origin.clear();
        self.origin.extend(0..old_len as u32);
        let deaths = old_len / 20;
        for _ in 0..deaths {
            let index = self.random_below(self.bodies.len());
            let victim = self.bodies[index].handle;
            self.remove(victim);
        }
        let births = if (frame / 10) % 2 == 1 { deaths } else { old_len / 15 };
        for _ in 0..births {
            self.spawn();
        }
        // The broadphase hears of the change once, as a map from the indices of its last call to today's.
        let mut old_to_new = vec![Resize::REMOVED; old_len];
        for (new, &old) in self.origin.iter().enumerate() {
            if old != BORN {
                old_to_new[old as usize] = new as u32;
            }
        }
        self.broadphase.on_resize(&Resize { old_to_new: &old_to_new, new_len: self.bodies.len() });
    }

    /// The engine's own removal: the last body moves into the hole, and its index changes.
    fn remove(&mut self, handle: Handle) {
        let Some(i) = self.index_of.remove(&handle) else { return };
        let i = i as usize;
        self.bodies.swap_remove(i);
        self.boxes.swap_remove(i);
        self.moved.swap_remove(i);
        self.origin.swap_remove(i);
        if let Some(moved_in) = self.bodies.get(i) {
            self.index_of.insert(moved_in.handle, i as u32);
        }
    }

    fn spawn(&mut self) {
        let h = self.half_width - 1.0;
        let position = Vec3::new(self.uniform(-h, h), self.uniform(-h, h), self.uniform(-h, h));
        // Three quarters of the bodies rest (a settled pile): their boxes stay bit for bit the same, and the hint says
        // so — enough for the octrees' static tree and the dynamic BVH's static tree to take them.
        let velocity = if self.random_below(4) != 0 {
            Vec3::ZERO
        } else {
            Vec3::new(self.uniform(-4.0, 4.0), self.uniform(-4.0, 4.0), self.uniform(-4.0, 4.0))
        };
        let handle = Handle(self.next_handle);
        self.next_handle += 7; // the engine's handles are its own business: not dense, not indices
        self.index_of.insert(handle, self.bodies.len() as u32);
        let body = Body { handle, position, velocity, half_extents: Vec3::splat(self.uniform(0.3, 0.7)) };
        self.boxes.push(body.aabb());
        self.moved.push(true); // a body born since the last call is always marked moved
        self.origin.push(BORN);
        self.bodies.push(body);
    }

    /// Move the bodies, build their boxes and the hint, find the pairs and map them to handles.
    fn step(&mut self, frame: u64, handle_pairs: &mut Vec<(Handle, Handle)>) {
        let dt = 1.0 / 60.0;
        let wall = self.half_width - 0.7;
        for (i, body) in self.bodies.iter_mut().enumerate() {
            if body.velocity != Vec3::ZERO {
                body.position += body.velocity * dt;
                for axis in 0..3 {
                    if body.position[axis].abs() > wall {
                        body.position[axis] = body.position[axis].clamp(-wall, wall);
                        body.velocity[axis] = -body.velocity[axis];
                    }
                }
                self.boxes[i] = body.aabb();
                self.moved[i] = true;
            }
            // A body at rest keeps its box and its flag: false, or true when born since the last call.
        }
        let frame_data = Frame::new(&self.boxes).with_step(frame).with_dt(dt).with_moved(&self.moved);
        let (broadphase, pairs) = (&mut self.broadphase, &mut self.pairs);
        on_worker(|| broadphase.find_pairs(&frame_data, pairs));
        handle_pairs.clear();
        handle_pairs.extend(self.pairs.iter().map(|p| {
            let (a, b) = (self.bodies[p.a as usize].handle, self.bodies[p.b as usize].handle);
            (a.min(b), a.max(b))
        }));
        // The next frame's hint starts from "nothing moved"; born bodies are marked as they are spawned.
        for (flag, body) in self.moved.iter_mut().zip(&self.bodies) {
            *flag = body.velocity != Vec3::ZERO;
        }
    }

    /// The frame's pairs, as handles, against every pair of the engine's bodies tested one by one.
    fn check(&self, frame: u64, handle_pairs: &[(Handle, Handle)]) -> Result<(), String> {
        let found: BTreeSet<_> = handle_pairs.iter().copied().collect();
        if found.len() != handle_pairs.len() {
            return Err(format!("frame {frame}: a pair was reported twice"));
        }
        let mut expected = BTreeSet::new();
        for (i, a) in self.bodies.iter().enumerate() {
            for b in &self.bodies[i + 1..] {
                if a.aabb().overlaps(&b.aabb()) {
                    expected.insert((a.handle.min(b.handle), a.handle.max(b.handle)));
                }
            }
        }
        if let Some(missing) = expected.difference(&found).next() {
            return Err(format!(
                "frame {frame}: {} pairs missing, e.g. {missing:?}",
                expected.difference(&found).count()
            ));
        }
        if let Some(extra) = found.difference(&expected).next() {
            return Err(format!("frame {frame}: {} extra pairs, e.g. {extra:?}", found.difference(&expected).count()));
        }
        Ok(())
    }

    /// SplitMix64: the example needs no other crate.
    fn next_u64(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    fn random_below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// `engine_loop [ALGORITHM] [FRAMES]`: 3000 bodies through `auto` (or ALGORITHM) for 300 frames (or FRAMES).
fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let algorithm = args.next().unwrap_or_else(|| "auto".to_owned());
    let frames = match args.next() {
        Some(text) => text.parse().map_err(|_| format!("FRAMES must be a whole number, not `{text}`"))?,
        None => 300,
    };
    let mut engine = Engine::new(&algorithm, 3000, 7).map_err(|e| e.to_string())?;
    let report = engine.run(frames)?;
    println!(
        "engine_loop: {algorithm} · {} frames · {} bodies at the end · {} resizes · {} pairs in all, every frame \
         checked against brute force · last frame answered by {}",
        report.frames, report.bodies, report.resizes, report.pairs, report.last_algorithm
    );
    Ok(())
}
