//! Huge but finite coordinates must cost no more than they must: a few bodies at ±1e30 among ordinary ones must
//! not make a structure sized on the scene's bounds pile the ordinary bodies into one cell, leaf or region (an
//! octree, a grid, multi-box pruning) and test them all against each other.
//!
//! The check compares the [`Stats::pair_tests`](crate::Stats::pair_tests) of a fresh structure on an ordinary
//! scene with those on the same scene plus the outliers of [`with_outliers`]: one of them spans ±1e30 and
//! overlaps every other body, so the outliers bring `n` real pairs, and the test count may grow by about that
//! much, never by a factor. An algorithm whose `stats` report no tests passes trivially.

use super::Failure;
use super::scenes::{uniform, with_outliers};
use crate::{Broadphase, Frame, PairList};
use collide_math::Rng;

/// The most the outliers may multiply the box tests of the ordinary scene by, after the tests their own `n`
/// pairs cost are added: generous, because the test is against a collapse (hundreds of times more), not a tuning.
pub const OUTLIER_TEST_FACTOR: u64 = 3;

/// Pair tests of a fresh broadphase from `make` on 3000 ordinary boxes, without and with the outliers; a failure
/// when the second exceeds [`OUTLIER_TEST_FACTOR`] times the first plus four tests per body.
pub(super) fn check_outlier_cost(make: &dyn Fn() -> Box<dyn Broadphase>) -> Result<(), Box<Failure>> {
    let ordinary = uniform(&mut Rng::new(0x0071_1E25), 3000, (0.5, 2.0));
    let far = with_outliers(ordinary.clone());
    let mut out = PairList::new();
    let mut tests = |aabbs| {
        let mut bp = make();
        bp.find_pairs(&Frame::new(aabbs), &mut out);
        bp.stats().pair_tests
    };
    let (plain, with_far) = (tests(&ordinary), tests(&far));
    let bound = OUTLIER_TEST_FACTOR * plain + 4 * far.len() as u64;
    if with_far > bound {
        return Err(Box::new(Failure {
            scene: "far-outliers (cost)".into(),
            n: far.len(),
            problem: Some(format!(
                "five bodies at ±1e30 raised the box tests from {plain} to {with_far} (allowed: {bound}): the \
                 ordinary bodies were piled together; size the structure on where the bodies are, not on the bounds"
            )),
            ..Failure::default()
        }));
    }
    Ok(())
}
