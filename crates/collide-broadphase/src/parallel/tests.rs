use super::*;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool")
}

fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    pool(threads).install(f)
}

#[test]
fn on_worker_runs_on_a_pool_thread_and_inline_when_already_on_one() {
    assert_eq!(rayon::current_thread_index(), None, "the test harness's thread is not a pool thread");
    let (index, thread) = on_worker(|| (rayon::current_thread_index(), std::thread::current().id()));
    assert!(index.is_some(), "handed to the global pool");
    assert_ne!(thread, std::thread::current().id());
    in_pool(2, || {
        let here = std::thread::current().id();
        assert_eq!(on_worker(|| std::thread::current().id()), here, "already on a pool thread: run inline");
    });
    assert_eq!(on_worker(|| 7), 7);
}

/// `keep_awake` runs its closure on the calling thread and returns its value, on 1, 2 and 4 threads (more
/// threads than this machine's cores included) and from outside a pool; the closure's own parallel sections
/// (nested joins whose halves other threads steal, and halves this thread runs while it waits) finish, and the
/// other threads do run them while kept awake — none deadlocks on a spinner.
#[test]
fn keep_awake_runs_the_closure_here_and_its_parallel_work_anywhere() {
    assert_eq!(keep_awake(|| 5), 5, "outside a pool: just the closure");
    for threads in [1, 2, 4] {
        in_pool(threads, || {
            let here = std::thread::current().id();
            for round in 0..50u64 {
                let (thread, sum, helpers) = keep_awake(|| {
                    let ids: Vec<_> = (0..64u64)
                        .into_par_iter()
                        .map(|i| {
                            // Unequal tasks, so that halves are stolen and waited on.
                            let spin = (i * 7919 + round) % 2000;
                            let mut x = i;
                            for k in 0..spin {
                                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(k);
                            }
                            std::hint::black_box(x);
                            (i, std::thread::current().id())
                        })
                        .collect();
                    let helpers = ids.iter().filter(|(_, t)| *t != here).count();
                    (std::thread::current().id(), ids.iter().map(|(i, _)| i).sum::<u64>(), helpers)
                });
                assert_eq!(thread, here, "{threads} threads: the closure runs on the calling thread");
                assert_eq!(sum, 63 * 64 / 2, "{threads} threads: every task ran once");
                if threads == 1 {
                    assert_eq!(helpers, 0);
                }
            }
        });
    }
}

#[test]
fn the_threshold_decides_and_needs_two_threads() {
    let p = Parallelism::default();
    assert_eq!(p.min_work(), 8192);
    in_pool(2, || {
        assert!(!p.is_parallel(8191));
        assert!(p.is_parallel(8192));
        assert!(Parallelism::with_min_work(0).is_parallel(0));
        assert!(!Parallelism::SERIAL.is_parallel(usize::MAX - 1));
    });
    in_pool(1, || assert!(!Parallelism::with_min_work(0).is_parallel(1 << 30)));
}

#[test]
fn chunks_append_in_task_order_whatever_the_path() {
    // Task t writes the pair (t, t + 1) and counts one test: the output must be in task order.
    let search = |r: Range<usize>, out: &mut Vec<Pair>, seen: &mut usize| {
        *seen += r.len();
        out.extend(r.clone().map(|t| Pair::new(t as u32, t as u32 + 1)));
        Tally { pair_tests: r.len() as u64, ..Tally::default() }
    };
    let want: Vec<Pair> = (0..1000).map(|t| Pair::new(t, t + 1)).collect();
    for (threads, p) in [(4, Parallelism::with_min_work(0)), (4, Parallelism::SERIAL), (1, Parallelism::default())] {
        let mut chunks = PairChunks::<usize>::default();
        let mut out = vec![Pair::new(7, 9)];
        let tally = in_pool(threads, || chunks.run(p, "test", 1000, 1000, &mut out, search));
        assert_eq!(out[0], Pair::new(7, 9), "appends");
        assert_eq!(&out[1..], &want[..], "{threads} threads, {p:?}");
        assert_eq!(tally.pair_tests, 1000);
    }
    let mut counted = [0usize; 4];
    in_pool(4, || Parallelism::with_min_work(0).for_each("test", 4, &mut counted, |i, c| *c = i + 1));
    assert_eq!(counted, [1, 2, 3, 4]);
}

