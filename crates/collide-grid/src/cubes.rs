//! A finer level's bodies cut on x too, for the coarse bodies' scans: **cubes**.
//!
//! A level's columns run the whole world along x (`plan.rs`), so a coarse body that scans them (`search.rs`)
//! compares every record of each column it covers, however far along x: at `power-law`'s 10⁵ bodies about ten
//! records were compared per pair found, and the scans were two thirds of the frame. The cubes are a second
//! index of a finer level's bodies, built beside its partitions from the same entries of the body pass: cells
//! cut on y and z at the level's cells shifted by [`CUBE_SHIFT`] and on x by as wide a cell, laid out densely —
//! no torus — x fastest, so that the cubes of one column along a stretch of x are one range of records. A coarse
//! body then reads, per column of cubes it covers, the records of the x cells it can reach: about as many
//! records as its box holds, not as many as the world's length does. The planner cuts a level only where its
//! model rates the cubes cheaper than the columns, build included (`planner.rs`).
//!
//! **What is met, exactly once.** A finer body is stored in the cube of its min corner. A coarse box `X`
//! overlaps it only when its min corner's cell is, on y and z, from one cell before `X`'s min corner's to `X`'s
//! max corner's at the finer level (the body is small there: `search.rs`) — the cubes of those cells — and,
//! along x, from `x_reach` cells before `X.lo`'s to `X.hi`'s: the most x cells any body of the level spans,
//! counted by the same cell function, so no rounding can drop a body. Each cube is read once per scanning body,
//! and each body is in one cube.
//!
//! **Pairs without a test.** A cube strictly inside `X`'s cells on all three axes — its x cell between those of
//! `X.lo` and `X.hi`, exclusive, and so on y and z — holds only min corners strictly inside `X` (the cell
//! functions are monotone), so every body there overlaps `X`: its pairs are written without reading the boxes.
//! A cube strictly inside `X` on y and z only holds bodies that overlap it there: they are tested along x alone.
//! The others are tested whole. Either way four at a time, from blocks of four records bound by bound
//! ([`Quad`]).
//!
//! **When not.** Cubes are dense over the level's bodies' cells: a level whose cubes would outnumber
//! [`CUBES_PER_BODY`] per body (far outliers, a sparse world) is not cut, and is scanned by its columns.
//!
//! **Cost.** Build O(n_l + cubes): the level's entries read twice (counts, copy; the bounds come with the body
//! pass). A coarse body's
//! read: O(columns of cubes covered + records within reach). Memory, kept across frames: per body of the level
//! 28 B (six bounds and the body) and 4 B of cube, 4 B per cube.

use crate::bodies::Corners;
use crate::part::{Entry, Part};
use crate::plan::{Cells, Plan};
use collide_broadphase::sweep::SweepBox;
use glam::{IVec4, Vec4};

/// Cubes are `2^CUBE_SHIFT` of their level's cells wide on y and z, and as wide along x. One: at 10⁵
/// `power-law` bodies, cubes of the level's own cells read three times the columns for a sixth fewer tests and
/// ran 41 ms a frame on one thread, cubes of two cells 37 ms, of four cells (twice the tests) 43 ms.
pub const CUBE_SHIFT: u32 = 1;

/// A level is cut into cubes only when they are at most this many per body (plus a few): beyond, its bodies'
/// cells are spread far apart (a sparse world, far outliers), and the cubes' offsets would cost more than the
/// scans save; such a level is scanned by its columns.
pub const CUBES_PER_BODY: usize = 4;

/// One level's cubes: its records by cube, kept across frames.
#[derive(Clone, Debug, Default)]
pub struct Cubes {
    /// Cut this frame: the coarser bodies read these cubes instead of the level's columns.
    pub built: bool,
    /// The level cut.
    pub level: usize,
    /// The level-0 cells on y and z shifted right by this are the cubes' (the level's plus [`CUBE_SHIFT`]).
    shift: u32,
    /// The cell function along x: the cubes' edge on y, from the lowest `min.x` (both lanes of each pair).
    x_cells: Cells,
    /// The lowest cube's cells `[y, z, x]`, and the cubes per axis.
    low: [i32; 3],
    dims: [usize; 3],
    /// The most x cells a record spans: `cell(max.x) − cell(min.x)`, at most.
    x_reach: i32,
    /// The records cube by cube (x fastest, then z, then y), four to a [`Quad`]: record `i` is lane `i % 4` of
    /// quad `i / 4`; the lanes past the last record are an empty box of body 0.
    pub quads: Vec<Quad>,
    /// Cube `c` is records `offsets[c]..offsets[c + 1]`.
    pub offsets: Vec<u32>,
    /// Each record's cube, between the count and the copy.
    cube_of: Vec<u32>,
}

