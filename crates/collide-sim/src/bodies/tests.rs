use super::*;

#[test]
fn remove_compacts_in_order_and_maps_indices() {
    let mut b = Bodies::default();
    for i in 0..5 {
        b.push_sphere(Vec3::splat(i as f32), Vec3::ZERO, 1.0);
    }
    let mut map = Vec::new();
    b.remove(&[1, 3], &mut map);
    assert_eq!(map, [0, Resize::REMOVED, 1, Resize::REMOVED, 2]);
    assert_eq!(b.position, [Vec3::ZERO, Vec3::splat(2.0), Vec3::splat(4.0)]);
    assert_eq!(b.len(), 3);
    assert_eq!(b.radius.len(), 3);
}

#[test]
fn a_reservation_the_allocator_refuses_is_an_error_not_an_abort() {
    let mut b = Bodies::default();
    assert!(b.try_reserve(1000).is_ok() && b.position.capacity() >= 1000);
    assert!(b.try_reserve(usize::MAX / 2).is_err());
    assert!(b.try_reserve(1 << 40).is_err(), "a terabyte of positions");
    assert_eq!(b.len(), 0);
}

#[test]
fn hash_sees_every_bit() {
    let mut b = Bodies::default();
    b.push_sphere(Vec3::ONE, Vec3::X, 0.5);
    let h = b.state_hash();
    b.velocity[0].x = f32::from_bits(1.0f32.to_bits() + 1);
    assert_ne!(h, b.state_hash());
}
