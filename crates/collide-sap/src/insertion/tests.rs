use super::*;
use crate::endpoints::{first_unsorted, of_box};
use collide_math::Vec3;

/// A region of `boxes` (local index = body), its x axis as `endpoints` (not refreshed: the test gives the
/// array as the frame left it), quantised intervals that let every pair through to the exact test.
struct Harness {
    boxes: Vec<Aabb>,
    members: Vec<u32>,
    quant: [Vec<u32>; 3],
    pairs: PairSet,
    paired: Vec<u64>,
}

impl Harness {
    fn new(boxes: Vec<Aabb>) -> Self {
        let n = boxes.len();
        Self {
            members: (0..n as u32).collect(),
            quant: std::array::from_fn(|_| vec![0xFFFF; n]),
            boxes,
            pairs: PairSet::default(),
            paired: vec![0; 1],
        }
    }

    fn sort(&self, endpoints: Vec<u64>, budget: u64) -> (RegionAxis, Option<u64>) {
        let mut state = RegionAxis { endpoints, ..RegionAxis::default() };
        let limit = Budget::new(u64::MAX);
        let frame = FrameView { aabbs: &self.boxes, pairs: &self.pairs, paired: &self.paired, budget: &limit };
        let region = RegionView { members: &self.members, quant: &self.quant };
        let swaps = sort_axis(&mut state, 0, &region, &frame, budget);
        (state, swaps)
    }
}

fn unit_x(x: f32) -> Aabb {
    Aabb::new(Vec3::new(x, 0.0, 0.0), Vec3::new(x + 1.0, 1.0, 1.0))
}

#[test]
fn a_begin_passing_an_end_adds_the_pair_after_the_exact_test() {
    // Body 0 = [0, 1], body 1 was [2, 3] and is now [0.5, 1.5]: its begin passes body 0's end.
    let h = Harness::new(vec![unit_x(0.0), unit_x(0.5)]);
    let arr = [of_box(&unit_x(0.0), 0, 0), of_box(&unit_x(0.5), 0, 1)].concat();
    let (state, swaps) = h.sort(arr, u64::MAX);
    assert_eq!(swaps, Some(1));
    assert_eq!(state.adds, vec![Pair::new(0, 1).key()]);
    assert_eq!((state.tests, state.removes.len()), (1, 0));
    assert_eq!(first_unsorted(&state.endpoints), None);
}

#[test]
fn touching_boxes_overlap_and_separated_ones_are_tested_but_not_added() {
    // Body 1 was [2, 3] and is now [1, 2]: it touches body 0 = [0, 1], and its begin sorts before 0's end
    // (closed intervals: on equal values a begin comes first).
    let h = Harness::new(vec![unit_x(0.0), unit_x(1.0)]);
    let arr = [of_box(&unit_x(0.0), 0, 0), of_box(&unit_x(1.0), 0, 1)].concat();
    let (state, swaps) = h.sort(arr, u64::MAX);
    assert_eq!(swaps, Some(1));
    assert_eq!(state.adds, vec![Pair::new(0, 1).key()]);
    // Apart on y: the begin still passes the end on x, the exact test fails.
    let far = Aabb::new(Vec3::new(0.5, 5.0, 0.0), Vec3::new(1.5, 6.0, 1.0));
    let h = Harness::new(vec![unit_x(0.0), far]);
    let arr = [of_box(&unit_x(0.0), 0, 0), of_box(&far, 0, 1)].concat();
    let (state, _) = h.sort(arr, u64::MAX);
    assert_eq!((state.tests, state.adds.len()), (1, 0));
}

#[test]
fn an_end_passing_a_begin_removes_a_known_pair() {
    // Body 1 moves from [0.5, 1.5] to [-2, -1]: its end passes body 0's begin; the pair was in the set.
    let mut h = Harness::new(vec![unit_x(0.0), unit_x(-2.0)]);
    h.pairs.insert(Pair::new(0, 1).key());
    h.paired[0] = 0b11;
    let arr = [of_box(&unit_x(0.0), 0, 0), of_box(&unit_x(-2.0), 0, 1)].concat();
    let (state, swaps) = h.sort(arr, u64::MAX);
    assert_eq!(swaps, Some(4));
    assert_eq!(state.removes, vec![Pair::new(0, 1).key()]);
    assert!(state.adds.is_empty());
    // Without the paired bits the probe is skipped: a pair not in the set is never looked up.
    h.paired[0] = 0b01;
    let arr = [of_box(&unit_x(0.0), 0, 0), of_box(&unit_x(-2.0), 0, 1)].concat();
    assert!(h.sort(arr, u64::MAX).0.removes.is_empty());
}

#[test]
fn the_budget_stops_the_sort() {
    let h = Harness::new(vec![unit_x(2.0), unit_x(0.0)]);
    let arr = [of_box(&unit_x(2.0), 0, 0), of_box(&unit_x(0.0), 0, 1)].concat();
    assert_eq!(h.sort(arr.clone(), 0).1, None);
    assert_eq!(h.sort(arr, 4).1, Some(4));
}
