//! [`Parallelism::for_each_owned`](super::Parallelism::for_each_owned): coarse tasks run where they ran last
//! time. Each pool thread owns a contiguous share of the tasks, runs it from its front, and only then takes single
//! tasks from the backs of the others' shares.
//!
//! **Why:** an algorithm's coarse tasks are shares of its data (node ranges, body chunks), and the sections of a
//! frame, and the frames after it, cut that data the same way. When thread k always starts on the k-th share, the
//! data a thread wrote in one section (the kd tree's items of its nodes, in the update's write pass) is the data it
//! reads in the next (the pair search of those nodes), from its own core's cache. With one rayon job per task,
//! whichever thread was free took the next chunk, so from section to section a thread mostly read lines the other
//! core had written last.
//!
//! **Measured** on the 2-vCPU development VM (AMD EPYC), rapier's brownian crowd at 10⁴ bodies, 2 threads, ten
//! interleaved headless replays of each build (`collide --headless --replay`, mean ms a frame, load 1.4–1.8). The
//! VM has two speeds for two threads sharing data — the host places the vCPUs — and the runs fall into one or the
//! other, while two single-threaded processes on the two vCPUs run at full speed side by side:
//!
//! | | one job per task (fast runs, slow runs) | owned shares (fast, slow) |
//! |---|---|---|
//! | `kd` | 0.36–0.38, 0.48–0.52 | 0.333–0.351, 0.42 |
//! | `bvh-dynamic` | 0.635–0.654, 0.78–0.79 | 0.597–0.611, 0.73 |
//!
//! Used by [`PairChunks`](super::PairChunks) and the kd tree's update passes. Tried on every coarse section
//! (`for_each` itself), `hgrid` on `power-law` at 10⁴ bodies ran 5% slower (0.91–0.95 → 0.96–0.99 ms): its
//! partitions' builds share a join with the cubes' build and their costs differ tenfold (probably why a fixed share
//! did not pay there); it keeps one job per task.
//!
//! Stealing from the back keeps the balance one job per task gave (a thread that finished its share takes the
//! other's last tasks, one at a time) and leaves the owner its front. The caller waits for the last task by
//! spinning, not in rayon's latch, where a thread that found nothing to steal falls asleep and takes tens of
//! microseconds to wake; it runs no other job meanwhile, so a helper job still queued stays there for a thread
//! that comes free. Nothing is allocated: the shares live in an array on the stack and the helpers are nested
//! joins.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// The most ranges: pools of more threads share them (thread k owns range k mod this).
const MAX_RANGES: usize = 16;

/// One owner's share: the index of its first task and the tasks not yet taken.
type Range<'a, T> = Mutex<(usize, &'a mut [T])>;

/// Run `task(i, &mut tasks[i])` for every task, on up to as many pool threads as there are tasks: thread k owns
/// the k-th of that many contiguous ranges (by its pool index, so the same share every call), runs it in order,
/// then takes single tasks from the backs of the other ranges; returns once every task has returned. A task that
/// panics counts as finished, and the panic reaches the caller. O(tasks) claims, each a lock that only a thief
/// contends.
pub(super) fn run_owned<T: Send>(tasks: &mut [T], task: &(impl Fn(usize, &mut T) + Sync)) {
    let len = tasks.len();
    let count = rayon::current_num_threads().min(len).clamp(1, MAX_RANGES);
    let mut ranges: [Range<'_, T>; MAX_RANGES] = std::array::from_fn(|_| Mutex::new((0, Default::default())));
    let mut rest = tasks;
    for (r, range) in ranges[..count].iter_mut().enumerate() {
        let (start, end) = (r * len / count, (r + 1) * len / count);
        let (mine, after) = std::mem::take(&mut rest).split_at_mut(end - start);
        *range.get_mut().unwrap_or_else(PoisonError::into_inner) = (start, mine);
        rest = after;
    }
    let ranges = &ranges[..count];
    let done = AtomicUsize::new(0);
    let run = |(i, t): (usize, &mut T)| {
        let _done = Done(&done);
        task(i, t);
    };
    let work = || {
        let own = rayon::current_thread_index().unwrap_or(0) % count;
        while let Some(claimed) = take(&ranges[own], End::Front) {
            run(claimed);
        }
        for k in 1..count {
            let theirs = &ranges[(own + k) % count];
            while let Some(claimed) = take(theirs, End::Back) {
                run(claimed);
            }
        }
    };
    fan(count - 1, &work, &|| {
        work();
        // Every task is taken; wait for the ones other threads are still running.
        let mut idle = 0u32;
        while done.load(Ordering::Acquire) < len {
            super::back_off(&mut idle);
        }
    });
}

/// Which end of a range a thread takes from: its owner the front, a thief the back.
#[derive(Clone, Copy)]
enum End {
    Front,
    Back,
}

/// The next task of `range` from `end`, with its index; `None` once the range is empty.
fn take<'a, T>(range: &Range<'a, T>, end: End) -> Option<(usize, &'a mut T)> {
    let mut guard = range.lock().unwrap_or_else(PoisonError::into_inner);
    let (first, left) = &mut *guard;
    let tasks = std::mem::take(left);
    match end {
        End::Front => {
            let (t, rest) = tasks.split_first_mut()?;
            let i = *first;
            (*first, *left) = (i + 1, rest);
            Some((i, t))
        }
        End::Back => {
            let (t, rest) = tasks.split_last_mut()?;
            let i = *first + rest.len();
            *left = rest;
            Some((i, t))
        }
    }
}

/// Counts a task as finished when it returns or unwinds, so that the caller's wait ends either way.
struct Done<'a>(&'a AtomicUsize);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

/// `first` on this thread with `helpers` jobs of `help` beside it for other threads to take (nested joins, on
/// the stack).
fn fan(helpers: usize, help: &(impl Fn() + Sync), first: &(impl Fn() + Sync)) {
    if helpers == 0 {
        first();
    } else {
        rayon::join(|| fan(helpers - 1, help, first), help);
    }
}
