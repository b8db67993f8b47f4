//! One slab's frame: its records' levels, then level by level its rows, and row by row its columns, each row
//! searched as soon as it is built, while its buckets are in the first-level cache.

use crate::build::{Keys, RowEntry, X_BINS, XBins, bucket_along};
use crate::plan::Plan;
use crate::search::{Counts, Row, search_row};
use crate::slab::{Layout, Slab, levels};
use collide_broadphase::Tally;
use collide_broadphase::sweep::PairSink;

/// Build and search slab `s` from its records (`slab.records`, filled by the caller); its pairs go to
/// `slab.pairs`. O(m) for m records plus a counter per bucket, and the sweeps' candidates.
pub fn slab_pass(slab: &mut Slab, s: usize, plan: &Plan) -> Tally {
    let Slab {
        records, levels: level_of, spans, layout, offsets, cells, rows, query_rows, counts, pairs, sink, ..
    } = slab;
    let (mut copies, bins) = (0, XBins::of(records));
    // Each record's level and the levels present (hierarchical grid; all at level 0 in the uniform one).
    let mut present = u64::from(!records.is_empty());
    level_of.clear();
    if plan.levels.len() > 1 {
        present = 0;
        level_of.extend(records.iter().map(|r| {
            let l = plan.level_of_record(r);
            present |= 1 << l;
            l as u8
        }));
    }
    *layout = Layout::new(present, plan);
    cells.clear();
    offsets.clear();
    offsets.push(0);
    pairs.clear();
    let mut sink = PairSink::new(pairs, sink);
    let mut search = Counts::default();
    let start = plan.slab_start(s);
    for l in levels(present) {
        let level = &plan.levels[l];
        let queried = layout.kinds(l) == 2;
        // The level's members, and the finer records meeting them here, into rows; each record's cells computed
        // once.
        spans.clear();
        spans.extend(records.iter().map(|r| level.axis_spans(r)));
        let uniform = level_of.is_empty();
        let item = |j: usize| RowEntry { record: records[j], z: spans[j][1] };
        // Rows by row and bin of x: the columns' sort, stable, then leaves every bucket nearly sorted by `min.x`.
        let rows_keys = Keys { keys: level.torus()[0] * X_BINS, stride: X_BINS };
        let place = |j: usize, take: bool| {
            let y = spans[j][0];
            take.then_some((y.first as usize * X_BINS + bins.bin(records[j].lo()), y.count()))
        };
        let member = |j: usize| place(j, uniform || usize::from(level_of[j]) == l);
        copies += bucket_along(records.len(), member, item, rows_keys, clear(&mut rows.entries), &mut rows.offsets);
        if queried {
            let finer = |j: usize| place(j, usize::from(level_of[j]) < l);
            let queries = clear(&mut query_rows.entries);
            copies += bucket_along(records.len(), finer, item, rows_keys, queries, &mut query_rows.offsets);
        }
        // Row by row: the row's columns (member buckets, then query buckets), searched at once.
        let columns = level.torus()[1];
        let column_keys = Keys { keys: columns, stride: 1 };
        for j in 0..level.torus()[0] {
            let first = offsets.len() - 1;
            let sources = [&*rows, &*query_rows];
            for source in &sources[..layout.kinds(l)] {
                let (row, base) = (source.row(j), cells.len() as u32);
                let place = |i: usize| Some((row[i].z.first as usize, row[i].z.count()));
                copies += bucket_along(row.len(), place, |i| row[i].record, column_keys, cells, counts);
                offsets.extend(counts[1..].iter().map(|&end| base + end));
            }
            let row = Row { level, index: j, offsets: &offsets[first..], queried, start };
            search_row(&row, cells, &mut sink, &mut search);
        }
    }
    drop(sink);
    debug_assert_eq!(offsets.len(), layout.buckets as usize + 1, "every bucket built");
    (slab.occupied, slab.max_occupancy, slab.queries) = (search.occupied, search.max_occupancy, search.queries);
    // Per record its level; per copy into a row or a bucket its cells computed twice (count, copy) and a record
    // read and written, counted as 28 B both ways (a row entry is 32 B with its cells along z: the tally rounds
    // it down, as every algorithm counts the record it moves); per bucket entry 28 B read by its test or sweep (twice more if sorted); per bucket a
    // counter; per pair 8 B.
    let (m, e, b, p) =
        (slab.records.len() as u64, slab.cells.len() as u64, u64::from(layout.buckets), slab.pairs.len() as u64);
    Tally {
        pair_tests: search.tests,
        work: m + copies + e + search.sorted + b,
        bytes_touched: copies * 2 * 28 + (e + 2 * search.sorted) * 28 + b * 4 + p * 8,
    }
}

/// `v`, emptied.
fn clear<T>(v: &mut Vec<T>) -> &mut Vec<T> {
    v.clear();
    v
}
