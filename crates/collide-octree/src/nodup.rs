//! Octree without duplicates: a body that straddles a split plane stays in the node.
//!
//! Every body is stored once. A body kept in node N lies inside N's half-open cell; a body in N's lower child on
//! an axis has `max < c` there and one in the upper child has `min >= c`, so bodies in disjoint subtrees never
//! overlap. The pairs are therefore: each node's own bodies among themselves, and each node's own bodies
//! against the bodies of its subtree. The pair search pairs each inner node's straddlers, slab by slab, with
//! the layer of its subtree near the slab's plane (see [`self_pairs`]); the moving bodies walk the static tree
//! ([`crate::batch`]) by the same [`child_mask`](crate::tree::child_mask).

use crate::straddlers::{
    SLABS_MIN, Slabs, StripCut, bucket_starts, layer, slab_pairs, sort_recs, split, sweep_items, widest,
};
use crate::tree::{Item, NONE, Node, STACK};
use collide_broadphase::Pair;
use collide_broadphase::radix::float_key;
use collide_math::Vec3;

/// The pair search's scratch for one task chunk, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    parts: Parts,
    /// The [`Sink`]'s buffer: kept here, it is not zeroed on every sweep.
    pairs: SinkBuf,
}

/// The scratch of [`node_pairs`].
#[derive(Debug, Default)]
pub(crate) struct Parts {
    /// The node's own bodies split into slabs ([`split`]).
    slabs_buf: Vec<Item>,
    /// Per slab, the subtree's bodies inside the slab's layer.
    layers: [Vec<Item>; 3],
    /// Strips of the two sides of a slab–layer pairing ([`cross_strips`]).
    cross: Cross,
    slabs: Slabs,
}

/// The pair search's tasks: one per node.
pub(crate) fn tasks(nodes: &[Node]) -> usize {
    nodes.len()
}

/// Pairs of the nodes `range`; returns the box tests made.
///
/// Node N's pairs are its own bodies among themselves and its own bodies against its strict subtree. Every own
/// body of an inner node straddles one of the node's three planes; [`split`] sorts them into three **slabs** by
/// the first plane each straddles. A body of the x slab (widest x extent `w`) lies inside the **layer**
/// `c.x ± w`, so only subtree bodies meeting that layer can overlap it: one walk down the subtree, pruned to the
/// cells that meet a layer, gathers each layer's bodies, and each slab is swept against its layer in the plane
/// ([`cross_strips`]: sorted along one in-plane axis, cut into strips across the other). A pair is found
/// exactly once: at the node of its higher body, in the one slab that body belongs to.
///
/// This replaced carrying every ancestor's slabs down the tree as active lists ("runs"), which copied each
/// straddler into every descendant cell it touched and made one small sort-and-sweep per node and run: at the
/// dense cluster those copies and sweeps were half of the search.
pub(crate) fn self_pairs(
    nodes: &[Node],
    items: &[Item],
    range: std::ops::Range<usize>,
    out: &mut Vec<Pair>,
    scratch: &mut Scratch,
) -> u64 {
    let Scratch { parts, pairs } = scratch;
    let mut out = Sink::new(out, &mut pairs.0);
    let mut tests = 0;
    for ni in range {
        let node = &nodes[ni];
        let own = &items[node.start as usize..node.end as usize];
        if node.is_leaf() {
            tests += leaf_pairs(own, &mut parts.slabs, &mut out);
        } else if !own.is_empty() {
            tests += node_pairs(nodes, items, node, own, parts, &mut out);
        }
    }
    out.flush();
    tests
}

/// Pairs of the inner node `node` (own bodies `own`): among themselves, and each slab against its layer of the
/// subtree.
fn node_pairs(nodes: &[Node], items: &[Item], node: &Node, own: &[Item], sc: &mut Parts, out: &mut Sink<'_>) -> u64 {
    let Parts { slabs_buf, layers, cross, slabs } = sc;
    slabs_buf.clear();
    let b = split(own, node.c, slabs_buf);
    let (sx, sy, sz) = (&slabs_buf[b[0]..b[1]], &slabs_buf[b[1]..b[2]], &slabs_buf[b[2]..b[3]]);
    let mut tests = if own.len() < SLABS_MIN {
        sweep_items::<0>(own, slabs, out)
    } else {
        slab_pairs(sx, sy, sz, node.c, slabs, out)
    };

    // The layers: `c ± w` across each plane with a non-empty slab (empty: `lo > hi`, nothing meets it).
    let mut lo = Vec3::INFINITY;
    let mut hi = Vec3::NEG_INFINITY;
    for (axis, slab) in [sx, sy, sz].into_iter().enumerate() {
        if !slab.is_empty() {
            (lo[axis], hi[axis]) = layer(node.c[axis], widest(slab, axis));
        }
    }
    for l in layers.iter_mut() {
        l.clear();
    }
    gather(nodes, items, node, lo, hi, layers);
    let [lx, ly, lz] = layers;
    // Each slab is swept on the axis `split` sorted it on, in strips across its third axis.
    if !sx.is_empty() && !lx.is_empty() {
        tests += cross_strips::<1, 2>(sx, lx, cross, out);
    }
    if !sy.is_empty() && !ly.is_empty() {
        tests += cross_strips::<0, 2>(sy, ly, cross, out);
    }
    if !sz.is_empty() && !lz.is_empty() {
        tests += cross_strips::<0, 1>(sz, lz, cross, out);
    }
    tests
}

