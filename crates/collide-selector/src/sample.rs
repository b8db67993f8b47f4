//! [`SubBox`]: the spatial sample a sampled probe runs two candidates on.
//!
//! A random subset of the bodies would thin the scene out — fewer neighbours per body, other cells, other trees —
//! so a sampled probe takes instead every body whose centre lies in a few small cubes, *sub-boxes* of the scene
//! holding a few percent of the bodies between them: the scene as it is there, at its own density, clustering and
//! sizes, only smaller. Two candidates timed on it compare as they would on the whole scene, but for how each
//! scales with n, which the cost model's prior knows (see [`crate::CostModel::observe_sample`]).
//!
//! Two choices keep the sample like the scene. Membership goes by the centre, not by overlap: a large body
//! overlaps a cube from further away than a small one, and by overlap the mixed-sizes scene's sample held twice
//! its share of large bodies (hgrid measured 1.5× mbp on it, 0.8× on the scene). And in a clustered scene there are
//! [`CUBES`] cubes, each centred on another body of the feature sample, not one: one cube sits in one cluster of
//! `far-clusters`, whose eight clusters lie a thousand cluster widths apart, and a grid timed on one cluster (0.64×
//! hgrid) knows nothing of the empty world it hashes on the scene (1.10×); cubes in several clusters keep the
//! world's extent. In a scene without clusters one cube is the scene's likeness: four small cubes far apart are
//! four small clusters, which a tree splits at its root and walks in the caches. On rapier's free fall at 10⁴
//! bodies (dynamic tree 0.8× `hgrid` and `kd` 0.6× on the scene), four cubes of 135 bodies measured the tree at
//! 0.34–0.71× and `kd` at 0.26–0.43×, one cube of 540 at 0.77–0.90× and 0.50–0.59× (three of four draws; see
//! [`cubes_for`]).
//!
//! Neither choice helps where the bodies' reach is the cube's own size: `power-law`'s largest bodies overlap
//! neighbours a cube's half width away, the cube cuts them off, and its sample holds 0.4–0.7 of the scene's pairs a
//! body (the registry's other scenes and rapier's streams 0.85–1.0). The controller counts the sample's pairs and
//! does not carry such a *thin* sample's verdict against a candidate (see [`crate::THIN_SAMPLE`]).
//!
//! Each cube is sized from the feature sample's distances to its centre: the cube that holds `target · s / (n ·
//! cubes)` of the s sampled bodies holds about `target / cubes` of all n. One pass over the boxes then lists the
//! bodies whose centre lies in a cube. Each frame of the probe gathers their boxes into a compact array.
//!
//! Cost: O(s log s) to size the cubes, O(n) to list their bodies once per probe (about a millisecond at 10⁶
//! bodies), then O(k) per frame to gather k boxes. Nothing allocates once the buffers have grown.

use collide_broadphase::{Aabb, Resize, is_valid_box};

/// Listing stops growing the sample past this many times the target (cubes drawn in the middle of a dense crowd):
/// the cubes are shrunk and the bodies listed again, once.
const OVERFULL: usize = 4;
/// Cubes per sample of a clustered scene.
pub const CUBES: usize = 4;
/// The clustering (see [`crate::Features::clustering`]: 1 for bodies spread evenly) from which a scene counts as
/// clustered and its sample takes [`CUBES`] cubes. `far-clusters` measures 8–170; the registry's other scenes and
/// rapier's streams 0.9–2.
pub const CLUSTERED_FROM: f64 = 4.0;

/// The cubes a sample of a scene of this clustering takes: [`CUBES`] in a clustered scene, else one.
#[must_use]
pub fn cubes_for(clustering: f64) -> usize {
    if clustering >= CLUSTERED_FROM { CUBES } else { 1 }
}