/// Called from a thread outside any pool: a serial section runs every task here, in order; a single task runs here
/// even when the threshold says parallel (nothing to share out); several tasks above the threshold run on rayon's
/// threads (the global pool's, which this thread is not one of) when the pool has more than one.
#[test]
fn for_each_runs_serial_sections_here_and_parallel_ones_on_the_pool() {
    assert_eq!(rayon::current_thread_index(), None, "the test harness's thread is not a pool thread");
    let here = std::thread::current().id();
    let order = std::sync::Mutex::new(Vec::new());
    let mut threads = vec![None; 5];
    Parallelism::SERIAL.for_each("test", usize::MAX - 1, &mut threads, |i, t| {
        *t = Some(std::thread::current().id());
        order.lock().expect("not poisoned").push(i);
    });
    assert!(threads.iter().all(|t| *t == Some(here)), "serial: every task on the calling thread");
    assert_eq!(*order.lock().expect("not poisoned"), [0, 1, 2, 3, 4], "serial: in task order");

    let mut one = [None];
    Parallelism::with_min_work(0).for_each("test", 1 << 20, &mut one, |_, t| *t = Some(std::thread::current().id()));
    assert_eq!(one, [Some(here)], "one task: run here, not sent to the pool");

    let mut several = vec![None; 4];
    Parallelism::with_min_work(0).for_each("test", 1 << 20, &mut several, |_, t| {
        *t = Some(std::thread::current().id());
    });
    assert!(several.iter().all(Option::is_some), "every task ran");
    if rayon::current_num_threads() > 1 {
        assert!(several.iter().all(|t| *t != Some(here)), "parallel: the tasks run on the pool's threads");
    }
}

/// What `search` was called with: its task range and how many pairs its buffer held on entry.
fn recording_search(
    calls: &std::sync::Mutex<Vec<(Range<usize>, usize)>>,
) -> impl Fn(Range<usize>, &mut Vec<Pair>, &mut usize) -> Tally + Sync + Send + '_ {
    move |r: Range<usize>, out: &mut Vec<Pair>, _: &mut usize| {
        calls.lock().expect("not poisoned").push((r.clone(), out.len()));
        out.extend(r.clone().map(|t| Pair::new(t as u32, t as u32 + 1)));
        Tally { pair_tests: r.len() as u64, ..Tally::default() }
    }
}

/// Serial (below the threshold, or `SERIAL`): one call over all the tasks, writing straight into `out` (it sees
/// what `out` already held).
#[test]
fn serial_pair_chunks_make_one_call_straight_into_out() {
    for (threads, p) in
        [(2, Parallelism::SERIAL), (2, Parallelism::with_min_work(5000)), (1, Parallelism::with_min_work(0))]
    {
        let calls = std::sync::Mutex::new(Vec::new());
        let mut chunks = PairChunks::<usize>::default();
        let mut out = vec![Pair::new(7, 9)];
        let tally = in_pool(threads, || chunks.run(p, "test", 1000, 1000, &mut out, recording_search(&calls)));
        assert_eq!(*calls.lock().expect("not poisoned"), [(0..1000, 1)], "{threads} threads, {p:?}");
        assert_eq!(out.len(), 1001);
        assert_eq!(tally.pair_tests, 1000);
    }
}

/// Parallel: the tasks cut into several chunks that cover every task exactly once, each searched into an empty
/// buffer of its own, appended in task order — on two threads, and on a pool wider than `CHUNKS_PER_THREAD`.
#[test]
fn parallel_pair_chunks_cover_every_task_once_in_several_chunks() {
    for (threads, tasks) in [(2, 1000), (2, 2), (2, 3), (40, 1000), (40, 7)] {
        let calls = std::sync::Mutex::new(Vec::new());
        let mut chunks = PairChunks::<usize>::default();
        let mut out = vec![Pair::new(7, 9)];
        let p = Parallelism::with_min_work(0);
        let tally = in_pool(threads, || chunks.run(p, "test", 1 << 20, tasks, &mut out, recording_search(&calls)));
        let mut calls = calls.into_inner().expect("not poisoned");
        calls.sort_by_key(|(r, _)| (r.start, r.end));
        assert!(calls.len() > 1, "{threads} threads, {tasks} tasks: cut into chunks, got {calls:?}");
        assert!(calls.iter().all(|(_, held)| *held == 0), "each chunk searches into an empty buffer: {calls:?}");
        let mut next = 0;
        for (r, _) in &calls {
            assert_eq!(r.start, next, "{threads} threads, {tasks} tasks: chunks cover the tasks once: {calls:?}");
            next = r.end;
        }
        assert_eq!(next, tasks, "{threads} threads: chunks reach the last task: {calls:?}");
        let want: Vec<Pair> =
            std::iter::once(Pair::new(7, 9)).chain((0..tasks as u32).map(|t| Pair::new(t, t + 1))).collect();
        assert_eq!(out, want, "{threads} threads, {tasks} tasks");
        assert_eq!(tally.pair_tests, tasks as u64);
    }
}

