//! The machine and the commit a report names.

use std::process::Command;

/// Where the numbers were measured.
#[derive(Clone, Debug)]
pub struct Machine {
    /// The output folder's name: `--machine` or the hostname, reduced to `[A-Za-z0-9._-]`.
    pub name: String,
    /// The CPU model from `/proc/cpuinfo`.
    pub cpu: String,
    /// Logical cores the process may use.
    pub cores: usize,
    /// Total memory from `/proc/meminfo`, GiB.
    pub memory_gib: f64,
    /// `git rev-parse --short HEAD`, with `+dirty` when the work tree has changes.
    pub commit: String,
    /// `rustc --version`.
    pub rustc: String,
    /// The 1-minute load average when the run started (others share this machine).
    pub load: String,
}

impl Machine {
    /// Look everything up; anything unknown reads `unknown`.
    #[must_use]
    pub fn detect(name: Option<&str>) -> Self {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .or_else(|_| std::fs::read_to_string("/etc/hostname"))
            .unwrap_or_else(|_| "unknown".into());
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim()))
            .unwrap_or("unknown")
            .to_owned();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let kib: f64 = meminfo
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|r| r.split_whitespace().next()?.parse().ok())
            .unwrap_or(0.0);
        let dirty = output("git", &["status", "--porcelain"]).is_some_and(|s| !s.trim().is_empty());
        let commit = output("git", &["rev-parse", "--short", "HEAD"])
            .map_or_else(|| "unknown".to_owned(), |c| format!("{}{}", c.trim(), if dirty { "+dirty" } else { "" }));
        Self {
            name: sanitize(name.unwrap_or(host.trim())),
            cpu,
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            memory_gib: kib / (1024.0 * 1024.0),
            commit,
            rustc: output("rustc", &["--version"]).map_or_else(|| "unknown".into(), |s| s.trim().to_owned()),
            load: std::fs::read_to_string("/proc/loadavg")
                .ok()
                .and_then(|s| s.split_whitespace().next().map(str::to_owned))
                .unwrap_or_else(|| "unknown".into()),
        }
    }
}

/// A name safe as a folder name: other characters become `-`; empty becomes `unknown`.
#[must_use]
pub fn sanitize(name: &str) -> String {
    let s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '-' }).collect();
    if s.is_empty() || s.chars().all(|c| c == '.') { "unknown".into() } else { s }
}

/// The standard output of `program args…` run in the workspace root, if it succeeded.
fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).current_dir(crate::root()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests;
