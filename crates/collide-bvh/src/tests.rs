use crate::{LbvhConfig, LinearBvh};
use collide_broadphase::Parallelism;
use collide_broadphase::conformance::assert_conforms;

/// A threshold low enough that the kit's small scenes take the parallel paths.
const FORCED: Parallelism = Parallelism::with_min_work(16);

fn on_two_threads<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool").install(f)
}

#[test]
fn lbvh_conforms() {
    assert_conforms(|| Box::new(LinearBvh::new()));
    on_two_threads(|| {
        assert_conforms(|| Box::new(LinearBvh::with_config(LbvhConfig { parallelism: FORCED, ..LbvhConfig::default() })))
    });
}
