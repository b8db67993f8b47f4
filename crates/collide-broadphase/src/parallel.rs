//! When work goes to rayon's threads, and the one place it is sent there.
//!
//! Every algorithm of the workspace decides "parallel or serial" with a [`Parallelism`] value it holds, from an
//! estimate of the work at hand, and runs parallel sections through [`Parallelism::for_each`] (independent tasks
//! over a slice) or [`PairChunks::run`] (a range of tasks cut into chunks, evenly or where the caller says with
//! [`PairChunks::run_cut`], each with its own pair buffer and scratch, appended in chunk order so that the output
//! does not depend on the scheduling). With the `profile` feature each parallel task opens a puffin scope
//! `parallel_task` whose data names the section, so that rayon's worker threads show up in a puffin view beside
//! the thread that called the broadphase.
//!
//! **Work** is counted in *items*: the boxes, bodies or stored entries a section reads once (an algorithm whose
//! unit costs several items' worth, such as the octree's walk of a moving body, scales its count and says why).

use crate::{Pair, Tally};
use rayon::prelude::*;
use std::ops::Range;

/// The threshold between serial and parallel: a section with at least `min_work` items of work runs on rayon's
/// threads (when there are several). Algorithms hold one ([`Parallelism::default`] in production); tests lower it
/// to force the parallel paths at small sizes, or raise it to [`Parallelism::SERIAL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parallelism {
    min_work: usize,
}

impl Parallelism {
    /// The shipped threshold: 8192 items. Below it rayon's fork and join, a few microseconds, are the whole budget
    /// of the section (a scene of a few thousand bodies takes tens of microseconds in all); above it a section takes
    /// a hundred microseconds or more and two threads save more than the fork costs. It was the octree's value
    /// (its pair search and build); multi-box pruning used 8000 bodies, SAP and sort-and-sweep 20 000, none with
    /// a measurement behind it, and one policy keeps the algorithms comparable.
    pub const DEFAULT_MIN_WORK: usize = 8192;

    /// Never parallel.
    pub const SERIAL: Self = Self { min_work: usize::MAX };

    /// Parallel from `min_work` items of work (0: always, when rayon has several threads).
    #[must_use]
    pub const fn with_min_work(min_work: usize) -> Self {
        Self { min_work }
    }

    /// The threshold in items.
    #[must_use]
    pub const fn min_work(self) -> usize {
        self.min_work
    }

    /// `true` when a section of `work` items runs in parallel: at least the threshold, and rayon has more than one
    /// thread (in the pool the caller runs in).
    #[must_use]
    pub fn is_parallel(self, work: usize) -> bool {
        work >= self.min_work && rayon::current_num_threads() > 1
    }

    /// Run `task(i, &mut tasks[i])` for every task: on rayon's threads when [`is_parallel(work)`](Self::is_parallel),
    /// in order on this thread otherwise. `section` names the tasks in a puffin view (`profile` feature) and, with
    /// the `conformance` feature, in the kit's record of the sections that ran in parallel.
    pub fn for_each<T: Send>(
        self,
        section: &'static str,
        work: usize,
        tasks: &mut [T],
        task: impl Fn(usize, &mut T) + Sync + Send,
    ) {
        self.run_tasks(section, work, tasks, &task, Split::OneJobPerTask);
    }

    /// Run `a` and `b`, on two of rayon's threads when [`is_parallel(work)`](Self::is_parallel) (`rayon::join`),
    /// else `a` then `b` on this thread: the two halves of a divide-and-conquer pass, such as a tree built one
    /// side per thread. `section` names it as in [`for_each`](Self::for_each).
    pub fn join<A: Send, B: Send>(
        self,
        section: &'static str,
        work: usize,
        a: impl FnOnce() -> A + Send,
        b: impl FnOnce() -> B + Send,
    ) -> (A, B) {
        if self.is_parallel(work) {
            #[cfg(feature = "conformance")]
            probe::record(section);
            #[cfg(feature = "profile")]
            puffin::profile_scope!("parallel_join", section);
            rayon::join(a, b)
        } else {
            let _ = section;
            (a(), b())
        }
    }
}

impl Parallelism {
    /// [`for_each`](Self::for_each) for coarse tasks that are shares of data the caller's other sections, and its
    /// next frame, cut the same way (a tree's node ranges: the pass that writes a range's items, the search that
    /// reads them): each pool thread runs its own contiguous share of the tasks, the same share every call, and
    /// then takes single tasks from the backs of the others' shares (`owned.rs`). So the data a thread reads was
    /// most likely written by itself, and is in its core's cache. In order on this thread when serial.
    pub fn for_each_owned<T: Send>(
        self,
        section: &'static str,
        work: usize,
        tasks: &mut [T],
        task: impl Fn(usize, &mut T) + Sync + Send,
    ) {
        self.run_tasks(section, work, tasks, &task, Split::Owned);
    }

