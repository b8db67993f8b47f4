//! A progress bar on standard error: what runs, how much is done and left, and the time so far.
//!
//! On a terminal the bar redraws one line in place; elsewhere (CI logs) each point prints one line, so the log
//! shows what was running when something went wrong.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Counts planned and finished points across the whole run.
pub struct Progress {
    total: usize,
    done: usize,
    start: Instant,
    tty: bool,
    drawn: bool,
}

impl Progress {
    /// Nothing planned yet.
    #[must_use]
    pub fn new() -> Self {
        Self { total: 0, done: 0, start: Instant::now(), tty: std::io::stderr().is_terminal(), drawn: false }
    }

    /// A study plans `points` more points.
    pub fn plan(&mut self, points: usize) {
        self.total += points;
    }

    /// Show that `label` starts now.
    pub fn start(&mut self, label: &str) {
        let line = bar_line(self.done, self.total, self.start.elapsed(), label);
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[2K{line}");
            self.drawn = true;
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }

    /// One planned point finished (run or skipped).
    pub fn finish_one(&mut self) {
        self.done = (self.done + 1).min(self.total);
    }

    /// Print a message on its own line (a budget stop, say).
    pub fn say(&mut self, message: &str) {
        self.clear();
        eprintln!("{message}");
    }

    /// Clear the redrawn line, if any.
    pub fn clear(&mut self) {
        if self.drawn {
            eprint!("\r\x1b[2K");
            self.drawn = false;
        }
    }

    /// The run is over.
    pub fn finish(&mut self) {
        self.clear();
    }
}

/// `[#####.....]  12/40  1m05s  scaling: sap n=20000`.
#[must_use]
pub fn bar_line(done: usize, total: usize, elapsed: Duration, label: &str) -> String {
    const WIDTH: usize = 24;
    let filled = (done * WIDTH).checked_div(total).unwrap_or(0);
    format!(
        "[{}{}] {done:>3}/{total:<3} {:>6}  {label}",
        "#".repeat(filled),
        ".".repeat(WIDTH - filled),
        format_duration(elapsed)
    )
}

/// `59s`, `3m07s`, `1h02m`.
#[must_use]
pub fn format_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests;
