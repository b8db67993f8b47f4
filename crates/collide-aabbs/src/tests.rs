use super::*;
use collide_math::{Aabb, Vec3};
use std::path::PathBuf;

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("collide-aabbs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Frames of `n` boxes whose corners are awkward floats: signed zeros, subnormals, large and tiny values.
fn frames(n: usize, count: usize) -> Vec<Vec<Aabb>> {
    let odd = [0.0, -0.0, f32::MIN_POSITIVE / 4.0, 1e30, -1e-30, 0.1, 3.5];
    (0..count)
        .map(|f| {
            (0..n)
                .map(|i| {
                    let c = Vec3::new(odd[(i + f) % odd.len()], i as f32 * 0.37, -(f as f32) * 1.5);
                    Aabb::new(c, c + Vec3::new(0.5, 0.0, f32::from_bits(1)))
                })
                .collect()
        })
        .collect()
}

fn world() -> Aabb {
    Aabb::new(Vec3::splat(-10.0), Vec3::splat(10.0))
}

fn write(path: &std::path::Path, frames: &[Vec<Aabb>]) {
    let mut w = Writer::create(path, "round trip", "Spheres", frames[0].len(), world()).unwrap();
    for f in frames {
        w.write_frame(f).unwrap();
    }
    assert_eq!(w.finish().unwrap(), frames.len() as u64);
}

fn bits(b: &Aabb) -> [u32; 6] {
    [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z].map(f32::to_bits)
}

#[test]
fn a_written_file_reads_back_bit_for_bit() {
    let dir = scratch("round-trip");
    let path = dir.join("x.aabbs");
    let written = frames(5000, 4);
    write(&path, &written);
    assert!(!dir.join("x.aabbs.partial").exists());
    let mut r = Reader::open(&path).unwrap();
    assert_eq!(r.header().n, 5000);
    assert_eq!(r.header().frames, 4);
    assert_eq!((r.header().scene_name.as_str(), r.header().objects_type.as_str()), ("round trip", "Spheres"));
    assert_eq!(r.header().world, world());
    let mut out = Vec::new();
    for expected in &written {
        assert!(r.read_frame(&mut out).unwrap());
        assert_eq!(out.len(), expected.len());
        assert!(out.iter().zip(expected).all(|(a, b)| bits(a) == bits(b)));
    }
    assert!(!r.read_frame(&mut out).unwrap(), "the end");
    // Scrubbing: any frame, again.
    r.seek(2).unwrap();
    assert!(r.read_frame(&mut out).unwrap());
    assert!(out.iter().zip(&written[2]).all(|(a, b)| bits(a) == bits(b)));
    assert_eq!(r.next_frame(), 3);
}

#[test]
fn reading_allocates_nothing_once_the_buffer_has_grown() {
    let dir = scratch("reuse");
    let path = dir.join("x.aabbs");
    write(&path, &frames(3000, 3));
    let mut r = Reader::open(&path).unwrap();
    let mut out = Vec::new();
    r.read_frame(&mut out).unwrap();
    let (ptr, cap) = (out.as_ptr(), out.capacity());
    while r.read_frame(&mut out).unwrap() {}
    assert_eq!((out.as_ptr(), out.capacity()), (ptr, cap), "the caller's buffer is reused");
}

/// Broadmark's `Scene` constructor and `ValidateHeader`, ported line by line from its C++ (not our decoder):
/// the size check, the names, the counts, the padding and the world box.
fn broadmark_accepts(bytes: &[u8]) -> Result<(), &'static str> {
    let fsize = bytes.len();
    if fsize <= 304 {
        return Err("The scene file is too small to be a valid scene file!");
    }
    let int = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let float = |at: usize| f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let (n, frames) = (int(256), int(260));
    let expected = 32 * n as i64 * (1 + frames as i64) + 304;
    if fsize as i64 != expected {
        return Err("The specified scene file is too small considering its header contents.");
    }
    for name in [&bytes[..128], &bytes[128..256]] {
        let strlen = name.iter().position(|&c| c == 0).unwrap_or(128);
        if strlen > 127 {
            return Err("unreadable name");
        }
        // ValidateString(str, 127).
        let mut i = 0;
        while i < 127 {
            if name[i] == 0 {
                if i == 0 {
                    return Err("empty name");
                }
                break;
            }
            if !(0x20..=0x7e).contains(&name[i]) {
                return Err("unprintable name");
            }
            i += 1;
        }
        while i < 127 {
            if name[i] != 0 {
                return Err("garbage after the name");
            }
            i += 1;
        }
    }
    if n <= 0 || frames <= 0 {
        return Err("negative number of objects or frames");
    }
    if int(264) != 0 || int(268) != 0 {
        return Err("invalid data (padding)");
    }
    let (min, max) = ([float(272), float(276), float(280)], [float(288), float(292), float(296)]);
    if !(min[0] <= max[0] && min[1] <= max[1] && min[2] <= max[2] && float(284) == 0.0 && float(300) == 0.0) {
        return Err("invalid world aabb");
    }
    // ValidateFrame on every frame: m_min <= m_max and w == 0.
    for b in bytes[304..].chunks_exact(32) {
        let f = |i: usize| f32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        if !(f(0) <= f(4) && f(1) <= f(5) && f(2) <= f(6) && f(3) == 0.0 && f(7) == 0.0) {
            return Err("invalid box");
        }
    }
    Ok(())
}