/// Into `layers[axis]`, the bodies of `node`'s strict subtree whose boxes meet the layer `lo[axis]..=hi[axis]`
/// on that axis; cells that meet no layer are skipped.
fn gather(nodes: &[Node], items: &[Item], node: &Node, lo: Vec3, hi: Vec3, layers: &mut [Vec<Item>; 3]) {
    let mut stack = [0u32; STACK];
    let mut sp = 0;
    for k in 0..8 {
        stack[sp] = node.first_child + k;
        sp += 1;
    }
    while sp > 0 {
        sp -= 1;
        let d = &nodes[stack[sp] as usize];
        // The cell's closed hull `lo_t..=hi_t` holds every body stored below it.
        let meets = d.hi_t.cmpge(lo) & d.lo_t.cmple(hi);
        if !meets.any() {
            continue;
        }
        for it in &items[d.start as usize..d.end as usize] {
            let m = (it.aabb.max.cmpge(lo) & it.aabb.min.cmple(hi)).bitmask();
            if m != 0 {
                for (axis, layer) in layers.iter_mut().enumerate() {
                    if m >> axis & 1 != 0 {
                        layer.push(*it);
                    }
                }
            }
        }
        if d.first_child != NONE {
            for k in 0..8 {
                stack[sp] = d.first_child + k;
                sp += 1;
            }
        }
    }
}

/// Pairs among a leaf's bodies (sorted by `min.x`).
fn leaf_pairs(own: &[Item], slabs: &mut Slabs, out: &mut Sink<'_>) -> u64 {
    crate::straddlers::leaf_pairs(own, slabs, out)
}

/// Scratch of [`cross_strips`].
#[derive(Debug, Default)]
pub(crate) struct Cross {
    xs: Vec<Rec>,
    ys: Vec<Rec>,
    x_starts: Vec<usize>,
    y_starts: Vec<usize>,
    /// [`windows`]' counts and write positions.
    at: Vec<usize>,
    /// The layer's sort keys: strip, `min` on the sweep axis, index.
    keys: Vec<u64>,
}

/// Bits of a layer's sort key ([`cross_strips`]) for the strip (at most 1025 strips) and for the body's index
/// (larger layers take the slower path); the 32 between are the body's `min` on the sweep axis.
const KEY_STRIP_BITS: u32 = 11;
const KEY_INDEX_BITS: u32 = 64 - KEY_STRIP_BITS - 32;

/// Below this many bodies on both sides, one sweep.
const CROSS_STRIPS_MIN: usize = 48;

