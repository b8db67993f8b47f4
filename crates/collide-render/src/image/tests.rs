use super::*;

#[test]
fn diff_counts_pixels_beyond_the_threshold() {
    let a = Image { width: 2, height: 1, pixels: vec![10, 10, 10, 255, 0, 0, 0, 255] };
    let mut b = a.clone();
    b.pixels[4] = 100;
    let d = a.diff(&b, 16).unwrap();
    assert_eq!(d.max, 100);
    assert!((d.differing - 0.5).abs() < 1e-12);
    assert!((d.mean - 100.0 / 6.0).abs() < 1e-9);
    assert!(a.diff(&Image { width: 1, height: 1, pixels: vec![0; 4] }, 0).is_err());
}

#[test]
fn png_round_trips() {
    let a = Image { width: 3, height: 2, pixels: (0..24).map(|i| (i * 10) as u8).collect() };
    let path = std::env::temp_dir().join(format!("collide-render-roundtrip-{}.png", std::process::id()));
    a.save_png(&path).unwrap();
    let b = Image::load_png(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(a, b);
}
