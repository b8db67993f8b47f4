use super::*;

/// Partitions with blocks `(start, capacity)`, each writing `found` pairs: the output holds every pair once, the
/// block pairs where they were written, and the holes filled from the pairs past the total, then the spills.
fn run(blocks: &[(usize, usize)], found: &[usize]) -> (Vec<Pair>, Vec<Block>) {
    let mut searches: Vec<Block> = blocks.iter().map(|&(_, capacity)| Block { capacity, ..Block::default() }).collect();
    let mut out = vec![Pair::new(999_998, 999_999); 3];
    lay_out(&mut searches, &mut out);
    for (s, &(start, _)) in searches.iter().zip(blocks) {
        assert_eq!(s.start, start);
    }
    let mut id = 0;
    for (p, s) in searches.iter_mut().enumerate() {
        let (start, capacity) = (s.start, s.capacity);
        let mut sink = Sink::new(&mut out[start..start + capacity], &mut s.spill);
        for _ in 0..found[p] {
            sink.push(Pair::new(id, id + 1));
            // A candidate that fails takes no slot.
            sink.push_if(Pair::new(id, id + 2), false);
            id += 2;
        }
        assert_eq!(sink.len(), found[p]);
        s.written = sink.written();
    }
    gather(&mut searches, &mut out);
    (out, searches)
}

#[test]
fn gather_fills_the_holes_and_keeps_every_pair_once() {
    // Blocks of 4, 4, 4: the first finds 2 (a hole of 2), the second 6 (2 spilled), the third 4.
    let (out, searches) = run(&[(0, 4), (4, 4), (8, 4)], &[2, 6, 4]);
    let ids: Vec<u32> = out.iter().map(|p| p.a).collect();
    // The total is 12, the blocks' end: no pair lies past it, and partition 1's spill fills partition 0's hole.
    assert_eq!(out.len(), 12);
    assert_eq!(ids, [0, 2, 12, 14, 4, 6, 8, 10, 16, 18, 20, 22]);
    // The next frame's blocks: what each found and an eighth more, and 16.
    assert_eq!(searches.iter().map(|s| s.capacity).collect::<Vec<_>>(), [18, 22, 20]);
}

#[test]
fn gather_moves_the_pairs_past_the_total_into_the_holes() {
    // Blocks of 8 and 8: the first finds 1, the second 8: the total is 9, and the second block's pairs from slot
    // 9 on fill the first block's hole.
    let (out, _) = run(&[(0, 8), (8, 8)], &[1, 8]);
    let ids: Vec<u32> = out.iter().map(|p| p.a).collect();
    assert_eq!(ids, [0, 4, 6, 8, 10, 12, 14, 16, 2]);
}

#[test]
fn a_first_frame_spills_everything_into_a_grown_output() {
    let (out, _) = run(&[(0, 0), (0, 0)], &[3, 2]);
    let ids: Vec<u32> = out.iter().map(|p| p.a).collect();
    assert_eq!(ids, [0, 2, 4, 6, 8]);
}

/// A run's slots: the block's next ones when it has room for them all, none when it has not (the run then
/// writes pair by pair, spilling); only the slots taken count, in order after those written before.
#[test]
fn a_run_takes_the_slots_it_kept_and_none_past_the_block() {
    let (mut block, mut spill) = (vec![Pair::default(); 6], Vec::new());
    let mut sink = Sink::new(&mut block, &mut spill);
    sink.push(Pair::new(0, 1));
    let slots = sink.room(4).expect("room for 4 of the 5 slots left");
    slots[0] = Pair::new(1, 2);
    slots[1] = Pair::new(2, 3);
    slots[2] = Pair::new(7, 8);
    sink.take(2);
    assert!(sink.room(4).is_none(), "3 slots left");
    assert_eq!(sink.room(3).map(|s| s.len()), Some(3));
    assert_eq!((sink.written(), sink.len()), (3, 3));
    sink.push(Pair::new(3, 4));
    assert_eq!(sink.written(), 4);
    assert_eq!(&block[..4], &[Pair::new(0, 1), Pair::new(1, 2), Pair::new(2, 3), Pair::new(3, 4)]);
}

/// The pairs a run wrote as (its body, the other) come out smaller index first, from the slot asked for on; the
/// pairs before it are left as they are, and the spill is not touched.
#[test]
fn order_from_puts_the_smaller_index_first_from_the_slot_on() {
    let (mut block, mut spill) = (vec![Pair::default(); 4], vec![]);
    let mut sink = Sink::new(&mut block, &mut spill);
    sink.push(Pair { a: 9, b: 3 });
    let slots = sink.room(3).expect("room for 3");
    slots[0] = Pair { a: 5, b: 2 };
    slots[1] = Pair { a: 5, b: 8 };
    slots[2] = Pair { a: 5, b: 0 };
    sink.take(3);
    sink.push(Pair { a: 7, b: 1 });
    sink.order_from(1);
    assert_eq!(sink.len(), 5);
    assert_eq!(block, [Pair { a: 9, b: 3 }, Pair::new(2, 5), Pair::new(5, 8), Pair::new(0, 5)]);
    assert_eq!(spill, [Pair { a: 7, b: 1 }]);
}
