use super::*;

#[test]
fn float_keys_preserve_order_and_merge_signed_zeros() {
    let values = [-1.0e30f32, -3.5, -1.0, -1.0e-30, -0.0, 0.0, 1.0e-30, 0.5, 1.0, 7.25, 1.0e30];
    for w in values.windows(2) {
        assert!(float_key(w[0]) <= float_key(w[1]), "{} {}", w[0], w[1]);
        assert_eq!(w[0] < w[1], float_key(w[0]) < float_key(w[1]), "{} {}", w[0], w[1]);
    }
    assert_eq!(float_key(-0.0), float_key(0.0));
    for v in values {
        assert_eq!(key_float(float_key(v)), v + 0.0);
    }
}

#[test]
fn radix_sort_sorts_by_the_high_bits_stably() {
    let mut rng = collide_math::Rng::new(9);
    for n in [0, 5, 63, 64, 1000, 5000] {
        let mut keys: Vec<u64> = (0..n).map(|i| (rng.next_u64() & !0xFFFF_FFFF) | i as u64).collect();
        // A few equal high parts, to check stability on the low bits.
        if n > 10 {
            keys[3] = (keys[7] & !0xFFFF_FFFF) | 3;
        }
        let mut expected = keys.clone();
        expected.sort_by_key(|&k| k >> 32);
        let mut scratch = Vec::new();
        sort_by_high_bits(&mut keys, &mut scratch, 32);
        assert_eq!(keys, expected, "n = {n}");
    }
}
