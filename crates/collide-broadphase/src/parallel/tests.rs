use super::*;

fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool").install(f)
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
