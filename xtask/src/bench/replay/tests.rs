use super::*;
use crate::bench::replay_play::testing::{folder_for, write_scene};

#[test]
fn a_bad_file_in_the_folder_is_one_line_naming_it() {
    let dir = folder_for("bad");
    let path = write_scene(&dir, 100, 2);
    let len = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(len - 10).unwrap();
    let e = scenes(Some(&dir), false, true).unwrap_err();
    assert!(e.starts_with(&path.display().to_string()) && e.contains("truncated") && !e.contains('\n'), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_or_empty_folder_is_one_line_naming_it() {
    let missing = std::env::temp_dir().join("collide-replay-bench-no-such-folder");
    let e = scenes(Some(&missing), false, true).unwrap_err();
    assert!(e.starts_with("--scenes ") && e.contains("no-such-folder") && !e.contains('\n'), "{e}");
    let empty = std::env::temp_dir().join(format!("collide-replay-bench-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let e = scenes(Some(&empty), true, true).unwrap_err();
    assert!(e.ends_with("no .aabbs files in this folder"), "{e}");
    std::fs::remove_dir_all(&empty).unwrap();
}
