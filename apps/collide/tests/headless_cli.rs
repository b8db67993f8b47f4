//! The headless CLI as a user meets it: a good run prints a summary and writes one CSV row per step; every
//! kind of bad input gets one clear line naming the file, line and valid choices, exit code 2, and no file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn collide(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collide"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .expect("the binary runs")
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("collide-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Record `frames` steps of `bodies` bodies of the default config into `path` (a small, valid `.aabbs` file).
fn record_small(path: &Path, frames: u32, bodies: u32) {
    let (frames, bodies) = (frames.to_string(), format!("bodies={bodies}"));
    let args = ["--headless", "configs/default.toml", "--frames", &frames, "--set", &bodies, "--record"];
    let out = collide(&[&args[..], &[path.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Run headless on a config with `text`, asking for a CSV; assert exit 2, one stderr line starting with
/// `error: ` and containing each of `expected`, and that no CSV appeared.
fn rejects(name: &str, text: &str, extra: &[&str], expected: &[&str]) {
    let dir = scratch(name);
    let config = dir.join("bad.toml");
    std::fs::write(&config, text).unwrap();
    let csv = dir.join("out.csv");
    let mut args = vec!["--headless", config.to_str().unwrap(), "--frames", "3", "--csv", csv.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = collide(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{name}: exit code; stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{name}: one line, got: {stderr}");
    assert!(stderr.starts_with("error: "), "{name}: {stderr}");
    for e in expected {
        let e = e.replace("{file}", config.to_str().unwrap());
        assert!(stderr.contains(&e), "{name}: expected `{e}` in: {stderr}");
    }
    assert!(!csv.exists(), "{name}: nothing may be written");
    assert!(out.stdout.is_empty(), "{name}: no summary for a run that did not happen");
}

#[test]
fn a_good_run_prints_the_summary_and_writes_the_csv() {
    let dir = scratch("good");
    let csv = dir.join("x.csv");
    let out = collide(&[
        "--headless",
        "configs/default.toml",
        "--frames",
        "12",
        "--set",
        "bodies=500",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for line in
        ["steps      12", "step ms    mean", "broadphase mean", "phases ms  reorder", "pairs      mean", "hash "]
    {
        assert!(stdout.contains(line), "summary lacks `{line}`:\n{stdout}");
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for column in [
        "frame",
        "n",
        "algorithm",
        "dt_ms",
        "step_ms",
        "reorder_ms",
        "integrate_ms",
        "broadphase_ms",
        "narrowphase_ms",
        "resolution_ms",
        "pairs",
        "contacts",
        "tunnelled",
    ] {
        assert!(header.contains(&column), "CSV lacks column {column}");
    }
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 12, "one row per frame");
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let names = collide_algorithms_names();
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), header.len());
        assert_eq!(row[col("frame")], i.to_string());
        assert_eq!(row[col("n")], "500");
        assert!(names.contains(&row[col("algorithm")].to_owned()));
        // The timings are the step's: each phase took some time, the broadphase more than nothing (500 bodies),
        // and together no longer than the whole step; the fixed policy's dt is 1/60 s.
        let ms = |name: &str| row[col(name)].parse::<f64>().unwrap();
        let phases =
            ["reorder_ms", "integrate_ms", "aabbs_ms", "broadphase_ms", "narrowphase_ms", "resolution_ms", "walls_ms"];
        assert!(phases.iter().all(|p| ms(p) >= 0.0) && ms("broadphase_ms") > 0.0, "{row:?}");
        let sum: f64 = phases.iter().map(|p| ms(p)).sum();
        // Eight columns rounded to 4 decimals: the sum may be off by 8 half-units of the last digit.
        assert!(sum <= ms("step_ms") + 0.0004, "phases {sum} ms in a step of {} ms: {row:?}", ms("step_ms"));
        assert!((ms("dt_ms") - 1000.0 / 60.0).abs() < 1e-3, "{row:?}");
        assert!(row[col("pairs")].parse::<u64>().unwrap() >= row[col("contacts")].parse::<u64>().unwrap());
    }
}

fn collide_algorithms_names() -> Vec<String> {
    let out = collide(&["--help"]);
    let help = String::from_utf8_lossy(&out.stdout).to_string();
    let line = help.lines().find(|l| l.starts_with("Algorithms:")).expect("--help lists algorithms");
    line.trim_start_matches("Algorithms:").split(',').map(|s| s.trim().to_owned()).collect()
}

#[test]
fn a_missing_config_file_is_named() {
    let out = collide(&["--headless", "configs/does-not-exist.toml"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.starts_with("error: configs/does-not-exist.toml: cannot read config:"), "{stderr}");
}

#[test]
fn malformed_toml() {
    rejects("malformed", "bodies = 10\nscenario = \"uniform\n", &[], &["{file}:2:"]);
}

#[test]
fn a_set_value_that_starts_with_a_hyphen_is_named_in_one_line() {
    // Found by `cargo xtask fuzz`: clap took `-0` for an unknown flag and printed its usage over several lines.
    rejects("hyphen-set", "scenario = \"uniform\"\n", &["--set", "-0"], &["error: --set -0: expected KEY=VALUE"]);
}

#[test]
fn unknown_key() {
    rejects(
        "unknown-key",
        "scenario = \"uniform\"\nbodys = 10\n",
        &[],
        &["{file}:2:", "unknown field `bodys`", "`bodies`"],
    );
}

#[test]
fn unknown_scenario_lists_the_valid_ones() {
    rejects(
        "scenario",
        "scenario = \"clouds\"\n",
        &[],
        &["{file}:1:", "unknown scenario `clouds`", "thesis, thesis-slow"],
    );
}

#[test]
fn unknown_algorithm_lists_the_valid_ones() {
    rejects("algorithm-file", "algorithm = \"octtree\"\n", &[], &["{file}:1:", "valid algorithms: brute"]);
    rejects(
        "algorithm-set",
        "",
        &["--set", "algorithm=octtree"],
        &["--set algorithm=octtree", "valid algorithms: brute"],
    );
}

#[test]
fn bad_shapes_half_extents_and_friction_are_one_line() {
    rejects("shape-file", "bodies = 10\nshape = \"cube\"\n", &[], &["{file}:2:", "valid shapes: sphere, box, mixed"]);
    rejects("shape-set", "", &["--set", "shape=ball"], &["--set shape=ball: unknown shape `ball`; valid shapes"]);
    rejects("half-extents", "half_extents = [1, -1, 1]\n", &[], &["{file}:1:", "every half extent must be a positive"]);
    rejects("friction", "friction = -1\n", &[], &["{file}:1:", "friction = -1: must be zero or a positive number"]);
}

#[test]
fn zero_and_negative_counts_and_sizes() {
    rejects("zero-bodies", "bodies = 0\n", &[], &["{file}:1:", "bodies = 0"]);
    rejects("negative-bodies", "\nbodies = -3\n", &[], &["{file}:2:", "-3"]);
    rejects("zero-radius", "radius = 0.0\n", &[], &["{file}:1:", "radius = 0: must be a positive number"]);
    rejects("negative-width", "container_width = -4\n", &[], &["{file}:1:", "container_width = -4"]);
    rejects("set-zero", "", &["--set", "bodies=0"], &["--set bodies=0"]);
}

/// Two billion bodies used to abort with "memory allocation failed" (exit code 134); the config check estimates
/// the memory first, and a count this machine cannot hold is one line naming the key, exit code 2.
#[test]
fn a_body_count_or_frame_count_the_machine_cannot_hold() {
    rejects(
        "too-many-bodies",
        "bodies = 2000000000\n",
        &[],
        &["{file}:1:", "bodies = 2000000000: a run of 2000000000 bodies needs about", "bodies fit"],
    );
    let out = collide(&["--headless", "configs/default.toml", "--frames", "100000000000000"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: --set frames=100000000000000: frames = 100000000000000:"), "{stderr}");
    assert!(stderr.contains("use at most about") && stderr.trim_end().lines().count() == 1, "{stderr}");
}

#[test]
fn a_body_larger_than_the_container() {
    rejects("too-big", "radius = 3\ncontainer_width = 4\n", &[], &["{file}:2:", "does not fit in the container"]);
}

#[test]
fn a_missing_csv_folder_is_caught_before_the_run() {
    let out = collide(&["--headless", "configs/default.toml", "--frames", "2", "--csv", "/nonexistent-dir/x.csv"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("folder /nonexistent-dir does not exist"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn auto_says_what_it_did_and_writes_its_decisions() {
    let dir = scratch("auto");
    let (csv, decisions) = (dir.join("run.csv"), dir.join("decisions.csv"));
    let out = collide(&[
        "--headless",
        "configs/default.toml",
        "--frames",
        "40",
        "--set",
        "bodies=2000",
        "--set",
        "algorithm=auto",
        "--csv",
        csv.to_str().unwrap(),
        "--decisions",
        decisions.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("auto       ") && stdout.contains(" switches · "), "{stdout}");
    assert!(stdout.contains("candidates ") && stdout.contains("% of frames"), "{stdout}");
    let log = std::fs::read_to_string(&decisions).unwrap();
    let mut lines = log.lines();
    assert!(lines.next().unwrap().starts_with("frame,kind,from,to,n,pairs_per_body,speed_mean"));
    let first = lines.next().expect("at least the initial choice");
    assert!(first.starts_with("0,initial,"), "{first}");
    // The CSV's algorithm column names the candidate that answered each step, never `auto` itself.
    let text = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "algorithm").unwrap();
    let names = collide_algorithms_names();
    for row in text.lines().skip(1) {
        let active = row.split(',').nth(col).unwrap();
        assert!(active != "auto" && names.iter().any(|n| n == active), "{active}");
    }
}

#[test]
fn decisions_need_auto() {
    let dir = scratch("decisions-pinned");
    let decisions = dir.join("d.csv");
    let out = collide(&[
        "--headless",
        "configs/default.toml",
        "--frames",
        "3",
        "--set",
        "algorithm=sap",
        "--decisions",
        decisions.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("only `auto` makes decisions"), "{stderr}");
    assert!(!decisions.exists() && out.stdout.is_empty());
}

#[test]
fn auto_candidates_are_checked_by_name() {
    rejects(
        "candidates-file",
        "algorithm = \"auto\"\n[params.auto]\ncandidates = [\"sap\", \"sapp\"]\n",
        &[],
        &["{file}:3:", "`sapp` is not a candidate", "valid names: octree-dup"],
    );
    rejects(
        "candidates-set",
        "",
        &["--set", "params.auto.candidates=brute"],
        &["--set params.auto.candidates=brute", "`brute` is not a candidate"],
    );
    rejects("candidates-empty", "[params.auto]\ncandidates = []\n", &[], &["{file}:2:", "is empty"]);
}

/// The pairs column of a run's CSV, one entry per step.
fn pairs_per_step(csv: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let column = lines.next().unwrap().split(',').position(|c| c == "pairs").expect("a pairs column");
    lines.map(|l| l.split(',').nth(column).unwrap().parse().unwrap()).collect()
}

/// `--record` then `--replay`: the replay's boxes are the recorded ones bit for bit (recording the replay gives the
/// same file, byte for byte), and its pair counts per frame are the recorded run's, in another algorithm than the
/// recording's and in `auto`. (The pair sets themselves, frame by frame, are compared in collide-sim's replay
/// tests.)
#[test]
fn a_recorded_run_replays_bit_for_bit_with_the_same_pairs() {
    let dir = scratch("record-replay");
    let (rec, csv) = (dir.join("run.aabbs"), dir.join("run.csv"));
    let (rec_s, csv_s) = (rec.to_str().unwrap(), csv.to_str().unwrap());
    let out = collide(&[
        "--headless",
        "configs/default.toml",
        "--frames",
        "30",
        "--set",
        "bodies=400",
        "--set",
        "algorithm=sap",
        "--record",
        rec_s,
        "--csv",
        csv_s,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("recorded 30 frames of 400 boxes to {rec_s}")), "{stdout}");
    assert_eq!(std::fs::metadata(&rec).unwrap().len(), 304 + 30 * 400 * 32);
    let recorded = pairs_per_step(&csv);
    assert_eq!(recorded.len(), 30);
    assert!(recorded.iter().any(|&p| p > 0), "a scene with pairs: {recorded:?}");
    for algorithm in ["kd", "auto"] {
        let (again, csv2) = (dir.join(format!("{algorithm}.aabbs")), dir.join(format!("{algorithm}.csv")));
        let set = format!("algorithm={algorithm}");
        let out = collide(&[
            "--headless",
            "configs/default.toml",
            "--replay",
            rec_s,
            "--set",
            &set,
            "--record",
            again.to_str().unwrap(),
            "--csv",
            csv2.to_str().unwrap(),
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{algorithm}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains(&format!("collide headless: replay {rec_s}")), "{stdout}");
        assert!(stdout.contains("400 boxes · algorithm"), "{stdout}");
        assert!(std::fs::read(&rec).unwrap() == std::fs::read(&again).unwrap(), "{algorithm}: the boxes, bit for bit");
        assert_eq!(pairs_per_step(&csv2), recorded, "{algorithm}: pairs per frame");
    }
}

/// A recording holds its bodies in id order, whatever order the simulation keeps them in: without contact
/// response the bodies move independently, so a run that reorders them every 3 steps records the same file, byte
/// for byte, as one that never does.
#[test]
fn a_reordered_run_records_its_bodies_in_id_order() {
    let dir = scratch("record-reordered");
    let record = |every: &str| {
        let path = dir.join(format!("every-{every}.aabbs"));
        let out = collide(&[
            "--headless",
            "configs/default.toml",
            "--frames",
            "20",
            "--set",
            "bodies=500",
            "--set",
            "resolution=false",
            "--set",
            &format!("reorder_every={every}"),
            "--record",
            path.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::read(path).unwrap()
    };
    let (plain, reordered) = (record("0"), record("3"));
    assert_eq!(plain.len(), 304 + 20 * 500 * 32);
    assert!(plain == reordered, "the reordered run's recording differs from the plain run's");
}

/// Every bad-file case of a replay: one line naming the file (and the frame and box), exit code 2, no panic, no
/// output written.
#[test]
fn bad_replay_files_are_one_line_and_exit_code_2() {
    let dir = scratch("bad-replay");
    let good = dir.join("good.aabbs");
    record_small(&good, 3, 20);
    let bytes = std::fs::read(&good).unwrap();
    let frame = 20 * 32;
    assert_eq!(bytes.len(), 304 + 3 * frame);
    let spoil = |at: usize, with: &[u8]| {
        let mut b = bytes.clone();
        b[at..at + with.len()].copy_from_slice(with);
        b
    };
    let field = |frame_index: usize, index: usize, field: usize| 304 + frame_index * frame + index * 32 + field * 4;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", bytes[..304 + 100].to_vec(), "truncated: the file ends 100 bytes into frame 0"),
        ("short-header", bytes[..200].to_vec(), "truncated: 200 bytes, shorter than the 304-byte header"),
        ("padding", spoil(264, &7i32.to_le_bytes()), "bad header: padding 1 is 7; it must be 0"),
        ("n-zero", spoil(256, &0i32.to_le_bytes()), "bad header: n = 0; it must be at least 1"),
        ("n-negative", spoil(256, &(-3i32).to_le_bytes()), "bad header: n = -3; it must be at least 1"),
        ("no-nul", spoil(0, &[b'a'; 128]), "bad header: the scene name has no NUL in its 128 bytes"),
        ("min-max", spoil(field(1, 3, 6), &(-1e6f32).to_le_bytes()), "frame 1, box 3: box has min > max on z"),
        ("nan", spoil(field(2, 7, 0), &f32::NAN.to_le_bytes()), "frame 2, box 7: box corners must be finite"),
        (
            "count",
            bytes[..304 + 2 * frame].to_vec(),
            "the frame count does not match the size: the header counts 3 frames",
        ),
    ];
    for (name, bad, expected) in cases {
        let path = dir.join(format!("{name}.aabbs"));
        std::fs::write(&path, &bad).unwrap();
        let csv = dir.join(format!("{name}.csv"));
        let out = collide(&[
            "--headless",
            "configs/default.toml",
            "--replay",
            path.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: exit code; stderr: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{name}: one line, got: {stderr}");
        let prefix = format!("error: {}: {expected}", path.display());
        assert!(stderr.starts_with(&prefix), "{name}: expected `{prefix}…`, got: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(!csv.exists() && out.stdout.is_empty(), "{name}: nothing may be written");
    }
}

/// A file too big for memory streams, a frame at a time; only a frame too big to hold is refused, before anything
/// is read or allocated. The file here is sparse: 2 frames of 2^30 boxes (64 GiB on paper, nothing on disk).
#[test]
fn a_file_whose_frame_cannot_fit_in_memory_is_refused_before_reading() {
    let dir = scratch("too-big");
    let small = dir.join("small.aabbs");
    record_small(&small, 2, 20);
    let mut header = std::fs::read(&small).unwrap()[..304].to_vec();
    let n: i32 = 1 << 30;
    header[256..260].copy_from_slice(&n.to_le_bytes());
    let path = dir.join("huge.aabbs");
    let file = std::fs::File::create(&path).unwrap();
    std::io::Write::write_all(&mut &file, &header).unwrap();
    file.set_len(304 + 2 * 32 * u64::from(n.unsigned_abs())).unwrap();
    drop(file);
    let out = collide(&["--headless", "configs/default.toml", "--replay", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    let prefix = format!("error: {}: the file streams a frame at a time, but one frame must fit", path.display());
    assert!(stderr.starts_with(&prefix), "{stderr}");
}

/// A file far bigger than the machine's memory (a sparse file: 2^30 frames of 20 boxes, 687 GB on paper) plays
/// the frames asked for: it is streamed, a frame at a time, and never read whole.
#[test]
fn a_file_bigger_than_memory_streams_the_frames_it_plays() {
    let dir = scratch("bigger-than-memory");
    let small = dir.join("small.aabbs");
    record_small(&small, 2, 20);
    let recorded = std::fs::read(&small).unwrap();
    let mut header = recorded[..304].to_vec();
    // Broadmark's header counts the frames after the first.
    let frames: i32 = 1 << 30;
    header[260..264].copy_from_slice(&(frames - 1).to_le_bytes());
    let path = dir.join("huge.aabbs");
    let file = std::fs::File::create(&path).unwrap();
    // The first two frames are the recorded ones; the rest is a hole (all-zero boxes, valid and empty).
    std::io::Write::write_all(&mut &file, &header).unwrap();
    std::io::Write::write_all(&mut &file, &recorded[304..]).unwrap();
    file.set_len(304 + 20 * 32 * u64::from(frames.unsigned_abs())).unwrap();
    drop(file);
    let out = collide(&["--headless", "configs/default.toml", "--replay", path.to_str().unwrap(), "--frames", "5"]);
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("5 of its {frames} frames")), "{stdout}");
    assert!(stdout.contains("5 frames replayed"), "{stdout}");
}

/// `--record` writes every step, also when the clock grants a frame several steps (`accumulator` with a dt far
/// below a frame's wall time): the file holds as many frames as the CSV has step rows.
#[test]
fn a_recording_holds_every_step_when_a_frame_runs_several() {
    let dir = scratch("record-accumulator");
    let (rec, csv) = (dir.join("steps.aabbs"), dir.join("steps.csv"));
    let out = collide(&[
        "--headless",
        "configs/default.toml",
        "--frames",
        "20",
        "--set",
        "bodies=200",
        "--set",
        "time.policy=accumulator",
        "--set",
        "time.dt=0.0000001",
        "--record",
        rec.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let steps = pairs_per_step(&csv).len();
    assert!(steps > 20, "the frames ran several steps each: {steps} steps in 20 frames");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&format!("recorded {steps} frames of 200 boxes")), "{steps} steps; {stdout}");
}

/// The `tunnel` config prints the tunnelled count: above 0 with discrete detection, 0 with `--set ccd=true`.
#[test]
fn the_tunnel_config_counts_tunnelling_without_ccd_and_none_with_it() {
    let count = |extra: &[&str]| {
        let args = [&["--headless", "configs/tunnel.toml", "--frames", "120"][..], extra].concat();
        let out = collide(&args);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let line = stdout.lines().find(|l| l.starts_with("tunnelled ")).unwrap_or_else(|| panic!("{stdout}"));
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap()
    };
    assert!(count(&[]) > 0, "discrete detection misses hits");
    assert_eq!(count(&["--set", "ccd=true"]), 0);
}

/// A config written before `replay` chose the mode by itself (`scenario = "replay"` beside the file) still plays;
/// the scenario line alone is refused in one line that says what to write instead.
#[test]
fn an_old_replay_config_plays_or_says_what_to_write() {
    let dir = scratch("old-replay");
    let file = dir.join("old.aabbs");
    record_small(&file, 3, 40);
    let old = dir.join("old.toml");
    std::fs::write(&old, format!("scenario = \"replay\"\nreplay = {:?}\n", file.display().to_string())).unwrap();
    let out = collide(&["--headless", old.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("collide headless: replay {}", file.display())), "{stdout}");
    assert!(stdout.contains("3 frames replayed"), "{stdout}");
    rejects(
        "old-replay-alone",
        "seed = 2\nscenario = \"replay\"\n",
        &[],
        &["{file}:2: scenario = \"replay\" is not a scenario", "replay = \"FILE.aabbs\" (or --replay FILE)"],
    );
}