/// `run_cut` takes its chunks' bounds from the caller: uneven cuts (here every task below 900 in the first
/// half of the chunks, empty chunks included), each task searched once, in a chunk of its own bounds, the pairs
/// appended in task order as with even cuts.
#[test]
fn pair_chunks_cut_where_the_caller_says_and_keep_the_task_order() {
    let tasks = 1000;
    // Chunk c of count: the first half share tasks 0..900, the second half 900..1000; chunk count - 1 and
    // count - 2 meet at the same bound (an empty chunk).
    let cut = |c: usize, count: usize| {
        let half = count / 2;
        let bound = if c <= half { c * 900 / half } else { 900 + (c - half) * 100 / (count - half) };
        if c == count - 1 { tasks } else { bound.min(tasks) }
    };
    let calls = std::sync::Mutex::new(Vec::new());
    let mut chunks = PairChunks::<usize>::default();
    let mut out = Vec::new();
    let p = Parallelism::with_min_work(0);
    let tally = in_pool(2, || chunks.run_cut(p, "test", 1 << 20, tasks, cut, &mut out, recording_search(&calls)));
    let mut calls = calls.into_inner().expect("not poisoned");
    calls.sort_by_key(|(r, _)| (r.start, r.end));
    let count = calls.len();
    assert!(count > 2, "{calls:?}");
    for (c, (r, _)) in calls.iter().enumerate() {
        assert_eq!((r.start, r.end), (cut(c, count), cut(c + 1, count)), "chunk {c} of {count}: {calls:?}");
    }
    assert!(calls.iter().any(|(r, _)| r.is_empty()), "the empty chunk ran too: {calls:?}");
    let want: Vec<Pair> = (0..tasks as u32).map(|t| Pair::new(t, t + 1)).collect();
    assert_eq!(out, want);
    assert_eq!(tally.pair_tests, tasks as u64);
}

/// Runs `f` on `pool` while another of its two threads is held in a job until `f` returns; returns what `f`
/// returns. The held thread steals nothing, so the spinners `keep_awake` pushes stay on the caller's queue.
fn with_other_thread_held<R: Send>(
    pool: &rayon::ThreadPool,
    f: impl FnOnce(std::sync::mpsc::Sender<()>) -> R + Send,
) -> R {
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    pool.spawn(move || {
        started_tx.send(()).expect("the test waits");
        let _ = release_rx.recv();
    });
    started_rx.recv().expect("the holding job started");
    pool.install(|| f(release_tx))
}

/// A spinner that the calling thread itself runs while still inside the closure (here through `rayon::yield_now`,
/// the other thread being busy) returns at once: were it to spin until the closure returned, it would wait on
/// itself forever.
#[test]
fn a_spinner_run_by_the_calling_thread_returns_at_once() {
    let pool = pool(2);
    let ran = with_other_thread_held(&pool, |release| {
        let ran = keep_awake(rayon::yield_now);
        let _ = release.send(());
        ran
    });
    assert_eq!(ran, Some(rayon::Yield::Executed), "the closure's yield ran the spinner on the calling thread");
}

/// A spinner that another thread picks up only after the closure has returned stops at once: `keep_awake`
/// returns. The other thread is held until the closure has returned; the caller then runs a job of its own that
/// releases it and waits for it, so that it steals the spinner (the oldest job on the caller's queue) first.
#[test]
fn a_spinner_stolen_after_the_closure_returned_stops_at_once() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let pool = pool(2);
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let seen = done.clone();
    with_other_thread_held(&pool, move |release| {
        keep_awake(move || {
            // Queued behind the spinner: runs on this thread once the closure has returned.
            rayon::spawn(move || {
                let flag = seen.clone();
                // Queued above the spinner: the released thread steals the spinner first, then this.
                rayon::spawn(move || flag.store(true, Ordering::Release));
                let _ = release.send(());
                while !seen.load(Ordering::Acquire) {
                    std::hint::spin_loop();
                }
            });
        });
    });
    assert!(done.load(Ordering::Acquire));
}