/// Four consecutive records of the cubes, bound by bound — `min.x`, `min.y`, `min.z`, `−max.x`, `−max.y`,
/// `−max.z`, negated so that every test of a box against another reads "this bound ≤ that one" — and their
/// bodies: 112 bytes that a scan reads through one pointer.
///
/// **Why four to a block, not an array per bound:** the scan of a run of records (`search.rs`) walked seven
/// arrays, and with seven pointers, the output's and its counters live it spilled the pointers to the stack and
/// loaded them again on every block of four. A run starting inside a quad reads its first lanes in vain (about
/// one and a half a run): cheaper than the reloads.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(16))]
pub struct Quad {
    /// Bound `a` of lane `k` is `bounds[a][k]`.
    pub bounds: [[f32; 4]; 6],
    /// Lane `k`'s body.
    pub ids: [u32; 4],
}

impl Quad {
    /// Four empty boxes (`+∞` bounds, overlapping nothing) of body 0.
    pub const EMPTY: Quad = Quad { bounds: [[f32::INFINITY; 4]; 6], ids: [0; 4] };
}

/// The cubes a box reaches, relative to the lowest cube: `from..=to` per axis `[y, z, x]`, within the cubes;
/// `inside_from..=inside_to` the cubes whose bodies all overlap it (not clipped).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub from: [i32; 3],
    pub to: [i32; 3],
    pub inside_from: [i32; 3],
    pub inside_to: [i32; 3],
}

impl Cubes {
    /// The cells of record `r`'s min corner: `[y, z]` at the cubes' level (from `cells`, level 0's), and its
    /// x cells `[min.x, max.x]`.
    #[inline(always)]
    fn cells_of(&self, cells: &Cells, r: &SweepBox) -> ([i32; 2], [i32; 2]) {
        let min = r.min::<0>();
        let c = cells.of_box([min.y, min.z], [min.y, min.z]);
        let x = self.x_cells.of(Vec4::new(r.lo(), r.hi(), r.lo(), r.hi()));
        ([c.x >> self.shift, c.y >> self.shift], [x.x, x.y])
    }

    /// The cube of a record whose min corner's cells are `yz` and `x` (absolute): x fastest, then z, then y.
    #[inline(always)]
    fn index(&self, yz: [i32; 2], x: i32) -> usize {
        let [j, k, s] = [yz[0] - self.low[0], yz[1] - self.low[1], x - self.low[2]].map(|v| v as usize);
        (j * self.dims[1] + k) * self.dims[2] + s
    }

