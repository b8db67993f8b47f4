use super::*;

#[test]
fn machine_names_are_folder_safe() {
    assert_eq!(sanitize("ci-box.local"), "ci-box.local");
    assert_eq!(sanitize("a/b c"), "a-b-c");
    assert_eq!(sanitize(".."), "unknown");
    assert_eq!(sanitize(""), "unknown");
}
