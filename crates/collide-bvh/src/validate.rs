//! The dynamic tree's invariants, checked after every call by the tests.

use crate::bodies::{Proxy, Stage};
use crate::cache::PairCache;
use crate::tree::Tree;
use collide_broadphase::Pair;
use collide_math::Aabb;

/// What `validate` reads of a [`DynamicBvh`](crate::DynamicBvh).
pub(crate) struct Parts<'a> {
    pub trees: &'a [Tree; 2],
    pub proxies: &'a [Proxy],
    pub pairs: &'a PairCache,
    #[cfg(debug_assertions)]
    pub last_boxes: &'a [Aabb],
}

/// Check:
/// - each tree's own invariants (links, heights, exact unions, no leaked node: [`Tree::check`]);
/// - every leaf names a body whose proxy names that leaf in that tree, and holds the proxy's fat box; the bodies
///   in no tree have the empty fat box (so every placed body is in exactly one leaf);
/// - the fat-box rule (debug builds, where the last call's boxes are kept): every usable box of the last call
///   lies in its body's fat box, and every unusable one is in no tree;
/// - the pair cache: each pair once, smaller index first, and exactly the pairs of bodies whose fat boxes
///   overlap (recomputed by querying the trees with every fat box).
pub(crate) fn validate(p: &Parts<'_>) -> Result<(), String> {
    let mut placed = 0;
    for (s, tree) in p.trees.iter().enumerate() {
        let stage = if s == 0 { Stage::Dynamic } else { Stage::Static };
        tree.check(|leaf, node| {
            let body = node.body() as usize;
            let proxy = p.proxies.get(body).ok_or(format!("{stage:?} leaf {leaf} names body {body}, out of range"))?;
            if proxy.place() != Some((stage, leaf)) {
                return Err(format!("{stage:?} leaf {leaf} holds body {body}, whose proxy says {:?}", proxy.place()));
            }
            if node.aabb != proxy.fat {
                return Err(format!(
                    "{stage:?} leaf {leaf} of body {body} has box {:?}, fat box {:?}",
                    node.aabb, proxy.fat
                ));
            }
            Ok(())
        })
        .map_err(|e| format!("{stage:?} tree: {e}"))?;
        placed += tree.leaves as usize;
    }
    let placeless = p.proxies.iter().filter(|x| x.place().is_none()).count();
    if placed + placeless != p.proxies.len() {
        return Err(format!("{placed} leaves and {placeless} bodies in no tree, for {} bodies", p.proxies.len()));
    }
    if let Some(i) = p.proxies.iter().position(|x| x.place().is_none() && x.fat != Aabb::EMPTY) {
        return Err(format!("body {i} is in no tree but has fat box {:?}", p.proxies[i].fat));
    }
    #[cfg(debug_assertions)]
    for (i, b) in p.last_boxes.iter().enumerate().take(p.proxies.len()) {
        let proxy = &p.proxies[i];
        match (crate::bounds::is_usable(b), proxy.place()) {
            (true, Some(_)) if !proxy.fat.contains(b) => {
                return Err(format!("body {i}'s box {b:?} is outside its fat box {:?}", proxy.fat));
            }
            (true, None) => return Err(format!("body {i} has a usable box {b:?} but is in no tree")),
            (false, Some(place)) => return Err(format!("body {i} has an unusable box {b:?} but is at {place:?}")),
            _ => {}
        }
    }
    check_cache(p)
}

/// The cache against the pairs of overlapping fat boxes, found by querying both trees with each fat box.
fn check_cache(p: &Parts<'_>) -> Result<(), String> {
    let mut cached: Vec<Pair> = p.pairs.iter().copied().collect();
    if let Some(bad) = cached.iter().find(|x| x.a >= x.b || x.b as usize >= p.proxies.len()) {
        return Err(format!("cached pair {bad} is misordered or out of range"));
    }
    cached.sort_unstable();
    if let Some(w) = cached.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("pair {} is cached twice", w[0]));
    }
    let mut want = Vec::new();
    let mut stack = Vec::new();
    for (i, proxy) in p.proxies.iter().enumerate() {
        if proxy.place().is_none() {
            continue;
        }
        for tree in p.trees {
            tree.query(&proxy.fat, &mut stack, |j| {
                if j as usize > i {
                    want.push(Pair::new(i as u32, j));
                }
            });
        }
    }
    want.sort_unstable();
    if cached != want {
        let missing = want.iter().find(|x| cached.binary_search(x).is_err());
        let extra = cached.iter().find(|x| want.binary_search(x).is_err());
        return Err(format!(
            "the cache holds {} pairs, the fat boxes overlap in {}: e.g. missing {missing:?}, extra {extra:?}",
            cached.len(),
            want.len()
        ));
    }
    Ok(())
}