/// Pairs between `xs` (sorted by `min` on axis `A`) and `ys` (in any order), both spread over axes `A` and `B`:
/// both are cut on `B` into strips at least as wide as their widest body (by `min`), and each strip of `ys` is
/// swept once against the same and the neighbouring strips of `xs`, gathered into one sorted window
/// ([`windows`]): two overlapping boxes start less than one strip apart on `B`. `ys`' strips are sorted on `A`
/// by one sort of integer keys.
fn cross_strips<const A: usize, const B: usize>(xs: &[Item], ys: &[Item], sc: &mut Cross, out: &mut Sink<'_>) -> u64 {
    let Cross { xs: xb, ys: yb, x_starts, y_starts, at, keys } = sc;
    if xs.len() + ys.len() < CROSS_STRIPS_MIN {
        return sweep_whole::<A>(xs, ys, xb, yb, out);
    }
    let Some(cut) = StripCut::across::<B>(xs.iter().chain(ys)) else {
        return sweep_whole::<A>(xs, ys, xb, yb, out);
    };
    let (n, strip) = (cut.n, |it: &Item| cut.strip::<B>(it));
    windows::<A>(xs, n, strip, xb, x_starts, at);
    if ys.len() < 1 << KEY_INDEX_BITS {
        // The layer comes from many cells in tree order. One sort of `u64` keys (strip, then `min` on `A`, then
        // the index) orders it by strip and each strip on `A`: sorting each strip's records after a scatter cost
        // about twice as many instructions (28-byte moves, `total_cmp` on floats).
        keys.clear();
        keys.extend(ys.iter().enumerate().map(|(i, it)| {
            (strip(it) as u64) << (64 - KEY_STRIP_BITS)
                | u64::from(float_key(it.aabb.min[A])) << KEY_INDEX_BITS
                | i as u64
        }));
        keys.sort_unstable();
        bucket_starts(keys.iter().map(|&k| (k >> (64 - KEY_STRIP_BITS)) as usize), n, y_starts);
        yb.clear();
        yb.extend(keys.iter().map(|&k| Rec::on::<A>(&ys[(k & ((1 << KEY_INDEX_BITS) - 1)) as usize])));
    } else {
        bucket::<A>(ys, n, strip, yb, y_starts);
        for i in 0..n {
            sort_recs(&mut yb[y_starts[i]..y_starts[i + 1]]);
        }
    }
    let mut tests = 0;
    for i in 0..n {
        tests += sweep_two(&xb[x_starts[i]..x_starts[i + 1]], &yb[y_starts[i]..y_starts[i + 1]], out);
    }
    tests
}

/// Scatter `v` (sorted by `min` on axis `A`) stably into `n` **windows** by `key`, as sweep records on axis `A`:
/// window `i` (`dst[starts[i]..starts[i + 1]]`) holds the items of strips `i − 1`, `i` and `i + 1`, still sorted.
/// Each strip of the other side is then swept once, against its window, instead of three times against three
/// strips: on the saved dense frame of the cluster that cut the scans of [`cross_strips`] from 3 per body on both
/// sides to 3 per slab body and 1 per layer body (the layers hold about twice the slabs' bodies), and the
/// instructions of the whole nodup frame by 3%; the box tests stay the same.
fn windows<const A: usize>(
    v: &[Item],
    n: usize,
    key: impl Fn(&Item) -> usize,
    dst: &mut Vec<Rec>,
    starts: &mut Vec<usize>,
    at: &mut Vec<usize>,
) {
    at.clear();
    at.resize(n, 0);
    for it in v {
        at[key(it)] += 1;
    }
    starts.clear();
    starts.push(0);
    for i in 0..n {
        let w = at[i] + if i > 0 { at[i - 1] } else { 0 } + if i + 1 < n { at[i + 1] } else { 0 };
        starts.push(starts[i] + w);
    }
    dst.clear();
    dst.resize(starts[n], Rec::default());
    at.copy_from_slice(&starts[..n]);
    for it in v {
        let k = key(it);
        let r = Rec::on::<A>(it);
        for j in k.saturating_sub(1)..(k + 2).min(n) {
            dst[at[j]] = r;
            at[j] += 1;
        }
    }
}

/// `xs` against `ys` in one sweep on axis `A` (`xs` sorted on it), through the sweep records `xb` and `yb`.
fn sweep_whole<const A: usize>(
    xs: &[Item],
    ys: &[Item],
    xb: &mut Vec<Rec>,
    yb: &mut Vec<Rec>,
    out: &mut Sink<'_>,
) -> u64 {
    recs::<A>(xs, xb);
    recs::<A>(ys, yb);
    sort_recs(yb);
    sweep_two(xb, yb, out)
}

/// Scatter `v` stably into `n` buckets by `key`, as sweep records on axis `A`: bucket `i` is
/// `dst[starts[i]..starts[i + 1]]`.
#[inline]
fn bucket<const A: usize>(
    v: &[Item],
    n: usize,
    key: impl Fn(&Item) -> usize,
    dst: &mut Vec<Rec>,
    starts: &mut Vec<usize>,
) {
    bucket_starts(v.iter().map(&key), n, starts);
    dst.clear();
    dst.resize(v.len(), Rec::default());
    // The scatter advances `starts[k]` to the end of bucket k; shifting by one restores the starts.
    for it in v {
        let k = key(it);
        dst[starts[k]] = Rec::on::<A>(it);
        starts[k] += 1;
    }
    starts.copy_within(0..n, 1);
    starts[0] = 0;
}

