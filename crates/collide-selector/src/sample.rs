//! [`SubBox`]: the spatial sample a sampled probe runs two candidates on.
//!
//! A random subset of the bodies would thin the scene out — fewer neighbours per body, other cells, other trees —
//! so a sampled probe takes instead every body whose box overlaps a cube, a *sub-box* of the scene holding a few
//! percent of the bodies: the scene as it is there, at its own density, clustering and sizes, only smaller. Two
//! candidates timed on it compare as they would on the whole scene, but for how each scales with n, which the
//! cost model's prior knows (see [`crate::CostModel::observe_sample`]).
//!
//! The cube is centred on a body of the feature sample (a different one each probe, so that successive probes
//! see different parts of the scene), and sized from the feature sample's distances to that centre: the cube
//! that holds `target · s / n` of the s sampled bodies holds about `target` of all n. One pass over the boxes
//! then lists the bodies that overlap it. Each frame of the probe gathers their boxes into a compact array.
//!
//! Cost: O(s log s) to size the cube, O(n) to list its bodies once per probe (about a millisecond at 10⁶ bodies),
//! then O(k) per frame to gather k boxes. Nothing allocates once the buffers have grown.

use collide_broadphase::{Aabb, is_valid_box};

/// Listing stops growing the sample past this many times the target (a cube drawn in the middle of a dense
/// crowd): the cube is shrunk and the bodies listed again, once.
const OVERFULL: usize = 4;

/// The bodies of a sampled probe and their boxes this frame.
#[derive(Clone, Debug, Default)]
pub struct SubBox {
    /// The bodies whose box overlapped the cube when it was drawn, ascending.
    ids: Vec<u32>,
    /// Their boxes this frame, in `ids` order.
    boxes: Vec<Aabb>,
    /// Scratch: the feature sample's distances to the centre.
    distances: Vec<f32>,
    /// Which body of the feature sample centres the next cube.
    next: usize,
}

impl SubBox {
    /// Draw a cube holding about `target` of the bodies of `aabbs`, sized from the feature sample `sample` (body
    /// indices), and list the bodies whose box overlaps it. Returns how many.
    pub fn draw(&mut self, aabbs: &[Aabb], sample: &[u32], target: usize) -> usize {
        self.ids.clear();
        let n = aabbs.len();
        let valid_sample = |k: usize| sample.get(k).map(|&i| &aabbs[i as usize]).filter(|b| is_valid_box(b));
        let Some(centre) = (0..sample.len()).find_map(|k| valid_sample((self.next + k) % sample.len())) else {
            return 0;
        };
        let centre = centre.center();
        self.next = self.next.wrapping_add(1);
        // The cube's half width: the distance (the largest of the three axes') from the centre to the sampled
        // body ranked `target · s / n`.
        self.distances.clear();
        self.distances.extend(
            sample
                .iter()
                .map(|&i| &aabbs[i as usize])
                .filter(|b| is_valid_box(b))
                .map(|b| (b.center() - centre).abs().max_element()),
        );
        if self.distances.is_empty() {
            return 0;
        }
        let rank = (target as f64 * self.distances.len() as f64 / n.max(1) as f64).ceil() as usize;
        let rank = rank.clamp(1, self.distances.len()) - 1;
        let mut half = *self.distances.select_nth_unstable_by(rank, f32::total_cmp).1;
        for _ in 0..2 {
            self.list(aabbs, centre, half);
            if self.ids.len() <= OVERFULL * target {
                break;
            }
            // A dense crowd inside the cube: shrink it to the target's share of the volume.
            half *= (target as f32 / self.ids.len() as f32).cbrt();
        }
        self.ids.truncate(OVERFULL * target.max(1));
        self.ids.len()
    }

    /// List the bodies whose box overlaps the cube of half width `half` about `centre`.
    fn list(&mut self, aabbs: &[Aabb], centre: collide_math::Vec3, half: f32) {
        self.ids.clear();
        let cube = Aabb::new(centre - half, centre + half);
        self.ids.extend(
            aabbs
                .iter()
                .enumerate()
                .filter(|(_, b)| b.min.cmple(cube.max).all() && b.max.cmpge(cube.min).all())
                .map(|(i, _)| i as u32),
        );
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
mod tests {
    use super::*;
    use collide_math::{Rng, Vec3};

    #[test]
    fn a_sub_box_holds_about_the_target_and_every_body_overlapping_it() {
        let mut rng = Rng::new(4);
        let aabbs: Vec<Aabb> =
            (0..100_000).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(200.0)), 0.5)).collect();
        let sample: Vec<u32> = (0..2048u32).map(|k| (u64::from(k) * 2_654_435_761 % 100_000) as u32).collect();
        let mut sub = SubBox::default();
        let mut seen = Vec::new();
        for _ in 0..8 {
            let k = sub.draw(&aabbs, &sample, 4000);
            assert!((1000..16_000).contains(&k), "{k} bodies for a target of 4000");
            assert!(sub.ids().windows(2).all(|w| w[0] < w[1]));
            // Dense: the bodies are neighbours, not a thinned-out random subset — their bounds are a small cube.
            let mut lo = Vec3::splat(f32::INFINITY);
            let mut hi = Vec3::splat(f32::NEG_INFINITY);
            for &i in sub.ids() {
                lo = lo.min(aabbs[i as usize].min);
                hi = hi.max(aabbs[i as usize].max);
            }
            let volume = (hi - lo).x * (hi - lo).y * (hi - lo).z;
            let expected = 200f32.powi(3) * k as f32 / 100_000.0;
            assert!(volume < 2.0 * expected, "the sample spans {volume} for {expected} expected");
            seen.push(lo);
        }
        seen.dedup();
        assert!(seen.len() > 4, "successive probes see different parts of the scene");
        let boxes = sub.gather(&aabbs).to_vec();
        assert_eq!(boxes.len(), sub.ids().len());
        assert!(sub.ids().iter().zip(&boxes).all(|(&i, b)| aabbs[i as usize] == *b));
    }

    #[test]
    fn a_crowd_at_one_point_is_capped_and_invalid_boxes_never_centre_a_cube() {
        let mut aabbs = vec![Aabb::from_center_radius(Vec3::ONE, 0.5); 10_000];
        aabbs[0] = Aabb::new(Vec3::splat(f32::NAN), Vec3::splat(f32::NAN));
        let sample: Vec<u32> = (0..100).collect();
        let mut sub = SubBox::default();
        let k = sub.draw(&aabbs, &sample, 500);
        assert_eq!(k, OVERFULL * 500, "capped");
        assert!(sub.ids().iter().all(|&i| i != 0), "a NaN box overlaps nothing");
        let nothing = vec![Aabb::new(Vec3::splat(f32::NAN), Vec3::splat(f32::NAN)); 10];
        assert_eq!(sub.draw(&nothing, &[0, 1, 2], 5), 0);
    }
}
