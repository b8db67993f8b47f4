use super::*;

fn cube() -> Aabb {
    Aabb::from_center_radius(Vec3::ZERO, 10.0)
}

fn walker() -> Settings {
    Settings { camera: CameraMode::FirstPerson, ..Settings::default() }
}

#[test]
fn forward_ignores_pitch_and_momentum_carries_on() {
    let settings = walker();
    let mut rig = CameraRig::new(&cube());
    rig.position = Vec3::ZERO;
    rig.pitch = 1.2; // looking steeply up
    let w = MoveInput { forward: true, ..MoveInput::default() };
    for _ in 0..60 {
        rig.update(1.0 / 60.0, &w, &settings, &cube());
    }
    assert!(rig.position.y.abs() < 1e-5, "walking forward must stay on the ground plane");
    assert!(rig.position.z < -1.0, "forward is −z at yaw 0: {}", rig.position);
    let v = rig.velocity.length();
    assert!(v > 0.9 * settings.move_speed * 20.0, "reached its target speed: {v}");
    rig.update(1.0 / 60.0, &MoveInput::default(), &settings, &cube());
    assert!(rig.velocity.length() > 0.5 * v, "momentum after release");
}

#[test]
fn walls_stop_the_walker_and_let_it_slide() {
    let settings = walker();
    let mut rig = CameraRig::new(&cube());
    rig.position = Vec3::new(0.0, 0.0, -9.5);
    rig.yaw = 0.3; // mostly into the −z wall, a little to the right
    rig.pitch = 0.0;
    let w = MoveInput { forward: true, ..MoveInput::default() };
    for _ in 0..120 {
        rig.update(1.0 / 60.0, &w, &settings, &cube());
    }
    assert!(rig.position.z >= -10.0 + 0.2 - 1e-4, "stopped at the wall: {}", rig.position);
    assert!(rig.position.x > 1.0, "slid along it: {}", rig.position);
    assert!(rig.velocity.z >= 0.0);
}
