//! `validate()` of [`SweepAndPrune`]: every region's arrays sorted and holding exactly the bodies whose range
//! contains it, every pair of the set overlapping, and no overlapping pair missing. O(n·copies + p + sweeps);
//! for tests, not for frames.

use crate::endpoints::{body, first_unsorted, is_end, order};
use crate::incremental::SweepAndPrune;
use crate::regions::{NO_RANGE, contains};
use collide_broadphase::Pair;
use std::collections::HashSet;

pub(crate) fn validate(sap: &SweepAndPrune) -> Result<(), String> {
    let n = sap.len;
    let count = sap.grid.count();
    if sap.axes.len() != 3 * count || sap.regions.len() != count || sap.ranges.len() != n {
        return Err(format!(
            "{} arrays, {} regions and {} ranges for a grid of {count} regions and {n} bodies",
            sap.axes.len(),
            sap.regions.len(),
            sap.ranges.len()
        ));
    }
    // Per body and axis, the keys of its begin and end (read back from the arrays, equal in every region).
    let mut lo = vec![[u64::MAX; 3]; n];
    let mut hi = vec![[u64::MAX; 3]; n];
    // Per body, the number of (region, axis, kind) endpoints seen, and the region that saw it last per axis/kind.
    let mut seen = vec![0usize; n];
    let mut last = vec![[usize::MAX; 6]; n];
    for (i, axis) in sap.axes.iter().map(|a| &a.endpoints).enumerate() {
        let (r, k) = (i / 3, i % 3);
        let name = ["x", "y", "z"][k];
        let coords = sap.grid.coords(r);
        let members = &sap.regions[r].members;
        if axis.len() != 2 * members.len() {
            return Err(format!(
                "axis {name} of region {r} holds {} endpoints for {} members",
                axis.len(),
                members.len()
            ));
        }
        if let Some(p) = first_unsorted(axis) {
            return Err(format!("axis {name} of region {r} is not sorted at position {p}"));
        }
        for &e in axis {
            let local = body(e) as usize;
            let Some(&id) = members.get(local) else {
                return Err(format!("axis {name} of region {r} names member {local} of {}", members.len()));
            };
            let id = id as usize;
            if id >= n {
                return Err(format!("region {r} names body {id} of {n}"));
            }
            if !contains(&sap.ranges[id], coords) {
                return Err(format!("body {id} is in region {r} outside its range {:?}", sap.ranges[id]));
            }
            let slot = k + 3 * usize::from(is_end(e));
            if last[id][slot] == r {
                return Err(format!("body {id} has two {} endpoints on axis {name} of region {r}", kind(e)));
            }
            last[id][slot] = r;
            seen[id] += 1;
            let value = if is_end(e) { &mut hi[id][k] } else { &mut lo[id][k] };
            if *value != u64::MAX && *value != order(e) {
                return Err(format!("body {id} has different {} values on axis {name} in two regions", kind(e)));
            }
            *value = order(e);
        }
    }
    for (id, range) in sap.ranges.iter().enumerate() {
        let regions = if *range == NO_RANGE {
            0
        } else {
            (0..3).map(|k| usize::from(range[k + 3]) - usize::from(range[k]) + 1).product()
        };
        if seen[id] != 6 * regions {
            return Err(format!("body {id} has {} endpoints, expected 6 in each of its {regions} regions", seen[id]));
        }
    }
    let overlaps = |a: usize, b: usize| (0..3).all(|k| lo[a][k] <= hi[b][k] && lo[b][k] <= hi[a][k]);
    for key in sap.pairs.iter() {
        let p = Pair::from_key(key);
        if p.a >= p.b || p.b as usize >= n || seen[p.a as usize] == 0 || seen[p.b as usize] == 0 {
            return Err(format!("pair {p} names a body outside the structure"));
        }
        if !overlaps(p.a as usize, p.b as usize) {
            return Err(format!("pair {p} is in the set but the boxes do not overlap"));
        }
    }
    // Every overlapping pair is in the set: a sweep of each region's x axis. Two overlapping boxes share a region.
    let mut found = HashSet::new();
    let mut open: Vec<usize> = Vec::new();
    for (axis, region) in sap.axes.iter().step_by(3).zip(&sap.regions) {
        open.clear();
        for &e in &axis.endpoints {
            let id = region.members[body(e) as usize] as usize;
            if is_end(e) {
                open.retain(|&o| o != id);
                continue;
            }
            for &o in &open {
                if overlaps(id, o) {
                    let p = Pair::new(id as u32, o as u32);
                    if !sap.pairs.contains(p.key()) {
                        return Err(format!("pair {p} overlaps but is missing from the set"));
                    }
                    found.insert(p.key());
                }
            }
            open.push(id);
        }
    }
    if found.len() != sap.pairs.len() {
        return Err(format!("the set holds {} pairs, the sweeps find {}", sap.pairs.len(), found.len()));
    }
    Ok(())
}

fn kind(e: u64) -> &'static str {
    if is_end(e) { "end" } else { "begin" }
}