/// The kit's probe counts each section that ran on rayon's threads, per name, on the dispatching thread: not a
/// serial one, nor one with a single task (which rayon runs inline); `take` returns the counts and resets them.
#[cfg(feature = "conformance")]
#[test]
fn the_probe_counts_the_sections_that_ran_in_parallel() {
    in_pool(2, || {
        let _ = probe::take();
        let parallel = Parallelism::with_min_work(0);
        let mut one = [0u32];
        let mut two = [0u32; 2];
        parallel.for_each("one task", 10, &mut one, |_, t| *t += 1);
        Parallelism::SERIAL.for_each("serial", 10, &mut two, |_, t| *t += 1);
        parallel.for_each("a", 10, &mut two, |_, t| *t += 1);
        parallel.for_each("b", 10, &mut two, |_, t| *t += 1);
        parallel.for_each("a", 10, &mut two, |_, t| *t += 1);
        assert_eq!((one, two), ([1], [4, 4]), "every task ran");
        assert_eq!(probe::take(), [("a", 2), ("b", 1)]);
        assert_eq!(probe::take(), [], "taking resets the counts");
    });
}

/// The kit's default threshold: set on this thread, `Parallelism::default()` returns it until cleared;
/// `set_default` returns the one it replaces.
#[cfg(feature = "conformance")]
#[test]
fn the_kit_sets_and_clears_this_threads_default_threshold() {
    let forced = Parallelism::with_min_work(3);
    assert_eq!(probe::set_default(Some(forced)), None);
    assert_eq!(Parallelism::default(), forced);
    assert_eq!(probe::set_default(None), Some(forced));
    assert_eq!(Parallelism::default().min_work(), Parallelism::DEFAULT_MIN_WORK);
}

/// The thread that keeps the pool awake knows it, through nested calls, and forgets it when the outer call
/// returns or unwinds; with one thread or outside a pool nothing is kept awake. A nested call still runs its
/// closure and returns its value.
#[test]
fn keep_awake_marks_its_thread_for_nested_calls_and_clears_the_mark() {
    assert!(!is_kept_awake());
    assert!(!keep_awake(is_kept_awake), "outside a pool there are no spinners");
    in_pool(1, || assert!(!keep_awake(is_kept_awake), "one thread: no spinners"));
    in_pool(2, || {
        assert!(!is_kept_awake());
        let (outer, inner, after) = keep_awake(|| {
            let outer = is_kept_awake();
            let inner = keep_awake(|| (is_kept_awake(), 11));
            (outer, inner, is_kept_awake())
        });
        assert!(outer);
        assert_eq!(inner, (true, 11), "nested: the closure runs, the mark holds");
        assert!(after, "a nested call leaves the outer mark alone");
        assert!(!is_kept_awake(), "cleared when the outer call returns");
        let unwound = std::panic::catch_unwind(|| keep_awake(|| panic!("inside keep_awake")));
        assert!(unwound.is_err());
        assert!(!is_kept_awake(), "cleared when the closure unwinds");
    });
}

/// A closure that panics after handing out parallel work (so that the other threads are awake and have stolen
/// their spinners) passes its panic on, and `keep_awake` returns: the spinners are stopped on unwind too. The
/// rounds run on a watchdog's thread, so that a hang fails the test instead of stalling the suite.
#[test]
fn keep_awake_stops_its_spinners_when_the_closure_panics() {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        in_pool(4, || {
            for round in 0..200u64 {
                let unwound = std::panic::catch_unwind(|| {
                    keep_awake(|| {
                        let sum: u64 = (0..256u64).into_par_iter().map(|i| (i * 31 + round) % 97).sum();
                        assert!(sum == u64::MAX, "the closure panics ({sum})");
                    })
                });
                assert!(unwound.is_err(), "round {round}: the panic is passed on");
            }
        });
        done.send(()).expect("the test waits");
    });
    finished
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("keep_awake returned after its closure panicked, in every round");
}

/// `for_each_owned` runs every task exactly once, with its index, on 1, 2 and 4 threads (more threads than tasks
/// and than this machine's cores included), parallel and serial, from inside a pool and from outside one.
#[test]
fn owned_sections_run_every_task_once_with_its_index() {
    for threads in [1, 2, 4] {
        for tasks in [1, 2, 3, 7, 64, 300] {
            for p in [Parallelism::with_min_work(0), Parallelism::SERIAL] {
                let mut ran = vec![0usize; tasks];
                in_pool(threads, || p.for_each_owned("test", tasks, &mut ran, |i, r| *r += i + 1));
                let want: Vec<usize> = (1..=tasks).collect();
                assert_eq!(ran, want, "{threads} threads, {tasks} tasks, {p:?}");
            }
        }
    }
    let mut ran = [0usize; 5];
    Parallelism::with_min_work(0).for_each_owned("test", 5, &mut ran, |i, r| *r = i * 10);
    assert_eq!(ran, [0, 10, 20, 30, 40], "from outside any pool");
}