    /// Cut `level`'s `n` bodies — the entries the body pass wrote for its partitions, in `runs`, whose min
    /// corners' bounds it kept in `corners` — into cubes, or leave the level uncut (`built` false) when they would
    /// be more than [`CUBES_PER_BODY`] per body. O(n + cubes): the entries read twice (count, copy), each time run
    /// by run in a plain loop (through one flattened iterator, each step checked which run it was in: a third of
    /// the build at 10⁴ bodies). The bounds came with the body pass because a third pass over the entries for them
    /// was a third of this build, and the build of `power-law`'s finest level at 10⁴ bodies (150 µs) was most of
    /// the frame's build phase, behind which the other thread waited.
    pub fn build<'a>(
        &mut self,
        plan: &Plan,
        level: usize,
        n: usize,
        corners: Corners,
        runs: impl Iterator<Item = &'a [Entry]> + Clone,
    ) {
        self.built = false;
        self.level = level;
        if n == 0 {
            return;
        }
        self.shift = level as u32 + CUBE_SHIFT;
        // The bounds: the min corners' cells on y and z, `min.x` on x.
        let low = corners.low.map(|c| c >> self.shift);
        let high = corners.high.map(|c| c >> self.shift);
        let (x_low, x_high) = (corners.x_low, corners.x_high);
        let edge = plan.cells.edge[0] * f64::from(1u32 << self.shift.min(31));
        self.x_cells = Cells::new([edge; 2], [f64::from(x_low); 2]);
        let xs = self.x_cells.of(Vec4::new(x_low, x_high, x_low, x_high));
        let dims = [(high[0] - low[0]) as usize + 1, (high[1] - low[1]) as usize + 1, (xs.y - xs.x) as usize + 1];
        let cubes = dims[0].saturating_mul(dims[1]).saturating_mul(dims[2]);
        if cubes > CUBES_PER_BODY * n + 64 {
            return;
        }
        (self.low, self.dims) = ([low[0], low[1], xs.x], dims);
        // Each record's cube counted at `cube + 1`; the most x cells a record spans.
        let mut offsets = std::mem::take(&mut self.offsets);
        offsets.clear();
        offsets.resize(cubes + 1, 0);
        self.cube_of.clear();
        self.x_reach = 0;
        for run in runs.clone() {
            for r in run.iter().map(|e| &e.record) {
                let (yz, x) = self.cells_of(&plan.cells, r);
                self.x_reach = self.x_reach.max(x[1] - x[0]);
                let cube = self.index(yz, x[0]);
                offsets[cube + 1] += 1;
                self.cube_of.push(cube as u32);
            }
        }
        for c in 1..=cubes {
            offsets[c] += offsets[c - 1];
        }
        // The copy advances each cube's start to its end, the next cube's start: moved back by one after. The
        // last quad's lanes past the records stay empty.
        self.quads.resize(n.div_ceil(4), Quad::EMPTY);
        self.quads[n.div_ceil(4) - 1] = Quad::EMPTY;
        let mut cube_of = self.cube_of.as_slice();
        for run in runs {
            let here;
            (here, cube_of) = cube_of.split_at(run.len());
            for (r, &cube) in run.iter().map(|e| &e.record).zip(here) {
                let at = &mut offsets[cube as usize];
                let i = *at as usize;
                let (min, max) = (r.min::<0>(), r.max::<0>());
                let (q, k) = (&mut self.quads[i / 4], i % 4);
                for (a, v) in [min.x, min.y, min.z, -max.x, -max.y, -max.z].into_iter().enumerate() {
                    q.bounds[a][k] = v;
                }
                q.ids[k] = r.id();
                *at += 1;
            }
        }
        offsets.copy_within(0..cubes, 1);
        offsets[0] = 0;
        self.offsets = offsets;
        self.built = true;
    }

    /// The cubes a box reaches whose level-0 cells on y and z are `c` (`[min y, min z, max y, max z]`) and whose
    /// extent along x is `lo..=hi`: `None` when it reaches none.
    ///
    /// A record overlaps the box only if its min corner's cell on y is from one before the box's min corner's to
    /// its max corner's at the level (it is small there: `search.rs`), so its cube's from that cell's cube on;
    /// likewise on z; and on x only if its `max.x` reaches `lo`, so its `min.x`'s x cell is at most
    /// [`Cubes::x_reach`] before `lo`'s. A cube strictly between the cells of the box's corners on an axis holds
    /// min corners strictly inside the box there (the cell functions are monotone): on all three, every record
    /// of the cube overlaps the box.
    #[inline(always)]
    #[must_use]
    pub fn window(&self, c: IVec4, lo: f32, hi: f32) -> Option<Window> {
        let (l, h) = (self.level as u32, self.shift);
        let g = h - l;
        let x = self.x_cells.of(Vec4::new(lo, hi, lo, hi));
        let (low, dims) = (self.low, self.dims.map(|d| d as i32));
        let from = [(((c.x >> l) - 1) >> g) - low[0], (((c.y >> l) - 1) >> g) - low[1], x.x - self.x_reach - low[2]];
        let to = [(c.z >> h) - low[0], (c.w >> h) - low[1], x.y - low[2]];
        let from = from.map(|f| f.max(0));
        let to = [0, 1, 2].map(|a| to[a].min(dims[a] - 1));
        if (0..3).any(|a| from[a] > to[a]) {
            return None;
        }
        let inside_from = [(c.x >> h) - low[0] + 1, (c.y >> h) - low[1] + 1, x.x - low[2] + 1];
        let inside_to = [(c.z >> h) - low[0] - 1, (c.w >> h) - low[1] - 1, x.y - low[2] - 1];
        Some(Window { from, to, inside_from, inside_to })
    }

    /// The records of the cubes `s0..=s1` along x of column `(j, k)` (relative to the lowest cube): one range.
    #[inline(always)]
    #[must_use]
    pub fn run(&self, j: i32, k: i32, s0: i32, s1: i32) -> std::ops::Range<usize> {
        let column = (j as usize * self.dims[1] + k as usize) * self.dims[2];
        self.offsets[column + s0 as usize] as usize..self.offsets[column + s1 as usize + 1] as usize
    }

    /// Record `i`'s six bounds (as [`Quad`] keeps them) and body.
    #[must_use]
    pub fn record(&self, i: usize) -> ([f32; 6], u32) {
        let q = &self.quads[i / 4];
        (std::array::from_fn(|a| q.bounds[a][i % 4]), q.ids[i % 4])
    }

    /// Write record `i`'s six bounds and body (the tests make cubes that lie with it).
    #[cfg(test)]
    pub fn set_record(&mut self, i: usize, (bounds, id): ([f32; 6], u32)) {
        let q = &mut self.quads[i / 4];
        for (a, v) in bounds.into_iter().enumerate() {
            q.bounds[a][i % 4] = v;
        }
        q.ids[i % 4] = id;
    }

    /// Check the cubes against the level's records in `parts`: every record once, in the cube of its min corner,
    /// with its bounds and body; the offsets ascend to the count; the padding is an empty box; the reach along x
    /// covers every record.
    pub fn validate(&self, plan: &Plan, parts: &[Part]) -> Result<(), String> {
        let records: Vec<&SweepBox> = parts[plan.level_parts(self.level)].iter().flat_map(|p| &p.records).collect();
        let n = records.len();
        let cubes = self.dims.iter().product::<usize>();
        let offsets = &self.offsets;
        if offsets.len() != cubes + 1 || offsets[0] != 0 || offsets.windows(2).any(|w| w[0] > w[1]) {
            return Err(format!("{} offsets for {cubes} cubes, or not ascending from 0", offsets.len()));
        }
        if offsets[cubes] as usize != n || self.quads.len() != n.div_ceil(4) {
            return Err(format!("{} records and {} quads for the level's {n}", offsets[cubes], self.quads.len()));
        }
        let padding = (n..4 * self.quads.len()).map(|i| self.record(i));
        if padding.clone().any(|(bounds, id)| bounds != [f32::INFINITY; 6] || id != 0) {
            return Err("the last quad's lanes past the records are not an empty box of body 0".into());
        }
        let mut at = std::collections::HashMap::new();
        for c in 0..cubes {
            for i in offsets[c] as usize..offsets[c + 1] as usize {
                at.insert(self.record(i).1, (c, i));
            }
        }
        for r in records {
            let Some(&(c, i)) = at.get(&r.id()) else { return Err(format!("body {} is in no cube", r.id())) };
            let (yz, x) = self.cells_of(&plan.cells, r);
            let inside = (0..2).all(|a| (0..self.dims[a] as i32).contains(&(yz[a] - self.low[a])))
                && (0..self.dims[2] as i32).contains(&(x[0] - self.low[2]));
            if !inside || self.index(yz, x[0]) != c || x[1] - x[0] > self.x_reach {
                return Err(format!("body {} is in cube {c}, not its min corner's, or beyond the reach", r.id()));
            }
            let (min, max) = (r.min::<0>(), r.max::<0>());
            let want = [min.x, min.y, min.z, -max.x, -max.y, -max.z];
            if self.record(i).0 != want {
                return Err(format!("body {}'s bounds in its cube do not match its record", r.id()));
            }
        }
        if at.len() != n {
            return Err(format!("{} bodies in the cubes, {n} records at the level", at.len()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