/// A box as the sweeps read it, for a sweep on axis `A` ([`Rec::on`]): its extent on `A`, and on the two other
/// axes `b1`, `b2` the four bounds `[min b1, min b2, −max b1, −max b2]`, so that the overlap test there is one
/// comparison of four lanes against the other box's `[max b1, max b2, −min b1, −min b2]` (negation is exact).
/// Read from an [`Item`], the test needed two shuffles per box to bring the four lanes together. The records
/// are made where the bodies are copied anyway (the scatters into strips and windows, the filters of
/// [`crate::straddlers`]) or in one pass before a small sweep; on the saved dense frame of the cluster they cut
/// nodup's instructions by 10%.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rec {
    lo: f32,
    hi: f32,
    cross: [f32; 4],
    id: u32,
}

impl Rec {
    /// `it` as a record for a sweep on axis `A`.
    #[inline(always)]
    pub(crate) fn on<const A: usize>(it: &Item) -> Self {
        let (b1, b2) = ((A + 1) % 3, (A + 2) % 3);
        let (m, x) = (&it.aabb.min, &it.aabb.max);
        Self { lo: m[A], hi: x[A], cross: [m[b1], m[b2], -x[b1], -x[b2]], id: it.id }
    }

    /// Where this box starts on the sweep axis.
    #[inline(always)]
    pub(crate) fn lo(&self) -> f32 {
        self.lo
    }
}

/// `v` as sweep records on axis `A`, into `dst`.
pub(crate) fn recs<const A: usize>(v: &[Item], dst: &mut Vec<Rec>) {
    dst.clear();
    dst.extend(v.iter().map(Rec::on::<A>));
}

/// Pairs among `own`, sorted by `lo`: each body against those that start within its extent there.
#[inline]
pub(crate) fn sweep(own: &[Rec], sink: &mut Sink<'_>) -> u64 {
    if own.len() <= SINK / 2 { sweep_in::<false>(own, sink) } else { sweep_in::<true>(own, sink) }
}

/// [`sweep`]; `ROOM`: whether a scan can overflow the sink ([`scan`]).
#[inline(always)]
fn sweep_in<const ROOM: bool>(own: &[Rec], sink: &mut Sink<'_>) -> u64 {
    let Sink { out, n, buf } = sink;
    let (mut m, mut tests) = (*n, 0);
    for (i, a) in own.iter().enumerate() {
        tests += scan::<ROOM>(a, &own[i + 1..], out, buf, &mut m);
    }
    *n = m;
    tests
}

/// Test `a` against the boxes of `rest` (sorted by `lo`, none starting before `a`) until one starts past `a`'s
/// extent on the sweep axis; returns the tests made. The boxes tested start within `a`'s extent there, so they
/// overlap it on that axis: only the other two are compared, in one four-lane comparison ([`Rec`]).
///
/// `n` is the [`Sink`]'s count, kept in a register by the caller, and below [`SINK`] / 2 between scans (the
/// sink is flushed once half full). The inner loop has neither a bounds check nor a check for a full buffer
/// per test: a sweep whose lists hold at most `SINK / 2` boxes cannot fill the buffer in one scan (`ROOM` off);
/// a larger one (`ROOM` on) runs the loop over at most as many boxes as the buffer has room for and goes on
/// past it on a slow path.
#[inline(always)]
fn scan<const ROOM: bool>(a: &Rec, rest: &[Rec], out: &mut Vec<Pair>, buf: &mut [Pair; SINK], n: &mut usize) -> u64 {
    let limit = a.hi;
    let c = a.cross;
    let q = [-c[2], -c[3], -c[0], -c[1]];
    let aid = a.id;
    let room = if ROOM { rest.len().min(SINK - *n) } else { rest.len() };
    let mut m = *n;
    let mut k = 0;
    for b in &rest[..room] {
        if b.lo > limit {
            break;
        }
        debug_assert!(a.lo <= b.lo, "the sweep's order");
        // `m < SINK` here (`m` starts below `SINK / 2` and gains at most one per test, of at most `room`, which
        // is below `SINK / 2` without `ROOM`): the mask only spares the bounds check.
        buf[m % SINK] = Pair { a: aid, b: b.id };
        let p = b.cross;
        m += usize::from((p[0] <= q[0]) & (p[1] <= q[1]) & (p[2] <= q[2]) & (p[3] <= q[3]));
        k += 1;
    }
    if ROOM && k == room && room < rest.len() {
        // The buffer is full and `rest` goes on.
        flush(out, buf, &mut m);
        k += scan_slow(a, &rest[k..], out, buf, &mut m);
    }
    debug_assert!(m <= SINK, "the sink overflowed");
    if m >= SINK / 2 {
        flush(out, buf, &mut m);
    }
    *n = m;
    k as u64
}

