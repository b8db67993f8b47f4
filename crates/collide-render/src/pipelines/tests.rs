use super::*;

#[test]
fn cube_faces_wind_counter_clockwise_from_outside() {
    let v = cube_vertices();
    assert_eq!(v.len(), 36);
    for t in v.chunks(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|x| glam::Vec3::from(x.position));
        let n = glam::Vec3::from(t[0].normal);
        assert!((b - a).cross(c - a).dot(n) > 0.0, "triangle {t:?} winds clockwise", t = [a, b, c]);
    }
}