/// The bodies of a sampled probe and their boxes this frame.
#[derive(Clone, Debug, Default)]
pub struct SubBox {
    /// The bodies whose centre lay in a cube when the cubes were drawn, ascending when drawn (a permutation renames
    /// them in place, keeping their order: the scouts number the sample's bodies by their place here).
    ids: Vec<u32>,
    /// Their boxes this frame, in `ids` order.
    boxes: Vec<Aabb>,
    /// Scratch: the feature sample's distances to a centre.
    distances: Vec<f32>,
    /// Which body of the feature sample centres the next cube.
    next: usize,
}

impl SubBox {
    /// Draw `count` cubes (1 to [`CUBES`]; see [`cubes_for`]) holding about `target` of the bodies of `aabbs`
    /// between them, each centred on a body of the feature sample `sample` (body indices) and sized from it, and
    /// list the bodies whose centre lies in one. Returns how many.
    pub fn draw(&mut self, aabbs: &[Aabb], sample: &[u32], target: usize, count: usize) -> usize {
        let count = count.clamp(1, CUBES);
        self.ids.clear();
        let n = aabbs.len();
        let mut cubes = [(collide_math::Vec3::ZERO, 0.0f32); CUBES];
        let mut drawn = 0;
        let mut tried = 0;
        while drawn < count && tried < sample.len() {
            let i = sample[(self.next + tried) % sample.len()] as usize;
            tried += 1;
            if !is_valid_box(&aabbs[i]) {
                continue;
            }
            let centre = aabbs[i].center();
            // The cube's half width: the distance (the largest of the three axes') from the centre to the sampled
            // body ranked `target · s / (n · count)`.
            self.distances.clear();
            self.distances.extend(
                sample
                    .iter()
                    .map(|&i| &aabbs[i as usize])
                    .filter(|b| is_valid_box(b))
                    .map(|b| (b.center() - centre).abs().max_element()),
            );
            let share = target as f64 / (n.max(1) * count) as f64;
            let rank = (share * self.distances.len() as f64).ceil() as usize;
            let rank = rank.clamp(1, self.distances.len()) - 1;
            let half = *self.distances.select_nth_unstable_by(rank, f32::total_cmp).1;
            cubes[drawn] = (centre, half);
            drawn += 1;
        }
        self.next = self.next.wrapping_add(tried);
        if drawn == 0 {
            return 0;
        }
        for _ in 0..2 {
            self.list(aabbs, &cubes[..drawn]);
            if self.ids.len() <= OVERFULL * target {
                break;
            }
            // A dense crowd inside the cubes: shrink them to the target's share of the volume.
            let shrink = (target as f32 / self.ids.len() as f32).cbrt();
            cubes.iter_mut().for_each(|c| c.1 *= shrink);
        }
        self.ids.truncate(OVERFULL * target.max(1));
        self.ids.len()
    }

    /// List the bodies whose centre lies in one of `cubes` (centre, half width).
    fn list(&mut self, aabbs: &[Aabb], cubes: &[(collide_math::Vec3, f32)]) {
        self.ids.clear();
        self.ids.extend(aabbs.iter().enumerate().filter_map(|(i, b)| {
            let c = b.center();
            cubes.iter().any(|&(centre, half)| (c - centre).abs().max_element() <= half).then_some(i as u32)
        }));
    }

    /// Rename the sample's bodies by the permutation `resize` (the simulation's spatial reorder), in place: the same
    /// bodies, in the same order, so that the sub-box's frames and the scouts' structures built on them go on. O(k).
    pub fn permute(&mut self, resize: &Resize<'_>) {
        for id in &mut self.ids {
            *id = resize.old_to_new[*id as usize];
        }
    }

    /// Gather this frame's boxes of the sample's bodies (`aabbs` indexed as when the cube was drawn).
    pub fn gather(&mut self, aabbs: &[Aabb]) -> &[Aabb] {
        self.boxes.clear();
        self.boxes.extend(self.ids.iter().map(|&i| aabbs[i as usize]));
        &self.boxes
    }

    /// The bodies of the sample (tests).
    #[cfg(test)]
    pub(crate) fn ids(&self) -> &[u32] {
        &self.ids
    }
}

#[cfg(test)]
mod tests;