/// [`scan`] past a full buffer: `a` against `rest` until a box starts past its extent, a flush check per test.
#[cold]
#[inline(never)]
fn scan_slow(a: &Rec, rest: &[Rec], out: &mut Vec<Pair>, buf: &mut [Pair; SINK], n: &mut usize) -> usize {
    let c = a.cross;
    let q = [-c[2], -c[3], -c[0], -c[1]];
    let mut k = 0;
    for b in rest.iter().take_while(|b| b.lo <= a.hi) {
        let p = b.cross;
        buf[*n % SINK] = Pair { a: a.id, b: b.id };
        *n += usize::from((p[0] <= q[0]) & (p[1] <= q[1]) & (p[2] <= q[2]) & (p[3] <= q[3]));
        if *n == SINK {
            flush(out, buf, n);
        }
        k += 1;
    }
    k
}

/// Move the `n` pairs kept in `buf` to `out`, each put in order (`a < b`), which only the kept ones pay for.
fn flush(out: &mut Vec<Pair>, buf: &[Pair; SINK], n: &mut usize) {
    out.extend(buf[..*n].iter().map(|p| Pair::new(p.a, p.b)));
    *n = 0;
}

/// Pairs found by the sweeps, gathered in a buffer before they go to the output.
///
/// Whether two boxes of a dense crowd overlap is a coin flip, and a branch around the write mispredicted on
/// every other test: every candidate is written and the count advances only when the boxes overlap. Doing that
/// on the output `Vec` itself (a push, then a truncate) reloaded and stored its length through the pointer on
/// every test; here the count stays in a register and the `Vec` is touched once per [`SINK`] / 2 pairs or more.
/// One sink serves a whole task chunk, its buffer kept in the [`Scratch`] (a buffer on the stack per sweep was
/// zeroed on every call: 2% of the dense frame).
pub(crate) struct Sink<'a> {
    out: &'a mut Vec<Pair>,
    n: usize,
    buf: &'a mut [Pair; SINK],
}

/// Pairs a [`Sink`] holds.
const SINK: usize = 1024;

/// A [`Sink`]'s buffer.
#[derive(Debug)]
struct SinkBuf(Box<[Pair; SINK]>);

impl Default for SinkBuf {
    fn default() -> Self {
        Self(Box::new([Pair::default(); SINK]))
    }
}

impl<'a> Sink<'a> {
    fn new(out: &'a mut Vec<Pair>, buf: &'a mut [Pair; SINK]) -> Self {
        Self { out, n: 0, buf }
    }

    /// Move the pairs kept to the output.
    fn flush(&mut self) {
        flush(self.out, self.buf, &mut self.n);
    }
}

#[inline(always)]
fn select<T: Copy>(c: bool, t: T, f: T) -> T {
    [f, t][usize::from(c)]
}

/// Pairs between `xs` and `ys`, both sorted by `lo`: walk both in that order; each box is tested
/// against the boxes of the other list that start at or after it and within its extent, so every overlapping
/// pair is tested exactly once (ties go to `xs`' box, which then includes the `ys` box of equal `min`).
#[inline]
pub(crate) fn sweep_two(xs: &[Rec], ys: &[Rec], sink: &mut Sink<'_>) -> u64 {
    if xs.len() + ys.len() <= SINK / 2 {
        sweep_two_in::<false>(xs, ys, sink)
    } else {
        sweep_two_in::<true>(xs, ys, sink)
    }
}

/// [`sweep_two`]; `ROOM`: whether a scan can overflow the sink ([`scan`]).
#[inline(always)]
fn sweep_two_in<const ROOM: bool>(xs: &[Rec], ys: &[Rec], sink: &mut Sink<'_>) -> u64 {
    let Sink { out, n, buf } = sink;
    let (mut m, mut tests) = (*n, 0);
    let (mut xs, mut ys) = (xs, ys);
    while let (Some(x), Some(y)) = (xs.first(), ys.first()) {
        let take_x = x.lo <= y.lo;
        let (a, rest) = select(take_x, (x, ys), (y, xs));
        xs = &xs[usize::from(take_x)..];
        ys = &ys[usize::from(!take_x)..];
        tests += scan::<ROOM>(a, rest, out, buf, &mut m);
    }
    *n = m;
    tests
}
