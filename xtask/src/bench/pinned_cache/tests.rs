use super::*;

fn run(algorithm: &str, ms: &[f64]) -> Cached {
    Cached {
        version: "abc1234".into(),
        recorded: "2025-01-31 14:05".into(),
        outcome: Outcome {
            algorithm: algorithm.into(),
            steps: ms
                .iter()
                .map(|&ms| Step { ms, active: algorithm.into(), phase: String::new(), pairs: 7, features: None })
                .collect(),
            hash: 0xdead_beef,
            check: "MISMATCH vs brute: 1 missing e.g. (0, 2), 0 extra".into(),
            status: "ok".into(),
            auto: None,
        },
    }
}

#[test]
fn runs_are_kept_by_scene_algorithm_and_code_version() {
    let dir = std::env::temp_dir().join(format!("collide-pinned-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut cache = PinnedCache::load(&dir).unwrap();
    cache.put("uniform-10000-110", run("grid", &[0.25, 1.0 / 3.0]));
    cache.put("uniform-10000-110", run("kd", &[2.0]));
    cache.put("uniform-10000-110", run("grid", &[0.5, 0.125]));
    cache.save().unwrap();
    let back = PinnedCache::load(&dir).unwrap();
    assert_eq!(back.get("uniform-10000-110", "grid", "abc1234"), Some(&run("grid", &[0.5, 0.125])), "replaced");
    assert_eq!(back.get("uniform-10000-110", "kd", "abc1234").unwrap().outcome.ms(), [2.0]);
    assert!(back.get("uniform-10000-110", "kd", "fff0000").is_none(), "other code");
    assert!(back.get("uniform-100000-110", "kd", "abc1234").is_none(), "other scene");
    std::fs::write(dir.join(FILE), format!("{HEADER}\nbroken\tline\n")).unwrap();
    let e = PinnedCache::load(&dir).unwrap_err();
    assert!(e.ends_with("selector-pinned-cache.tsv:2: 2 fields, expected 9"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn times_print_as_utc_dates() {
    assert_eq!(utc(0), "1970-01-01 00:00");
    assert_eq!(utc(951_782_400 + 3600 + 120), "2000-02-29 01:02");
    assert_eq!(utc(1_738_332_300), "2025-01-31 14:05");
}

#[test]
fn the_code_version_names_a_commit() {
    let v = code_version();
    assert!(v == "unknown" || v.chars().take_while(|c| *c != '+').all(|c| c.is_ascii_hexdigit()), "{v}");
}