#[test]
fn a_file_collide_writes_passes_broadmarks_checks() {
    let dir = scratch("broadmark");
    let path = dir.join("x.aabbs");
    write(&path, &frames(100, 3));
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 304 + 32 * 100 * 3);
    assert_eq!(broadmark_accepts(&bytes), Ok(()));
    // Its `frames` field counts the frames after the first.
    assert_eq!(i32::from_le_bytes(bytes[260..264].try_into().unwrap()), 2);
    // The port does reject what it should (so that the pass above means something).
    let mut bad = bytes.clone();
    bad[264] = 1;
    assert!(broadmark_accepts(&bad).is_err());
    let mut bad = bytes;
    bad[0..128].fill(b'a');
    assert!(broadmark_accepts(&bad).is_err());
}

#[test]
fn the_writer_refuses_what_broadmark_would_reject() {
    let dir = scratch("refuse");
    let path = dir.join("x.aabbs");
    let long = "x".repeat(128);
    let e = Writer::create(&path, &long, "Spheres", 10, world()).unwrap_err().to_string();
    assert!(e.ends_with("bad header: the scene name is 128 characters long; at most 127 fit with the NUL"), "{e}");
    let e = Writer::create(&path, "", "Spheres", 10, world()).unwrap_err().to_string();
    assert!(e.ends_with("the scene name is empty"), "{e}");
    let e = Writer::create(&path, "ok", "tab\there", 10, world()).unwrap_err().to_string();
    assert!(e.ends_with("the objects type has an unprintable byte 0x09 at offset 3"), "{e}");
    let e = Writer::create(&path, "ok", "ok", 0, world()).unwrap_err().to_string();
    assert!(e.ends_with("bad header: n = 0; it must be at least 1"), "{e}");
    assert!(!path.exists() && !dir.join("x.aabbs.partial").exists(), "nothing created");

    let mut w = Writer::create(&path, &"x".repeat(127), "Spheres", 2, world()).unwrap();
    let e = w.write_frame(&[world()]).unwrap_err().to_string();
    assert!(e.ends_with("frame 0 has 1 boxes; this file holds 2 per frame (the format's count is fixed)"), "{e}");
    let nan = Aabb::new(Vec3::new(0.0, f32::NAN, 0.0), Vec3::ONE);
    let e = w.write_frame(&[world(), nan]).unwrap_err().to_string();
    assert!(e.contains(": frame 0, box 1: box corners must be finite"), "{e}");
    w.write_frame(&[world(), world()]).unwrap();
    let e = w.finish().unwrap_err().to_string();
    assert!(e.ends_with("1 frame(s) recorded; a .aabbs file needs at least 2 (the first, and one more: Broadmark's reader wants frames ≥ 1)"), "{e}");
    assert!(!path.exists() && !dir.join("x.aabbs.partial").exists(), "an unfinished file is removed");
}

