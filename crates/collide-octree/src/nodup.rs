//! Octree without duplicates: a body that straddles a split plane stays in the node.
//!
//! Every body is stored once. A body kept in node N lies inside N's half-open cell; a body in N's lower child on
//! an axis has `max < c` there and one in the upper child has `min >= c`, so bodies in disjoint subtrees never
//! overlap. The pairs are therefore: each node's own bodies among themselves, and each node's own bodies
//! against the bodies of its subtree. The pair search pairs each inner node's straddlers, slab by slab, with
//! the layer of its subtree near the slab's plane (see [`self_pairs`]); the moving bodies walk the static tree
//! ([`crate::batch`]) by the same [`child_mask`](crate::tree::child_mask).

use crate::straddlers::{SLABS_MIN, Slabs, slab_pairs, sort_on, split};
use crate::tree::{Item, NONE, Node, STACK};
use collide_broadphase::Pair;
use collide_math::Vec3;

/// The pair search's scratch for one task chunk, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
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
    let mut tests = 0;
    for ni in range {
        let node = &nodes[ni];
        let own = &items[node.start as usize..node.end as usize];
        if node.is_leaf() {
            tests += leaf_pairs(own, &mut scratch.slabs, out);
        } else if !own.is_empty() {
            tests += node_pairs(nodes, items, node, own, scratch, out);
        }
    }
    tests
}

