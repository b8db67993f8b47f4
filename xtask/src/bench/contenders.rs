//! The contenders of the peers study: ours through the `Broadphase` trait, and the peers — parry's BVH (the broad
//! phase rapier uses, rebuilt or refitted) and rstar's bulk-loaded R-tree self-join — behind one small trait, so
//! that the study times them all the same way and checks every pair set.

use collide_algorithms::{ALGORITHMS, AlgorithmDescriptor, Params};
use collide_broadphase::{Broadphase, Frame, Pair, PairList};
use collide_math::Aabb;

/// Something that finds the overlapping pairs of a frame's boxes.
pub trait Contender {
    /// The name in the CSV and on the plots.
    fn name(&self) -> String;
    /// Write every overlapping pair of `aabbs` into `out` (any order; the bench normalises and compares).
    fn find(&mut self, aabbs: &[Aabb], step: u64, out: &mut Vec<Pair>);
}

/// One of ours, through the trait.
pub struct Ours {
    broadphase: Box<dyn Broadphase>,
    pairs: PairList,
}

impl Ours {
    /// The registry row `a` with its default parameters.
    #[must_use]
    pub fn new(a: &AlgorithmDescriptor) -> Self {
        Self { broadphase: (a.build)(&Params::defaults(a.params)), pairs: PairList::new() }
    }
}

impl Contender for Ours {
    fn name(&self) -> String {
        self.broadphase.name().to_owned()
    }

    fn find(&mut self, aabbs: &[Aabb], step: u64, out: &mut Vec<Pair>) {
        find_into(self.broadphase.as_mut(), &Frame::new(aabbs).with_step(step), &mut self.pairs, out);
    }
}

/// `broadphase`'s pairs of `frame` written into the harness's buffer `out`, as the peers write theirs: `list`
/// lends its place to `out`'s buffer for the query and takes its own back, so nothing is copied. (Copying the
/// pairs out of the list after the query was timed with it: at 2.3 million pairs a frame, 19 MB, a few
/// milliseconds no peer paid.)
pub fn find_into(broadphase: &mut dyn Broadphase, frame: &Frame<'_>, list: &mut PairList, out: &mut Vec<Pair>) {
    std::mem::swap(list.as_mut_vec(), out);
    broadphase.find_pairs(frame, list);
    std::mem::swap(list.as_mut_vec(), out);
}

fn parry_aabb(b: &Aabb) -> parry3d::bounding_volume::Aabb {
    use parry3d::math::Vector;
    parry3d::bounding_volume::Aabb::new(Vector::new(b.min.x, b.min.y, b.min.z), Vector::new(b.max.x, b.max.y, b.max.z))
}

/// parry's BVH rebuilt every frame (binned SAH build), then its self-traversal (BVTT). Leaf boxes are exact and
/// parry's node test is closed (`mins <= maxs`), like ours, so no filtering follows.
#[derive(Default)]
pub struct ParryRebuild {
    leaves: Vec<parry3d::bounding_volume::Aabb>,
    workspace: parry3d::partitioning::BvhWorkspace,
}

impl Contender for ParryRebuild {
    fn name(&self) -> String {
        "parry-bvh-rebuild".into()
    }

    fn find(&mut self, aabbs: &[Aabb], _: u64, out: &mut Vec<Pair>) {
        self.leaves.clear();
        self.leaves.extend(aabbs.iter().map(parry_aabb));
        let bvh =
            parry3d::partitioning::Bvh::from_leaves(parry3d::partitioning::BvhBuildStrategy::Binned, &self.leaves);
        out.clear();
        bvh.traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |a, b| out.push(Pair::new(a, b)));
    }
}

/// parry's BVH kept across frames the way rapier's `BroadPhaseBvh` maintains it: update every leaf in place,
/// refit, one round of incremental optimisation; then the full self-traversal. (Rapier itself traverses only
/// the changed leaves and keeps the older pairs; the full traversal gives the whole pair set to compare.)
#[derive(Default)]
pub struct ParryRefit {
    bvh: Option<parry3d::partitioning::Bvh>,
    workspace: parry3d::partitioning::BvhWorkspace,
}

impl Contender for ParryRefit {
    fn name(&self) -> String {
        "parry-bvh-refit".into()
    }

    fn find(&mut self, aabbs: &[Aabb], _: u64, out: &mut Vec<Pair>) {
        match &mut self.bvh {
            Some(bvh) if bvh.leaf_count() as usize == aabbs.len() => {
                for (i, b) in aabbs.iter().enumerate() {
                    bvh.insert_or_update_partially(parry_aabb(b), i as u32, 0.0);
                }
                bvh.refit(&mut self.workspace);
                bvh.optimize_incremental(&mut self.workspace);
            }
            _ => {
                let leaves: Vec<_> = aabbs.iter().map(parry_aabb).collect();
                self.bvh = Some(parry3d::partitioning::Bvh::from_leaves(
                    parry3d::partitioning::BvhBuildStrategy::Binned,
                    &leaves,
                ));
            }
        }
        out.clear();
        let bvh = self.bvh.as_ref().expect("built above");
        bvh.traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |a, b| out.push(Pair::new(a, b)));
    }
}

/// A box with its body index, as rstar stores it.
#[derive(Clone, Copy, Debug)]
struct Entry {
    envelope: rstar::AABB<[f32; 3]>,
    index: u32,
}

impl rstar::RTreeObject for Entry {
    type Envelope = rstar::AABB<[f32; 3]>;
    fn envelope(&self) -> Self::Envelope {
        self.envelope
    }
}

/// rstar's R-tree bulk-loaded (OMT packing) every frame, then joined with itself
/// (`intersection_candidates_with_other_tree`), which yields each pair in both orders and every box with itself;
/// `a < b` keeps each pair once. rstar's envelope test is closed (`lower <= upper`), like ours.
#[derive(Default)]
pub struct RstarJoin {
    entries: Vec<Entry>,
}

impl Contender for RstarJoin {
    fn name(&self) -> String {
        "rstar-join".into()
    }

    fn find(&mut self, aabbs: &[Aabb], _: u64, out: &mut Vec<Pair>) {
        self.entries.clear();
        self.entries.extend(aabbs.iter().enumerate().map(|(i, b)| Entry {
            envelope: rstar::AABB::from_corners(b.min.to_array(), b.max.to_array()),
            index: i as u32,
        }));
        let tree = rstar::RTree::bulk_load(std::mem::take(&mut self.entries));
        out.clear();
        for (a, b) in tree.intersection_candidates_with_other_tree(&tree) {
            if a.index < b.index {
                out.push(Pair { a: a.index, b: b.index });
            }
        }
        // Keep the entry buffer's allocation for the next frame.
        self.entries = tree.iter().copied().collect();
    }
}

/// The peers' names, in the order [`peers`] gives them.
pub const PEERS: [&str; 3] = ["parry-bvh-rebuild", "parry-bvh-refit", "rstar-join"];

/// A fresh instance of every peer.
#[must_use]
pub fn peers() -> Vec<Box<dyn Contender>> {
    vec![Box::<ParryRebuild>::default(), Box::<ParryRefit>::default(), Box::<RstarJoin>::default()]
}

/// Every contender's name: ours from the registry, then the peers.
#[must_use]
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = ALGORITHMS.iter().map(|a| a.name.to_owned()).collect();
    v.extend(PEERS.map(String::from));
    v
}

/// `true` when `name` is a peer (drawn dashed).
#[must_use]
pub fn is_peer(name: &str) -> bool {
    PEERS.contains(&name)
}

#[cfg(test)]
mod tests;