/// A good file's bytes, for the bad-file cases to spoil.
fn good_bytes(dir: &std::path::Path, n: usize, count: usize) -> Vec<u8> {
    let path = dir.join("good.aabbs");
    write(&path, &frames(n, count));
    std::fs::read(&path).unwrap()
}

/// The error reading the file made of `bytes` (opening, then every frame).
fn error_of(dir: &std::path::Path, bytes: &[u8]) -> String {
    let path = dir.join("bad.aabbs");
    std::fs::write(&path, bytes).unwrap();
    let mut out = Vec::new();
    let result = Reader::open(&path).and_then(|mut r| {
        while r.read_frame(&mut out)? {}
        Ok(())
    });
    let e = result.expect_err("must be rejected").to_string();
    let prefix = format!("{}: ", path.display());
    assert!(e.starts_with(&prefix), "names the file: {e}");
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    e[prefix.len()..].to_owned()
}

#[test]
fn truncated_files_say_where_they_end() {
    let dir = scratch("truncated");
    let good = good_bytes(&dir, 10, 3);
    assert_eq!(error_of(&dir, &good[..100]), "truncated: 100 bytes, shorter than the 304-byte header");
    assert_eq!(
        error_of(&dir, &good[..304 + 320 + 40]),
        "truncated: the file ends 40 bytes into frame 1 (a frame is 320 bytes); the header promises 1264 bytes, the \
         file has 664"
    );
}

#[test]
fn a_frame_count_that_does_not_match_the_size() {
    let dir = scratch("count");
    let good = good_bytes(&dir, 10, 3);
    assert_eq!(
        error_of(&dir, &good[..304 + 640]),
        "the frame count does not match the size: the header counts 3 frames (its `frames` field is 2, plus the first \
         frame), the file holds 2"
    );
    let mut long = good.clone();
    long.extend_from_slice(&good[304..304 + 330]);
    assert_eq!(
        error_of(&dir, &long),
        "the frame count does not match the size: the header counts 3 frames (its `frames` field is 2, plus the first \
         frame), the file holds 4 and 10 bytes more"
    );
}

#[test]
fn wrong_headers_name_the_field() {
    let dir = scratch("header");
    let good = good_bytes(&dir, 10, 3);
    let spoil = |at: usize, bytes: &[u8]| {
        let mut b = good.clone();
        b[at..at + bytes.len()].copy_from_slice(bytes);
        error_of(&dir, &b)
    };
    assert_eq!(spoil(264, &7i32.to_le_bytes()), "bad header: padding 1 is 7; it must be 0");
    assert_eq!(spoil(268, &(-1i32).to_le_bytes()), "bad header: padding 2 is -1; it must be 0");
    assert_eq!(spoil(256, &0i32.to_le_bytes()), "bad header: n = 0; it must be at least 1");
    assert_eq!(spoil(256, &(-5i32).to_le_bytes()), "bad header: n = -5; it must be at least 1");
    assert_eq!(spoil(260, &0i32.to_le_bytes()), "bad header: frames = 0; it must be at least 1");
    assert_eq!(spoil(0, &[b'a'; 128]), "bad header: the scene name has no NUL in its 128 bytes");
    assert_eq!(spoil(128, &[0]), "bad header: the objects type is empty");
    assert_eq!(spoil(200, b"z"), "bad header: the objects type has a byte after its NUL, at offset 72");
    assert_eq!(spoil(3, &[7]), "bad header: the scene name has an unprintable byte 0x07 at offset 3");
    assert_eq!(spoil(284, &1f32.to_le_bytes()), "bad header: the world box has w = 1 and 0; both must be 0");
    let e = spoil(272, &100f32.to_le_bytes());
    assert!(e.starts_with("bad header: the world box is invalid: box has min > max on x"), "{e}");
}

