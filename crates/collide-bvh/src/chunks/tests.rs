use super::*;

#[test]
fn chunks_cover_the_items_in_order_on_both_paths() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for p in [Parallelism::with_min_work(0), Parallelism::SERIAL] {
        for items in [0, 1, 5, 1000] {
            let mut chunks = Chunks::<Vec<usize>>::default();
            pool.install(|| {
                chunks.run(p, "test", items, items, |range, seen| {
                    seen.clear();
                    seen.extend(range);
                });
            });
            let all: Vec<usize> = chunks.used().iter().flat_map(|c| c.state.iter().copied()).collect();
            assert_eq!(all, (0..items).collect::<Vec<_>>(), "{p:?} {items}");
            let parallel = p == Parallelism::with_min_work(0) && items >= 2;
            assert_eq!(chunks.used().len(), if parallel { PARALLEL_CHUNKS.min(items) } else { 1 });
        }
    }
}