    /// The two `for_each`s: in parallel as `split` says when [`is_parallel(work)`](Self::is_parallel) and there
    /// are several tasks, else in order on this thread.
    fn run_tasks<T: Send>(
        self,
        section: &'static str,
        work: usize,
        tasks: &mut [T],
        task: &(impl Fn(usize, &mut T) + Sync),
        split: Split,
    ) {
        if tasks.len() > 1 && self.is_parallel(work) {
            #[cfg(feature = "conformance")]
            probe::record(section);
            let task = |i: usize, t: &mut T| {
                #[cfg(feature = "profile")]
                puffin::profile_scope!("parallel_task", section);
                task(i, t);
            };
            match split {
                Split::Owned => owned::run_owned(tasks, &task),
                // Coarse tasks each become a job of their own (see `ONE_JOB_PER_TASK`); per-item passes keep
                // rayon's adaptive splitting.
                Split::OneJobPerTask => {
                    let max_len = if tasks.len() <= ONE_JOB_PER_TASK { 1 } else { usize::MAX };
                    tasks.par_iter_mut().with_max_len(max_len).enumerate().for_each(|(i, t)| task(i, t));
                }
            }
        } else {
            let _ = section;
            for (i, t) in tasks.iter_mut().enumerate() {
                task(i, t);
            }
        }
    }
}

/// How [`Parallelism::run_tasks`] shares tasks out.
#[derive(Clone, Copy)]
enum Split {
    /// Rayon's splitting, one job per task in sections of up to [`ONE_JOB_PER_TASK`].
    OneJobPerTask,
    /// Each thread its own share first (`owned.rs`).
    Owned,
}

mod owned;

/// A section of at most this many tasks is split into one rayon job per task.
///
/// **Why:** such sections are a caller's coarse tasks (chunks, parts, regions; 64 chunks by convention) of
/// unequal cost. Rayon's adaptive splitting starts from about one piece per thread and splits a piece again only
/// when another thread steals it, so a thread that ran out of work found nothing left to steal while the other
/// still held a run of small chunks behind a large one. Traced on `kd`'s pair search of rapier's Brownian crowd at
/// 10⁴ bodies on two threads (64 chunks, 2–92 µs each, 460 µs in all): one thread ran its half and stopped at
/// 186 µs, the other ran its half to 283 µs, each piece of chunks in one job. With one job per task the idle
/// thread steals single chunks. Sections of more tasks are per-item passes of even cost (a gather, a key per
/// box), where rayon's own splitting costs less than a job per item.
const ONE_JOB_PER_TASK: usize = 256;

/// Run `f` on a thread of rayon's pool and return what it returns: at once when the caller is one of the pool's
/// threads, else by handing `f` to the pool and blocking until it is done.
///
/// **Why:** a loop that alternates serial work with parallel sections — a simulation step: integrate, boxes, the
/// broadphase's parallel build and search, the narrowphase — should run *on* a pool thread, not beside the pool.
/// A caller outside the pool is a third thread on a two-core machine: each section it starts wakes the sleeping
/// workers while it still holds a core, and the scheduler often leaves one worker waiting behind a busy core
/// until the section is nearly over, so the section runs serially. Measured on the two-core development VM with
/// 2 ms of serial work between 2 ms parallel sections: 38% of the sections took twice their time from a caller
/// outside the pool, 1% from a pool thread; `kd` on the tour's uniform phase at 100 000 bodies went from a mean
/// of 5.6 ms (a quarter of its frames at the serial 9.5 ms) to 4.5 ms (p95 9.8 → 5.3 ms). Handing `f` over costs
/// a wake-up, a few microseconds; a caller that runs many steps wraps its whole loop once.
pub fn on_worker<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_some() { f() } else { rayon::scope(|_| f()) }
}

