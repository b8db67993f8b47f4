//! The grid's invariants, checked from its own records (each record carries its box, so nothing here needs the
//! frame's boxes): the plan is well formed, every slab holds exactly the boxes that reach into it, and every box
//! is in exactly the buckets it belongs to, each bucket as built (by bin of x, then in the records' order) or
//! (once swept) in x order.

use crate::build::XBins;
use crate::plan::Plan;
use crate::slab::{Kind, Layout, Slab, levels};
use collide_broadphase::sweep::SweepBox;
use std::collections::HashMap;

/// Check `plan` and this frame's `slabs`; the message names the first broken invariant.
pub fn validate(plan: &Plan, slabs: &[Slab]) -> Result<(), String> {
    if plan.levels.is_empty() {
        // Never planned (or reset): nothing may be stored.
        return match slabs.iter().position(|s| !s.cells.is_empty()) {
            Some(s) => Err(format!("no plan, but slab {s} holds entries")),
            None => Ok(()),
        };
    }
    check_plan(plan)?;
    // Every box is copied to each slab from its start's to its end's, and to no other.
    let mut slabs_of: HashMap<u32, Copies> = HashMap::new();
    for (s, slab) in slabs.iter().enumerate() {
        check_slab(plan, s, slab).map_err(|e| format!("slab {s}: {e}"))?;
        for r in &slab.records {
            let seen = slabs_of.entry(r.id()).or_insert(Copies { first: s, count: 0, record: *r });
            seen.count += 1;
            if seen.first + seen.count - 1 != s {
                return Err(format!("body {} is in slab {s} twice, or not in the slab before it", r.id()));
            }
        }
    }
    for (id, c) in slabs_of {
        let (a, b) = (plan.slab_of(c.record.lo()), plan.slab_of(c.record.hi()));
        if (c.first, c.first + c.count - 1) != (a, b) {
            return Err(format!(
                "body {id} is in slabs {}..{} but reaches slabs {a}..={b}",
                c.first,
                c.first + c.count
            ));
        }
    }
    Ok(())
}

/// Where a body's records were seen: from slab `first`, in `count` slabs in a row.
struct Copies {
    first: usize,
    count: usize,
    record: SweepBox,
}

/// The plan: levels with positive, finite, doubling cells; slab boundaries finite and strictly ascending.
fn check_plan(plan: &Plan) -> Result<(), String> {
    if let Some(l) = plan.levels.iter().position(|l| !(l.cell > 0.0 && l.cell.is_finite())) {
        return Err(format!("level {l} has cell size {}", plan.levels[l].cell));
    }
    if let Some(l) = plan.levels.windows(2).position(|w| w[1].cell != 2.0 * w[0].cell) {
        return Err(format!("level {} is not twice level {l}", l + 1));
    }
    if plan.level_extent.is_nan() || plan.level_extent <= 0.0 {
        return Err(format!("level extent {}", plan.level_extent));
    }
    if let Some(k) = plan.slab_bounds.windows(2).position(|w| w[0] >= w[1]) {
        return Err(format!("slab boundaries {k} and {} do not ascend", k + 1));
    }
    if plan.slab_bounds.iter().any(|b| !b.is_finite()) {
        return Err("a slab boundary is not finite".into());
    }
    Ok(())
}

/// One slab: its layout matches its entries' levels, its offsets frame its entries, and every entry is exactly
/// once in each bucket it belongs to (and in no other), each bucket sorted by `min.x`.
fn check_slab(plan: &Plan, s: usize, slab: &Slab) -> Result<(), String> {
    let (start, end) = (plan.slab_start(s), plan.slab_end(s));
    let mut present = 0u64;
    for r in &slab.records {
        if r.lo() >= end || r.hi() < start {
            return Err(format!("body {} spans x {}..{}, outside the slab {start}..{end}", r.id(), r.lo(), r.hi()));
        }
        present |= 1 << plan.level_of_record(r);
    }
    let layout = slab.layout;
    if layout != Layout::new(if slab.records.is_empty() { 0 } else { present }, plan) {
        return Err(format!("layout {layout:?} does not match the levels present ({present:#b})"));
    }
    let buckets = layout.buckets as usize;
    if slab.records.is_empty() && slab.cells.is_empty() {
        return Ok(());
    }
    if slab.offsets.len() != buckets + 1 || slab.offsets[0] != 0 {
        return Err(format!("{} offsets for {buckets} buckets", slab.offsets.len()));
    }
    if slab.offsets.windows(2).any(|w| w[0] > w[1]) || slab.offsets[buckets] as usize != slab.cells.len() {
        return Err("offsets do not ascend to the entry count".into());
    }
    // Each entry's expected buckets, counted; then each bucket's records checked against them.
    let mut expected: HashMap<(u32, usize), u32> = HashMap::new();
    for r in &slab.records {
        layout.for_each_bucket(plan, r, plan.level_of_record(r), |b| *expected.entry((r.id(), b)).or_default() += 1);
    }
    let bins = XBins::of(&slab.records);
    for b in 0..buckets {
        let bucket = slab.bucket(b);
        // As built (by bin of x, then in the records' order: ids ascending) or as searched (a large bucket sorted
        // by min.x).
        let key = |r: &SweepBox| (bins.bin(r.lo()), r.id());
        let built = bucket.windows(2).all(|w| key(&w[0]) < key(&w[1]));
        let swept = bucket.windows(2).all(|w| w[0].lo() <= w[1].lo());
        if !built && !swept {
            return Err(format!(
                "bucket {b} ({}) is in neither the records' order nor x order",
                name(plan, &layout, b)
            ));
        }
        for r in bucket {
            match expected.get_mut(&(r.id(), b)) {
                Some(k) if *k > 0 => *k -= 1,
                _ => {
                    let id = r.id();
                    return Err(format!("body {id} is in bucket {b} ({}) once too often", name(plan, &layout, b)));
                }
            }
        }
    }
    match expected.into_iter().find(|&(_, k)| k > 0) {
        Some(((id, b), _)) => Err(format!("body {id} is missing from bucket {b} ({})", name(plan, &layout, b))),
        None => Ok(()),
    }
}

/// A bucket by level, kind and column, for messages.
fn name(plan: &Plan, layout: &Layout, b: usize) -> String {
    for l in levels(layout.present) {
        for c in 0..plan.levels[l].columns() {
            for kind in [Kind::Members, Kind::Queries].into_iter().take(layout.kinds(l)) {
                if layout.bucket(plan, l, kind, c) == b {
                    return format!("level {l} {kind:?}, column {c}");
                }
            }
        }
    }
    "no such bucket".into()
}
