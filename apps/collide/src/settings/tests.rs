use super::*;

#[test]
fn settings_round_trip_and_default_what_is_missing() {
    let mut s = Settings::default();
    s.debug_views.insert("octree-dup".into(), true);
    s.lights.push(Light { position: [1.0, 2.0, 3.0], color: [1.0; 3], range: 0.5 });
    assert_eq!(Settings::from_toml(&s.to_toml()).unwrap(), s);
    let partial = Settings::from_toml("render = false\ncamera = \"orbit\"").unwrap();
    assert!(!partial.render);
    assert_eq!(partial.camera, CameraMode::Orbit);
    assert_eq!(partial.flash_steps, Settings::default().flash_steps);
    assert!(Settings::from_toml("camera = \"sideways\"").is_err());
}