/// Run `f` on this thread while the pool's other threads stay awake: each spins, running whatever parallel work
/// `f` hands out (`rayon::yield_now`), until `f` returns. Call it from a pool thread ([`on_worker`]).
///
/// **Why:** a worker that finds no work soon goes to sleep, and a sleeping worker takes 5–25 µs to wake when the
/// next parallel section starts — measured on the two-core development VM, eight chunks after a serial stretch of
/// 5–500 µs: 2.7–14 µs over the ideal section when the worker slept, 0.3–2.7 µs when it was kept awake. A
/// simulation step alternates a dozen short parallel sections (each body pass, the broadphase's build and search,
/// the narrowphase, resolution's copies) with serial stretches, so at 10⁵ bodies the wake-ups are a tenth of its
/// own phases. The price is that the other threads spin through `f`'s serial stretches instead of sleeping.
///
/// No allocation: the spinners are the second halves of nested `rayon::join`s, on this thread's stack. A spinner
/// that ends up on this thread (it was not stolen, and this thread ran it while waiting inside `f`) returns at
/// once, so nothing ever waits on itself. With one thread, `f` just runs.
///
/// Nested on the thread that already keeps the pool awake (a broadphase that keeps it awake for its frame,
/// called from a simulation step that does), `f` just runs: the spinners are already there. A second set cost
/// more than it saved — each frame's join then waited on the stolen inner spinner, and `hgrid` on `power-law` at
/// 10⁴ bodies took 1.03 ms a frame inside the step instead of 0.91.
pub fn keep_awake<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if is_kept_awake() {
        return f();
    }
    /// Clears this thread's flag when `f` returns or unwinds.
    struct Awake;
    impl Drop for Awake {
        fn drop(&mut self) {
            KEPT_AWAKE.set(false);
        }
    }
    let stop = std::sync::atomic::AtomicBool::new(false);
    let caller = rayon::current_thread_index();
    let others = if caller.is_some() { rayon::current_num_threads().saturating_sub(1) } else { 0 };
    let _awake = (others > 0).then(|| {
        KEPT_AWAKE.set(true);
        Awake
    });
    nest(others, &stop, caller, f)
}

thread_local! {
    /// Whether this thread is inside a [`keep_awake`] that pushed spinners.
    static KEPT_AWAKE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is running a [`keep_awake`] closure that keeps the pool's other threads awake (not with
/// one thread, nor outside a pool): a nested `keep_awake` then just runs its closure.
pub fn is_kept_awake() -> bool {
    KEPT_AWAKE.get()
}

/// `f` with `spinners` spinners pushed beside it (see [`keep_awake`]).
fn nest<R: Send>(
    spinners: usize,
    stop: &std::sync::atomic::AtomicBool,
    caller: Option<usize>,
    f: impl FnOnce() -> R + Send,
) -> R {
    use std::sync::atomic::Ordering::{Acquire, Release};
    if spinners == 0 {
        /// Stops the spinners when `f` returns *or unwinds*: a spinner another thread stole spins until told,
        /// and the join above waits for it before it passes the panic on (an invalid box under
        /// `InvalidBoxes::Panic` hung the conformance kit's parallel check that way).
        struct Stop<'a>(&'a std::sync::atomic::AtomicBool);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                self.0.store(true, Release);
            }
        }
        let _stop = Stop(stop);
        return f();
    }
    let spin = || {
        if rayon::current_thread_index() == caller {
            return;
        }
        let mut idle = 0u32;
        while !stop.load(Acquire) {
            match rayon::yield_now() {
                Some(rayon::Yield::Executed) => idle = 0,
                _ => back_off(&mut idle),
            }
        }
    };
    rayon::join(|| nest(spinners - 1, stop, caller, f), spin).0
}

