//! The decision log: every probe, switch and rejected probe, with the features and every candidate's
//! prediction at that moment, and the reason in words.
//!
//! A ring of [`LOG_CAPACITY`] entries allocated once, so that logging allocates nothing; the oldest entries go
//! first (the totals in [`crate::Totals`] keep counting).

use crate::features::Features;
use crate::model::Estimate;
use crate::policy::Reason;
use std::collections::VecDeque;
use std::fmt::Write as _;

/// The most candidates a selector holds (a fixed array keeps a [`Decision`] `Copy`).
pub const MAX_CANDIDATES: usize = 16;
/// Entries kept; at most one decision per cooldown, so this is tens of minutes of a busy scene.
pub const LOG_CAPACITY: usize = 1024;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionKind {
    /// The first frame's choice.
    Initial,
    /// A sampled probe started: `to` and `from` run on a spatial sample of the bodies.
    Sample,
    /// A sampled probe ended: what it measured.
    Sampled,
    /// A full probe started: `to` is warm-started and runs beside `from` on whole frames.
    Probe,
    /// A trial's newcomer `to` ran its first steady frames, measured against the `from` it left.
    Measured,
    /// A build of `to` started beside `from`, on another thread (for a switch or a probe).
    Build,
    /// `to` took over from `from`.
    Switch,
    /// A probe ended without a switch: `from` stays.
    Reject,
    /// A probe or a build was abandoned because bodies were added or removed in the middle.
    Abandon,
    /// An idle candidate's memory was freed.
    Free,
    /// Forced-switch mode moved on to the next candidate.
    Forced,
}

impl DecisionKind {
    /// Lower-case name for the CSV and the app.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Initial => "initial",
            Self::Sample => "sample",
            Self::Sampled => "sampled",
            Self::Probe => "probe",
            Self::Measured => "measured",
            Self::Build => "build",
            Self::Switch => "switch",
            Self::Reject => "reject",
            Self::Abandon => "abandon",
            Self::Free => "free",
            Self::Forced => "forced",
        }
    }
}

/// Every candidate's prediction at one moment, in the selector's candidate order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Predictions {
    len: u8,
    items: [Estimate; MAX_CANDIDATES],
}

impl Predictions {
    /// From a slice of at most [`MAX_CANDIDATES`] estimates.
    #[must_use]
    pub fn from_slice(estimates: &[Estimate]) -> Self {
        let mut p = Self { len: estimates.len().min(MAX_CANDIDATES) as u8, ..Self::default() };
        p.items[..p.len as usize].copy_from_slice(&estimates[..p.len as usize]);
        p
    }

    /// The estimates, in candidate order.
    #[must_use]
    pub fn as_slice(&self) -> &[Estimate] {
        &self.items[..self.len as usize]
    }
}

/// One entry of the log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// The selector's frame (calls of `find_pairs` since it was built).
    pub frame: u64,
    /// What happened.
    pub kind: DecisionKind,
    /// The candidate active before.
    pub from: &'static str,
    /// The candidate probed or switched to (`from` again for a rejected probe).
    pub to: &'static str,
    /// The features that frame.
    pub features: Features,
    /// Every candidate's prediction that frame (the active one's is its measured median).
    pub predictions: Predictions,
    /// Why, with the deciding numbers.
    pub reason: Reason,
}

/// The log: a ring of the last [`LOG_CAPACITY`] decisions.
#[derive(Clone, Debug)]
pub struct DecisionLog {
    entries: VecDeque<Decision>,
}

impl Default for DecisionLog {
    fn default() -> Self {
        Self { entries: VecDeque::with_capacity(LOG_CAPACITY) }
    }
}

impl DecisionLog {
    /// Append, dropping the oldest entry when full. Never allocates.
    pub fn push(&mut self, d: Decision) {
        if self.entries.len() == LOG_CAPACITY {
            self.entries.pop_front();
        }
        self.entries.push_back(d);
    }

    /// The entries, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Decision> + ExactSizeIterator {
        self.entries.iter()
    }

    /// The number of entries kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` when nothing was logged.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forget every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The log as CSV: one row per decision, with one predicted-ms and one sigma column per candidate
    /// (`candidates` in the selector's order). The reason is quoted (it has commas).
    #[must_use]
    pub fn to_csv(&self, candidates: &[&str]) -> String {
        let mut text =
            String::from("frame,kind,from,to,n,pairs_per_body,speed_mean,speed_known,clustering,size_spread,resting");
        for c in candidates {
            let _ = write!(text, ",predicted_ms_{c},sigma_{c}");
        }
        text.push_str(",reason\n");
        for d in &self.entries {
            let f = &d.features;
            let _ = write!(
                text,
                "{},{},{},{},{},{:.4},{:.5},{},{:.3},{:.3},{:.3}",
                d.frame,
                d.kind.name(),
                d.from,
                d.to,
                f.n,
                f.pairs_per_body,
                f.speed_mean,
                f.speed_known,
                f.clustering,
                f.size_spread,
                f.resting
            );
            for e in d.predictions.as_slice() {
                let _ = write!(text, ",{:.4},{:.3}", e.ms, e.sigma);
            }
            let _ = writeln!(text, ",\"{}\"", d.reason.to_string().replace('"', "'"));
        }
        text
    }
}

#[cfg(test)]
mod tests;
