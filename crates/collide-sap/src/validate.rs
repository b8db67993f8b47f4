//! `validate()` of `SweepAndPrune`: every region's arrays sorted and holding exactly the bodies whose range
//! contains it, every pair of the set overlapping, and no overlapping pair missing. O(n·copies + p + sweeps);
//! for tests, not for frames. It reads the structure's parts, not the type that holds them, so that it sits
//! below the public type.

use crate::endpoints::{body, first_unsorted, is_end, order};
use crate::pairset::PairSet;
use crate::region::Region;
use collide_broadphase::Pair;
use collide_broadphase::region_grid::{RegionGrid, RegionRange, range_contains, range_len};
use std::collections::HashSet;

/// Per body and axis, the keys of its begin and end read back from the arrays (equal in every region), with the
/// count of endpoints seen.
struct Seen {
    lo: Vec<[u64; 3]>,
    hi: Vec<[u64; 3]>,
    count: Vec<usize>,
}

impl Seen {
    fn overlaps(&self, a: usize, b: usize) -> bool {
        (0..3).all(|k| self.lo[a][k] <= self.hi[b][k] && self.lo[b][k] <= self.hi[a][k])
    }
}

/// Check the regions of a SAP structure of `len` bodies on `grid`, with the bodies' `ranges` and the pair set
/// `pairs`; the message names the first invariant broken.
pub(crate) fn validate(
    grid: &RegionGrid,
    regions: &[Region],
    ranges: &[RegionRange],
    pairs: &PairSet,
    len: usize,
) -> Result<(), String> {
    let count = grid.count();
    if regions.is_empty() && ranges.is_empty() && len == 0 {
        return Ok(()); // never run: nothing built yet
    }
    if regions.len() != count || ranges.len() != len {
        return Err(format!(
            "{} regions and {} ranges for a grid of {count} regions and {len} bodies",
            regions.len(),
            ranges.len()
        ));
    }
    let seen = read_arrays(grid, regions, ranges, len)?;
    for (id, range) in ranges.iter().enumerate() {
        let expected = 6 * range_len(range);
        if seen.count[id] != expected {
            return Err(format!("body {id} has {} endpoints, expected 6 in each of its regions", seen.count[id]));
        }
    }
    check_pairs(regions, pairs, &seen, len)
}

/// Every array sorted, holding two endpoints per member, each member a body whose range contains the region,
/// one begin and one end per body and axis, with the same values in every region.
fn read_arrays(grid: &RegionGrid, regions: &[Region], ranges: &[RegionRange], n: usize) -> Result<Seen, String> {
    // Per body and axis, the keys of its begin and end (read back from the arrays, equal in every region).
    let mut lo = vec![[u64::MAX; 3]; n];
    let mut hi = vec![[u64::MAX; 3]; n];
    // Per body, the number of (region, axis, kind) endpoints seen, and the region that saw it last per axis/kind.
    let mut seen = vec![0usize; n];
    let mut last = vec![[usize::MAX; 6]; n];
    let axes = regions.iter().enumerate().flat_map(|(r, region)| (0..3).map(move |k| (r, k, region)));
    for (r, k, region) in axes {
        let axis = &region.axes[k].endpoints;
        let name = ["x", "y", "z"][k];
        let coords = grid.coords(r);
        let members = &region.members;
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
            if !range_contains(&ranges[id], coords) {
                return Err(format!("body {id} is in region {r} outside its range {:?}", ranges[id]));
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
    Ok(Seen { lo, hi, count: seen })
}

/// Every pair of the set overlapping (on the values read back), and no overlapping pair missing: a sweep of each
/// region's x axis, since two overlapping boxes share a region.
fn check_pairs(regions: &[Region], pairs: &PairSet, seen: &Seen, n: usize) -> Result<(), String> {
    for key in pairs.iter() {
        let p = Pair::from_key(key);
        if p.a >= p.b || p.b as usize >= n || seen.count[p.a as usize] == 0 || seen.count[p.b as usize] == 0 {
            return Err(format!("pair {p} names a body outside the structure"));
        }
        if !seen.overlaps(p.a as usize, p.b as usize) {
            return Err(format!("pair {p} is in the set but the boxes do not overlap"));
        }
    }
    // Every overlapping pair is in the set: a sweep of each region's x axis. Two overlapping boxes share a region.
    let mut found = HashSet::new();
    let mut open: Vec<usize> = Vec::new();
    for region in regions {
        open.clear();
        for &e in &region.axes[0].endpoints {
            let id = region.members[body(e) as usize] as usize;
            if is_end(e) {
                open.retain(|&o| o != id);
                continue;
            }
            for &o in &open {
                if seen.overlaps(id, o) {
                    let p = Pair::new(id as u32, o as u32);
                    if !pairs.contains(p.key()) {
                        return Err(format!("pair {p} overlaps but is missing from the set"));
                    }
                    found.insert(p.key());
                }
            }
            open.push(id);
        }
    }
    if found.len() != pairs.len() {
        return Err(format!("the set holds {} pairs, the sweeps find {}", pairs.len(), found.len()));
    }
    Ok(())
}

fn kind(e: u64) -> &'static str {
    if is_end(e) { "end" } else { "begin" }
}