#[test]
fn bad_boxes_are_named_by_frame_and_box() {
    let dir = scratch("boxes");
    let good = good_bytes(&dir, 10, 3);
    let at = |frame: usize, index: usize, field: usize| 304 + frame * 320 + index * 32 + field * 4;
    let spoil = |pos: usize, value: f32| {
        let mut b = good.clone();
        b[pos..pos + 4].copy_from_slice(&value.to_le_bytes());
        error_of(&dir, &b)
    };
    let e = spoil(at(2, 7, 1), f32::NAN);
    assert!(e.starts_with("frame 2, box 7: box corners must be finite, got min [") && e.contains("NaN"), "{e}");
    let e = spoil(at(1, 3, 6), -1e6);
    assert!(e.starts_with("frame 1, box 3: box has min > max on z: min ["), "{e}");
    let e = spoil(at(0, 9, 4), f32::NEG_INFINITY);
    assert!(e.starts_with("frame 0, box 9: box corners must be finite") && e.contains("-inf"), "{e}");
    assert_eq!(spoil(at(0, 4, 7), 2.0), "frame 0, box 4: the fourth components are 0 and 2; both must be 0");
}

#[test]
fn check_frames_streams_ahead_and_comes_back() {
    let dir = scratch("check");
    let good = good_bytes(&dir, 10, 3);
    let path = dir.join("good.aabbs");
    let mut r = Reader::open(&path).unwrap();
    let mut scratch = Vec::new();
    r.check_frames(u64::MAX, &mut scratch).unwrap();
    assert_eq!(r.next_frame(), 0);
    let mut bad = good;
    bad[304 + 2 * 320 + 5 * 32..][..4].copy_from_slice(&f32::NAN.to_le_bytes());
    std::fs::write(&path, &bad).unwrap();
    let mut r = Reader::open(&path).unwrap();
    r.check_frames(2, &mut scratch).unwrap();
    let e = r.check_frames(3, &mut scratch).unwrap_err().to_string();
    assert!(e.contains("frame 2, box 5: box corners must be finite"), "{e}");
}

#[test]
fn file_bytes_is_the_header_plus_every_frame() {
    // 304 header bytes, then 32 bytes a box, n boxes a frame: counted by hand.
    assert_eq!(file_bytes(10, 3), 304 + 960);
    assert_eq!(file_bytes(3, 7), 304 + 672);
    assert_eq!(file_bytes(1, 2), 368);
    assert_eq!(file_bytes(100_000, 0), 304, "no frames: the header alone");
    // And a file written with those counts is that long.
    let dir = scratch("file-bytes");
    let path = dir.join("x.aabbs");
    write(&path, &frames(10, 3));
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 1264);
}

#[test]
fn the_writer_counts_the_frames_it_has_written_and_knows_its_boxes_per_frame() {
    let dir = scratch("writer-counts");
    let mut w = Writer::create(&dir.join("x.aabbs"), "counts", "Cubes", 3, world()).unwrap();
    assert_eq!((w.frames(), w.boxes_per_frame()), (0, 3));
    let frame = [world(); 3];
    for written in 1..=3 {
        w.write_frame(&frame).unwrap();
        assert_eq!(w.frames(), written);
    }
    // A refused frame is not counted.
    assert!(w.write_frame(&frame[..2]).is_err());
    assert_eq!((w.frames(), w.boxes_per_frame()), (3, 3));
    assert_eq!(w.finish().unwrap(), 3);
}

