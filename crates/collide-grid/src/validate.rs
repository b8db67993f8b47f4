//! The grid's invariants, checked from its own records (each record carries its box, so nothing here needs the
//! frame's boxes): the plan is well formed, every valid body is stored exactly once, in the bucket of its min
//! corner's cell at its level, and nothing else is; the buckets' offsets add up; every crowd is sorted by `min.x`
//! (then body) with its keys beside it; the extent arrays match the records.

use crate::part::{CROWD, LANES, Part};
use crate::plan::{MAX_TORUS_BITS, Plan, levels, natural_level};
use collide_broadphase::radix::float_key;
use collide_broadphase::sweep::SweepBox;
use std::collections::HashMap;

/// Check `plan` and this frame's `parts`, for a frame of `n` bodies of which `invalid` were left out; the message
/// names the first broken invariant.
pub fn validate(plan: &Plan, parts: &[Part], n: usize, invalid: usize) -> Result<(), String> {
    if plan.parts() == 0 {
        // Never planned (or reset): nothing may be stored.
        return match parts.iter().position(|p| !p.records.is_empty()) {
            Some(p) => Err(format!("no plan, but partition {p} holds entries")),
            None => Ok(()),
        };
    }
    check_plan(plan)?;
    if parts.len() != plan.parts() {
        return Err(format!("{} partitions for a plan of {}", parts.len(), plan.parts()));
    }
    let mut seen: HashMap<u32, u32> = HashMap::new();
    for (p, part) in parts.iter().enumerate() {
        check_part(plan, p, part, &mut seen).map_err(|e| format!("partition {p}: {e}"))?;
    }
    for (&id, &count) in &seen {
        if id as usize >= n {
            return Err(format!("body {id} of {n}"));
        }
        if count != 1 {
            return Err(format!("body {id} is stored {count} times"));
        }
    }
    if seen.len() + invalid != n {
        return Err(format!("{} bodies stored, {invalid} invalid, of {n}", seen.len()));
    }
    Ok(())
}

/// The plan: positive, finite cells; a map to present, not finer levels, never decreasing; each present level's
/// torus and partitions where the partitions say.
fn check_plan(plan: &Plan) -> Result<(), String> {
    if plan.cells.edge.iter().any(|e| !(*e > 0.0 && e.is_finite())) {
        return Err(format!("cell edge {:?}", plan.cells.edge));
    }
    for (l, &m) in plan.map.iter().enumerate() {
        if usize::from(m) < l || (l > 0 && m < plan.map[l - 1]) {
            return Err(format!("natural level {l} maps to level {m}"));
        }
    }
    for l in levels(plan.present) {
        let level = &plan.levels[l];
        if level.bits.iter().any(|&b| b > MAX_TORUS_BITS) || level.part_bits > level.bits[0] {
            return Err(format!("level {l}: torus {:?}, {} partition bits", level.bits, level.part_bits));
        }
        let first = level.first_part as usize;
        let own = plan.part_level.get(first..first + level.parts());
        if own.is_none_or(|own| own.iter().any(|&pl| usize::from(pl) != l)) {
            return Err(format!("level {l}: partitions {first}.. are not its own"));
        }
    }
    if plan.part_level.iter().any(|&l| plan.present >> l & 1 == 0) {
        return Err("a partition of a level that is not present".into());
    }
    Ok(())
}

/// One partition: its offsets frame its records, its extent arrays match them, each crowd is sorted by `min.x`
/// (then body) with its keys, each record is in the bucket of its cell at its level. Counts each body's entries
/// into `seen`.
fn check_part(plan: &Plan, p: usize, part: &Part, seen: &mut HashMap<u32, u32>) -> Result<(), String> {
    let level = usize::from(plan.part_level[p]);
    let lv = &plan.levels[level];
    let buckets = lv.part_buckets();
    let offsets = &part.offsets;
    if offsets.len() != buckets + 1 || offsets[0] != 0 {
        return Err(format!("{} offsets for {buckets} buckets", offsets.len()));
    }
    if offsets.windows(2).any(|w| w[0] > w[1]) || offsets[buckets] as usize != part.records.len() {
        return Err("offsets do not ascend to the entry count".into());
    }
    let n = part.records.len();
    if part.lo.len() != n + LANES - 1 || part.neg_hi.len() != n + LANES - 1 {
        return Err(format!("{} and {} extents for {n} records", part.lo.len(), part.neg_hi.len()));
    }
    let extents = part.records.iter().map(|r| (r.lo(), -r.hi())).chain([(f32::INFINITY, f32::INFINITY); LANES - 1]);
    if let Some(i) = extents.zip(part.lo.iter().zip(&part.neg_hi)).position(|(r, (&lo, &neg_hi))| r != (lo, neg_hi)) {
        return Err(format!("extent {i} does not match its record"));
    }
    for b in 0..buckets {
        let bucket = part.bucket(b);
        // A crowd (a bucket of more than CROWD records) is sorted by start, then body, its keys beside it; any other
        // bucket is in no particular order (body order, or by bins of x when the partition is mostly crowds).
        if bucket.len() > CROWD {
            let key = |r: &SweepBox| (r.lo() + 0.0, r.id());
            if bucket.windows(2).any(|w| key(&w[0]) >= key(&w[1])) {
                return Err(format!("crowd {b} of {} is not sorted by min.x, then body", bucket.len()));
            }
            let keys = &part.keys[part.range(b)];
            if bucket.iter().zip(keys).any(|(r, k)| *k != [float_key(r.lo()), float_key(r.hi())]) {
                return Err(format!("crowd {b}'s keys do not match its records"));
            }
        }
        for r in bucket {
            let (min, max) = (r.min::<0>(), r.max::<0>());
            let c = plan.cells.of_box([min.y, min.z], [max.y, max.z]);
            let home = usize::from(plan.map[natural_level(c)]);
            if home != level || lv.locate(c.x >> level, c.y >> level) != (p, b) {
                return Err(format!("body {} (level {home}) is in bucket {b} at level {level}", r.id()));
            }
            *seen.entry(r.id()).or_default() += 1;
        }
    }
    Ok(())
}