/// One round of a spin-wait with nothing to run: a pause, and every 64th round the core to another thread that
/// wants it (pools larger than the machine, as in tests) — not every round, as a system call per round costs the
/// spinning thread's neighbours too.
fn back_off(idle: &mut u32) {
    *idle = idle.wrapping_add(1);
    if idle.is_multiple_of(64) {
        std::thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

impl Default for Parallelism {
    /// [`DEFAULT_MIN_WORK`](Self::DEFAULT_MIN_WORK); with the `conformance` feature, the threshold the kit set on
    /// this thread while it builds the algorithms it checks (`conformance::with_default_parallelism`), so that
    /// the parallel paths of every algorithm that holds a default `Parallelism` run under the kit.
    fn default() -> Self {
        #[cfg(feature = "conformance")]
        if let Some(forced) = probe::default_override() {
            return forced;
        }
        Self::with_min_work(Self::DEFAULT_MIN_WORK)
    }
}

/// The conformance kit's view of the parallel paths (only with the `conformance` feature): which sections of
/// [`Parallelism::for_each`] ran on rayon's threads, counted per dispatching thread, and the default threshold
/// the kit imposes while it builds algorithms. Thread-local, so that tests running side by side do not see each
/// other's sections; fixed-size, so that counting allocates nothing (the warm-allocation tests run with it).
#[cfg(feature = "conformance")]
pub(crate) mod probe {
    use super::Parallelism;
    use std::cell::{Cell, RefCell};

    /// The most distinct section names counted per thread (the workspace has about ten).
    const SECTIONS: usize = 64;

    thread_local! {
        static RAN: RefCell<[(&'static str, u64); SECTIONS]> = const { RefCell::new([("", 0); SECTIONS]) };
        static DEFAULT: Cell<Option<Parallelism>> = const { Cell::new(None) };
    }

    /// Count one parallel run of `section` on this thread.
    pub(crate) fn record(section: &'static str) {
        RAN.with_borrow_mut(|ran| {
            if let Some(slot) = ran.iter_mut().find(|(name, count)| *count == 0 || *name == section) {
                *slot = (section, slot.1 + 1);
            }
        });
    }

    /// The sections counted on this thread, with their counts, and the count reset.
    pub(crate) fn take() -> Vec<(&'static str, u64)> {
        RAN.with_borrow_mut(|ran| {
            let seen = ran.iter().copied().filter(|&(_, count)| count > 0).collect();
            *ran = [("", 0); SECTIONS];
            seen
        })
    }

    pub(crate) fn default_override() -> Option<Parallelism> {
        DEFAULT.get()
    }

    /// Set (or clear) this thread's default threshold; returns the previous one.
    pub(crate) fn set_default(parallelism: Option<Parallelism>) -> Option<Parallelism> {
        DEFAULT.replace(parallelism)
    }
}

/// Chunks per rayon thread of a [`PairChunks::run`]: more chunks than threads, so that work stealing evens out
/// chunks of unequal cost (a dense leaf, a crowded region); 64 on two threads, the octree's measured count.
const CHUNKS_PER_THREAD: usize = 32;

/// Pair collection in chunks, without per-frame allocation: one pair buffer and one scratch `S` per chunk, kept
/// across calls.
#[derive(Clone, Debug)]
pub struct PairChunks<S> {
    chunks: Vec<Chunk<S>>,
}

impl<S> Default for PairChunks<S> {
    fn default() -> Self {
        Self { chunks: Vec::new() }
    }
}

#[derive(Clone, Debug, Default)]
struct Chunk<S> {
    tasks: Range<usize>,
    pairs: Vec<Pair>,
    scratch: S,
    tally: Tally,
}

impl<S: Default + Send> PairChunks<S> {
    /// Run `search(range, out, scratch)` over the tasks `0..tasks` and append its pairs to `out`; returns the sum
    /// of what it returns. Parallel ([`Parallelism::is_parallel`]`(work)`): the task range cut into
    /// `CHUNKS_PER_THREAD` chunks per thread, each writing to its own buffer, appended in chunk order — so the
    /// output is the same whatever the scheduling. Serial: one call writing straight into `out`.
    pub fn run(
        &mut self,
        parallelism: Parallelism,
        section: &'static str,
        work: usize,
        tasks: usize,
        out: &mut Vec<Pair>,
        search: impl Fn(Range<usize>, &mut Vec<Pair>, &mut S) -> Tally + Sync + Send,
    ) -> Tally {
        self.run_cut(parallelism, section, work, tasks, |c, count| c * tasks / count, out, search)
    }

    /// [`PairChunks::run`] with the chunks' bounds from `cut(c, count)`: chunk `c` of `count` is
    /// `cut(c, count)..cut(c + 1, count)`. `cut` must rise (not strictly) from `cut(0, count) == 0` to
    /// `cut(count, count) == tasks`. For tasks of unequal data, cut where the caller's last parallel pass cut its
    /// data, so that each thread searches what it just wrote (the owned shares of
    /// [`Parallelism::for_each_owned`] give thread k the k-th run of chunks).
    #[allow(clippy::too_many_arguments)]
    pub fn run_cut(
        &mut self,
        parallelism: Parallelism,
        section: &'static str,
        work: usize,
        tasks: usize,
        cut: impl Fn(usize, usize) -> usize,
        out: &mut Vec<Pair>,
        search: impl Fn(Range<usize>, &mut Vec<Pair>, &mut S) -> Tally + Sync + Send,
    ) -> Tally {
        let count = if tasks >= 2 && parallelism.is_parallel(work) {
            (CHUNKS_PER_THREAD * rayon::current_num_threads()).min(tasks)
        } else {
            1
        };
        if self.chunks.len() < count {
            self.chunks.resize_with(count, Chunk::default);
        }
        if count == 1 {
            return search(0..tasks, out, &mut self.chunks[0].scratch);
        }
        for (c, chunk) in self.chunks[..count].iter_mut().enumerate() {
            chunk.tasks = cut(c, count)..cut(c + 1, count);
            debug_assert!(chunk.tasks.start <= chunk.tasks.end && chunk.tasks.end <= tasks, "{:?}", chunk.tasks);
        }
        debug_assert_eq!((cut(0, count), cut(count, count)), (0, tasks), "the cuts cover every task");
        parallelism.for_each_owned(section, work, &mut self.chunks[..count], |_, chunk| {
            chunk.pairs.clear();
            chunk.tally = search(chunk.tasks.clone(), &mut chunk.pairs, &mut chunk.scratch);
        });
        out.reserve(self.chunks[..count].iter().map(|c| c.pairs.len()).sum());
        let mut tally = Tally::default();
        for chunk in &self.chunks[..count] {
            out.extend_from_slice(&chunk.pairs);
            tally += chunk.tally;
        }
        tally
    }
}

#[cfg(test)]
mod tests;