#[test]
fn a_file_of_exactly_two_frames_is_finished() {
    let dir = scratch("two-frames");
    let path = dir.join("x.aabbs");
    let mut w = Writer::create(&path, "two", "Cubes", 2, world()).unwrap();
    w.write_frame(&[world(), world()]).unwrap();
    w.write_frame(&[world(), world()]).unwrap();
    assert_eq!(w.finish().unwrap(), 2);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 304 + 2 * 2 * 32);
    // Broadmark's `frames` field: the one frame after the first.
    assert_eq!(i32::from_le_bytes(bytes[260..264].try_into().unwrap()), 1);
    assert_eq!(broadmark_accepts(&bytes), Ok(()));
}

#[test]
fn a_header_of_i32_max_boxes_passes_the_writers_check_and_one_more_does_not() {
    let header =
        |n: u32| Header { scene_name: "big".into(), objects_type: "Cubes".into(), n, frames: 2, world: world() };
    assert_eq!(header(2_147_483_647).check(), Ok(()));
    assert_eq!(header(2_147_483_646).check(), Ok(()));
    assert_eq!(header(2_147_483_648).check(), Err(Problem::Count { field: "n", value: 2_147_483_648 }));
    assert_eq!(header(u32::MAX).check(), Err(Problem::Count { field: "n", value: 4_294_967_295 }));
}

#[test]
fn a_file_as_long_as_the_header_is_judged_by_its_header() {
    let dir = scratch("header-only");
    let good = good_bytes(&dir, 10, 3);
    // 304 bytes: not shorter than the header, so the header is read and promises frames that are not there.
    assert_eq!(
        error_of(&dir, &good[..304]),
        "the frame count does not match the size: the header counts 3 frames (its `frames` field is 2, plus the first \
         frame), the file holds 0"
    );
    assert_eq!(error_of(&dir, &good[..303]), "truncated: 303 bytes, shorter than the 304-byte header");
}

#[test]
fn a_file_that_shrinks_after_opening_is_truncated_where_it_now_ends() {
    // 3000 boxes a frame (96 000 bytes): a frame is read in two chunks, of 2048 boxes (65 536 bytes) and 952.
    let dir = scratch("shrinks");
    let path = dir.join("x.aabbs");
    write(&path, &frames(3000, 3));
    let mut r = Reader::open(&path).unwrap();
    let mut out = Vec::new();
    assert!(r.read_frame(&mut out).unwrap());
    // Cut after the first chunk of frame 1: 304 + 96 000 + 65 536 bytes.
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(161_840).unwrap();
    let e = r.read_frame(&mut out).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}: truncated: the file ends 65536 bytes into frame 1 (a frame is 96000 bytes); the header promises \
             288304 bytes, the file has 161840",
            path.display()
        )
    );
    // Cut inside the second chunk of frame 1, 70 000 bytes into it: what is said is where the file ends, not the
    // chunks decoded before the cut.
    write(&path, &frames(3000, 3));
    let mut r = Reader::open(&path).unwrap();
    assert!(r.read_frame(&mut out).unwrap());
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(304 + 96_000 + 70_000).unwrap();
    let e = r.read_frame(&mut out).unwrap_err().to_string();
    assert!(
        e.ends_with(
            ": truncated: the file ends 70000 bytes into frame 1 (a frame is 96000 bytes); the header \
         promises 288304 bytes, the file has 166304"
        ),
        "{e}"
    );
    // Cut back into frame 0 while frame 2 is next: the file ends in frame 0.
    r.seek(2).unwrap();
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(304 + 500).unwrap();
    let e = r.read_frame(&mut out).unwrap_err().to_string();
    assert!(
        e.ends_with(
            ": truncated: the file ends 500 bytes into frame 0 (a frame is 96000 bytes); the header \
         promises 288304 bytes, the file has 804"
        ),
        "{e}"
    );
}