/// Pairs of the inner node `node` (own bodies `own`): among themselves, and each slab against its layer of the
/// subtree.
fn node_pairs(nodes: &[Node], items: &[Item], node: &Node, own: &[Item], sc: &mut Scratch, out: &mut Vec<Pair>) -> u64 {
    let Scratch { slabs_buf, layers, cross, slabs } = sc;
    slabs_buf.clear();
    let b = split(own, node.c, slabs_buf);
    let (sx, sy, sz) = (&slabs_buf[b[0]..b[1]], &slabs_buf[b[1]..b[2]], &slabs_buf[b[2]..b[3]]);
    let mut tests =
        if own.len() < SLABS_MIN { sweep::<0>(own, out) } else { slab_pairs(sx, sy, sz, node.c, slabs, out) };

    // The layers: `c ± w` across each plane with a non-empty slab (empty: `lo > hi`, nothing meets it).
    let mut lo = Vec3::INFINITY;
    let mut hi = Vec3::NEG_INFINITY;
    for (axis, slab) in [sx, sy, sz].into_iter().enumerate() {
        if !slab.is_empty() {
            let w = widest(slab, axis);
            let p = node.c[axis];
            let slack = (p.abs() + w) * (1.0 / (1 << 20) as f32);
            lo[axis] = p - w - slack;
            hi[axis] = p + w + slack;
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
fn leaf_pairs(own: &[Item], slabs: &mut Slabs, out: &mut Vec<Pair>) -> u64 {
    crate::straddlers::leaf_pairs(own, slabs, out)
}

/// The widest extent on `axis` in `v`, grown by a little more than the rounding of `max − min`.
fn widest(v: &[Item], axis: usize) -> f32 {
    let w = v.iter().fold(0.0f32, |w, it| w.max(it.aabb.max[axis] - it.aabb.min[axis]));
    w * (1.0 + 1.0 / (1 << 20) as f32)
}

/// Scratch of [`cross_strips`].
#[derive(Debug, Default)]
pub(crate) struct Cross {
    xs: Vec<Item>,
    ys: Vec<Item>,
    x_starts: Vec<usize>,
    y_starts: Vec<usize>,
}

/// Below this many bodies on both sides, one sweep.
const CROSS_STRIPS_MIN: usize = 48;

/// Pairs between `xs` and `ys`, both sorted by `min` on axis `A` and spread over axes `A` and `B`: both are cut
/// on `B` into strips at least as wide as their widest body (by `min`, a stable scatter keeping each strip
/// sorted on `A`), and each strip of `xs` is swept against the same and the neighbouring strips of `ys`: two
/// overlapping boxes start less than one strip apart on `B`.
fn cross_strips<const A: usize, const B: usize>(
    xs: &[Item],
    ys: &mut [Item],
    sc: &mut Cross,
    out: &mut Vec<Pair>,
) -> u64 {
    if xs.len() + ys.len() < CROSS_STRIPS_MIN {
        sort_on::<A>(ys);
        return sweep_two::<A>(xs, ys, out);
    }
    let (mut lo, mut hi, mut w) = (f32::INFINITY, f32::NEG_INFINITY, 0.0f32);
    for it in xs.iter().chain(ys.iter()) {
        lo = lo.min(it.aabb.min[B]);
        hi = hi.max(it.aabb.min[B]);
        w = w.max(it.aabb.max[B] - it.aabb.min[B]);
    }
    let s = (w * 1.01).max((hi - lo) / 1024.0);
    let n = ((hi - lo) / s) as usize + 1;
    if !(s > 0.0 && s.is_finite()) || n < 3 {
        sort_on::<A>(ys);
        return sweep_two::<A>(xs, ys, out);
    }
    let strip = |it: &Item| (((it.aabb.min[B] - lo) / s) as usize).min(n - 1);
    let Cross { xs: xb, ys: yb, x_starts, y_starts } = sc;
    bucket(xs, n, strip, xb, x_starts);
    bucket(ys, n, strip, yb, y_starts);
    for i in 0..n {
        sort_on::<A>(&mut yb[y_starts[i]..y_starts[i + 1]]);
    }
    let mut tests = 0;
    let (xr, yr) = (|i: usize| x_starts[i]..x_starts[i + 1], |i: usize| y_starts[i]..y_starts[i + 1]);
    for i in 0..n {
        let x = &xb[xr(i)];
        tests += sweep_two::<A>(x, &yb[yr(i)], out);
        if i + 1 < n {
            tests += sweep_two::<A>(x, &yb[yr(i + 1)], out);
            tests += sweep_two::<A>(&xb[xr(i + 1)], &yb[yr(i)], out);
        }
    }
    tests
}

/// Scatter `v` stably into `n` buckets by `key`: bucket `i` is `dst[starts[i]..starts[i + 1]]`.
#[inline]
fn bucket(v: &[Item], n: usize, key: impl Fn(&Item) -> usize, dst: &mut Vec<Item>, starts: &mut Vec<usize>) {
    starts.clear();
    starts.resize(n + 1, 0);
    for it in v {
        starts[key(it) + 1] += 1;
    }
    for i in 0..n {
        starts[i + 1] += starts[i];
    }
    dst.clear();
    dst.resize(v.len(), Item::default());
    // The scatter advances `starts[k]` to the end of bucket k; shifting by one restores the starts.
    for it in v {
        let k = key(it);
        dst[starts[k]] = *it;
        starts[k] += 1;
    }
    starts.copy_within(0..n, 1);
    starts[0] = 0;
}

/// Pairs among `own`, sorted by `min` on axis `A`: each body against those that start within its extent there.
#[inline]
pub(crate) fn sweep<const A: usize>(own: &[Item], out: &mut Vec<Pair>) -> u64 {
    let mut sink = Sink::new(out);
    let mut tests = 0;
    for (i, a) in own.iter().enumerate() {
        tests += scan::<A>(a, &own[i + 1..], &mut sink);
    }
    sink.finish();
    tests
}

/// Test `a` against the boxes of `rest` (sorted by `min` on axis `A`, none starting before `a` there) until one
/// starts past `a`'s extent on `A`; returns the tests made. The boxes tested start within `a`'s extent on `A`, so
/// they overlap it there: only the other two axes are compared.
#[inline(always)]
fn scan<const A: usize>(a: &Item, rest: &[Item], sink: &mut Sink<'_>) -> u64 {
    let limit = a.aabb.max[A];
    let (b1, b2) = ((A + 1) % 3, (A + 2) % 3);
    let (lo1, hi1, lo2, hi2) = (a.aabb.min[b1], a.aabb.max[b1], a.aabb.min[b2], a.aabb.max[b2]);
    let mut k = 0;
    while let Some(b) = rest.get(k).filter(|b| b.aabb.min[A] <= limit) {
        debug_assert!(a.aabb.min[A] <= b.aabb.min[A], "the sweep's order");
        let (m, n) = (&b.aabb.min, &b.aabb.max);
        sink.keep(a.id, b.id, (m[b1] <= hi1) & (lo1 <= n[b1]) & (m[b2] <= hi2) & (lo2 <= n[b2]));
        k += 1;
    }
    k as u64
}

/// Pairs found by the sweeps, gathered in a small buffer on the stack before they go to the output.
///
/// Whether two boxes of a dense crowd overlap is a coin flip, and a branch around the write mispredicted on
/// every other test: every candidate is written and the count advances only when the boxes overlap. Doing that
/// on the output `Vec` itself (a push, then a truncate) reloaded and stored its length through the pointer on
/// every test; here the count stays in a register and the `Vec` is touched once per [`SINK`] pairs.
struct Sink<'a> {
    out: &'a mut Vec<Pair>,
    n: usize,
    buf: [Pair; SINK],
}

/// Pairs buffered by a [`Sink`] before it flushes.
const SINK: usize = 32;

impl<'a> Sink<'a> {
    #[inline(always)]
    fn new(out: &'a mut Vec<Pair>) -> Self {
        Self { out, n: 0, buf: [Pair::default(); SINK] }
    }

    /// Keep the pair of bodies `i` and `j` when `overlap`. The pair is stored as it comes and put in order
    /// (`a < b`) when flushed, which only the kept ones pay for.
    #[inline(always)]
    fn keep(&mut self, i: u32, j: u32, overlap: bool) {
        self.buf[self.n % SINK] = Pair { a: i, b: j };
        self.n += usize::from(overlap);
        if self.n == SINK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.out.extend(self.buf[..self.n].iter().map(|p| Pair::new(p.a, p.b)));
        self.n = 0;
    }

    #[inline(always)]
    fn finish(mut self) {
        self.flush();
    }
}

#[inline(always)]
fn select<T: Copy>(c: bool, t: T, f: T) -> T {
    [f, t][usize::from(c)]
}

/// Pairs between `xs` and `ys`, both sorted by `min` on axis `A`: walk both in that order; each box is tested
/// against the boxes of the other list that start at or after it and within its extent, so every overlapping
/// pair is tested exactly once (ties go to `xs`' box, which then includes the `ys` box of equal `min`).
#[inline]
pub(crate) fn sweep_two<const A: usize>(xs: &[Item], ys: &[Item], out: &mut Vec<Pair>) -> u64 {
    let mut sink = Sink::new(out);
    let mut tests = 0;
    let (mut i, mut j) = (0, 0);
    while i < xs.len() && j < ys.len() {
        let take_x = xs[i].aabb.min[A] <= ys[j].aabb.min[A];
        let (a, rest) = select(take_x, (&xs[i], &ys[j..]), (&ys[j], &xs[i..]));
        i += usize::from(take_x);
        j += usize::from(!take_x);
        tests += scan::<A>(a, rest, &mut sink);
    }
    sink.finish();
    tests
}