/// With the pool's other thread held, the caller runs every task: its own share from the front, in order, then
/// the other thread's share from the back, one task at a time — the order a thief takes it in.
#[test]
fn an_owned_section_runs_its_share_forward_and_takes_the_others_from_the_back() {
    let pool = pool(2);
    let (order, caller) = with_other_thread_held(&pool, |release| {
        let order = std::sync::Mutex::new(Vec::new());
        let mut tasks = [(); 8];
        Parallelism::with_min_work(0).for_each_owned("test", 8, &mut tasks, |i, ()| {
            order.lock().expect("not poisoned").push(i);
        });
        let _ = release.send(());
        (order.into_inner().expect("not poisoned"), rayon::current_thread_index().expect("a pool thread"))
    });
    // Thread k owns the k-th half of the eight tasks.
    let want = if caller == 0 { [0, 1, 2, 3, 7, 6, 5, 4] } else { [4, 5, 6, 7, 3, 2, 1, 0] };
    assert_eq!(order, want, "caller is pool thread {caller}");
}

/// With both threads free, each thread starts on its own share: the caller on the first task of its half, and the
/// other thread takes part (the tasks wait for each other, so one thread alone could not finish them). The
/// rounds run on a watchdog's thread, so that a hang fails the test instead of stalling the suite.
#[test]
fn each_thread_of_an_owned_section_starts_on_its_own_share() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        in_pool(2, || {
            for round in 0..20 {
                let started = AtomicUsize::new(0);
                let mut threads = [usize::MAX; 2];
                Parallelism::with_min_work(0).for_each_owned("test", 2, &mut threads, |_, t| {
                    *t = rayon::current_thread_index().expect("a pool thread");
                    // Each of the two tasks waits until both have started: they must run on two threads at once.
                    started.fetch_add(1, Ordering::AcqRel);
                    while started.load(Ordering::Acquire) < 2 {
                        std::thread::yield_now();
                    }
                });
                let caller = rayon::current_thread_index().expect("a pool thread");
                assert_eq!(threads[caller], caller, "round {round}: the caller ran the first task of its own share");
                assert_eq!(threads[1 - caller], 1 - caller, "round {round}: the other thread ran its share");
            }
        });
        done.send(()).expect("the test waits");
    });
    finished.recv_timeout(std::time::Duration::from_secs(60)).expect("both threads took part in every round");
}

/// A task that panics passes its panic on to the caller, and the section still returns (its wait counts the
/// panicked task as finished): on 2 and 4 threads, whichever thread the panicking task runs on.
#[test]
fn an_owned_section_passes_a_tasks_panic_on_and_returns() {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for threads in [2, 4] {
            in_pool(threads, || {
                for bad in [0, 5, 15] {
                    let mut tasks = [0u32; 16];
                    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        Parallelism::with_min_work(0).for_each_owned("test", 16, &mut tasks, |i, t| {
                            assert_ne!(i, bad, "task {bad} panics");
                            *t = 1;
                        });
                    }));
                    assert!(unwound.is_err(), "{threads} threads: task {bad}'s panic is passed on");
                }
            });
        }
        done.send(()).expect("the test waits");
    });
    finished.recv_timeout(std::time::Duration::from_secs(60)).expect("every section returned after its panic");
}

/// `join` returns both results either way; serial, it runs `a` before `b` on the calling thread; parallel, the
/// probe counts it under its section (and a serial join is not counted).
#[test]
fn join_runs_both_halves_serial_in_order_and_parallel_when_large() {
    let order = std::sync::Mutex::new(Vec::new());
    let (a, b) = Parallelism::SERIAL.join(
        "serial join",
        1 << 20,
        || {
            order.lock().unwrap().push('a');
            1
        },
        || {
            order.lock().unwrap().push('b');
            2
        },
    );
    assert_eq!((a, b, order.into_inner().unwrap()), (1, 2, vec!['a', 'b']));
    in_pool(2, || {
        #[cfg(feature = "conformance")]
        let _ = probe::take();
        let parallel = Parallelism::with_min_work(100);
        assert_eq!(parallel.join("small join", 99, || 3, || 4), (3, 4));
        assert_eq!(parallel.join("large join", 100, || 5, || 6), (5, 6));
        #[cfg(feature = "conformance")]
        assert_eq!(probe::take(), [("large join", 1)]);
    });
}
