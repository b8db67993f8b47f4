//! The switch policy's knobs, its reasons, its arithmetic and its probe budget — pure bookkeeping over numbers
//! (measured milliseconds, the model's [`Estimate`]s), tested without a clock. The [`crate::Controller`] applies
//! it frame by frame.
//!
//! **A switch pays for itself.** Candidate `c` replaces the active candidate only when the saving it is predicted
//! to bring per frame, times the frames expected to remain, exceeds what starting it costs — its build, unless it
//! is already warm — and, when it still has to be measured, the probes:
//!
//! ```text
//! (ms_active − ms_c) · remaining  >  build_c + probes,      remaining = max(frames so far, min_horizon)
//! ```
//!
//! Expected remaining frames are at least the frames run so far (a run that has lasted t frames is as likely to
//! last t more as not) and at least `min_horizon` (60: a second at 60 Hz), so that a long run invests in a
//! structure that a short one would not pay back.
//!
//! **What is measured before a switch.** The prior picks the first candidate alone. After that, a candidate takes
//! over only on a measurement made in this scene:
//! 1. A **sampled probe** — the candidate and the active one run on the same spatial sample, a sub-box holding a
//!    few percent of the bodies (`sample_share`), for `sample_frames` frames, and their ratio is carried to the
//!    whole scene by the prior's dependence on n — costs a sliver of a frame. It is made when the candidate's
//!    optimistic estimate (`ms · e^−σ`) beats the active one by the margin and could pay for itself, and the
//!    model has not measured it lately (its uncertainty is above what a fresh sample leaves).
//! 2. When the sample says the candidate is cheaper beyond doubt (its pessimistic estimate `ms · e^σ` beats the
//!    margin), it takes over if the switch pays. When it places the candidate within the margin's reach but not
//!    beyond doubt, a **full probe** settles it: the candidate runs beside the active one on whole frames for
//!    `probe_frames`, its pairs discarded, and takes over if it measured cheaper by the margin.
//! 3. Below `sample_from` bodies a whole frame is cheap, and candidates are probed whole directly.
//!
//! **Builds beside.** A build predicted to cost more than `build_beside_from` of the active candidate's frames
//! (a tree of 10⁵ bodies against a grid's frame) would make the frame it lands in hitch. It is made on a thread
//! of its own, from a copy of a frame's boxes and pairs, while the active candidate goes on answering; the
//! newcomer takes over (or starts its probe) once it is ready.
//!
//! **The budget.** Probes — sampled and whole, their builds included — spend real milliseconds from a bucket
//! that fills by `probe_share` of every measured frame of the active candidate, so probes cost at most that share
//! of the broadphase's time, amortised. A probe predicted to pay for itself ten times over may borrow against
//! the bucket's future filling: when a scene has just changed, waiting costs more than the probe. The budget
//! counts wall time as spent, with no clip: a probe that the machine stalled was still paid for.
//!
//! **Hysteresis.** After a switch decided on a measurement nothing is decided for `cooldown` frames (a switch on
//! the prior alone, the second frame's on the measured speed, starts no cooldown: see the `Controller`), and
//! going back to the candidate that was active before within `thrash_window` frames needs twice the margin.

use crate::model::Estimate;

/// The policy's knobs; the defaults are the shipped behaviour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyConfig {
    /// A candidate must be cheaper than the active one by this fraction to take over (0.1: 10%).
    pub margin: f64,
    /// Frames after a switch decided on a measurement during which nothing is decided.
    pub cooldown: u32,
    /// The most the probes may cost, as a share of the active candidate's time, amortised.
    pub probe_share: f64,
    /// Frames a full probe runs beside the active candidate (after its warm start); the first is its switch
    /// cost, the others its steady cost (a candidate that settles over several calls runs those first, uncompared).
    pub probe_frames: u32,
    /// Frames a sampled probe runs on its sample (the first builds both structures, the others are compared), when
    /// neither candidate needs more than one call to settle (see [`crate::Controller::with_settling`]: more settling
    /// calls come before the compared ones). The compared frames should be an even number: the two scouts take
    /// turns at running first, and the one that runs second runs faster on a small sample.
    pub sample_frames: u32,
    /// The fewest frames a switch is expected to have ahead of it.
    pub min_horizon: u32,
    /// Frames within which switching back to the previous candidate needs twice the margin.
    pub thrash_window: u32,
    /// Frames after it last ran before an idle candidate's memory is freed.
    pub free_after: u32,
    /// A build predicted to cost more than this many of the active candidate's frames is made beside it, on
    /// another thread (0: every build; `f64::INFINITY`: none).
    pub build_beside_from: f64,
    /// Bodies from which probes are sampled first; below, whole frames are cheap enough to probe directly.
    pub sample_from: usize,
    /// The share of the bodies a sampled probe's sub-box holds.
    pub sample_share: f64,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        Self {
            margin: 0.10,
            cooldown: 12,
            probe_share: 0.03,
            probe_frames: 4,
            sample_frames: 5,
            min_horizon: 60,
            thrash_window: 600,
            free_after: 600,
            build_beside_from: 2.0,
            sample_from: 4096,
            sample_share: 0.04,
        }
    }
}

impl PolicyConfig {
    /// The frames a decision at `frame` expects to have ahead of it: the frames run so far, and at least
    /// `min_horizon`.
    #[must_use]
    pub fn remaining(&self, frame: u64) -> f64 {
        frame.max(u64::from(self.min_horizon)) as f64
    }

    /// `true` when running a candidate of `candidate_ms` a frame instead of the active one's `active_ms` saves
    /// more than `cost_ms` (its build and probes) over the frames expected to remain after `frame`.
    #[must_use]
    pub fn pays(&self, frame: u64, active_ms: f64, candidate_ms: f64, cost_ms: f64) -> bool {
        (active_ms - candidate_ms) * self.remaining(frame) > cost_ms
    }
}

/// The probe budget starts with this many of the first measured frames, so the first frames can measure: two
/// sampled probes, about, or a cheap whole one. More would be a large share of a short run (3 of 110 frames).
const INITIAL_GRANT_FRAMES: f64 = 2.0;
/// The bucket holds at most this many active frames' worth: after a quiet minute the selector can probe a few
/// candidates at once, but it cannot save up for a storm of probes.
const BUCKET_FRAMES: f64 = 40.0;
/// A probe whose candidate is predicted to save this many times its cost may borrow [`LOAN_FRAMES`].
const LOAN_PAYBACK: f64 = 10.0;
/// What such a probe may borrow, in active frames: the active candidate has just become a bad choice (the
/// scene jumped under it), and waiting for the bucket costs more than the probe.
const LOAN_FRAMES: f64 = 60.0;

/// The probe budget, in milliseconds of wall time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    tokens_ms: f64,
    granted: bool,
}

impl Budget {
    /// A measured frame of the active candidate that took `frame_ms`: the bucket fills by `share` of it.
    pub fn tick(&mut self, frame_ms: f64, share: f64) {
        if !frame_ms.is_finite() || frame_ms <= 0.0 {
            return;
        }
        if !self.granted {
            self.tokens_ms = INITIAL_GRANT_FRAMES * frame_ms;
            self.granted = true;
        }
        self.tokens_ms = (self.tokens_ms + share * frame_ms).min(BUCKET_FRAMES * frame_ms);
    }

    /// Probes spent `ms` of wall time.
    pub fn spend(&mut self, ms: f64) {
        if ms.is_finite() {
            self.tokens_ms -= ms;
        }
    }

    /// `true` when a probe expected to cost `cost_ms` may start: the bucket covers it, or the saving it promises
    /// (`saving_ms` over the frames expected to remain) is ten times its cost and a loan of `LOAN_FRAMES`
    /// active frames of `frame_ms` covers it.
    #[must_use]
    pub fn allows(&self, cost_ms: f64, saving_ms: f64, frame_ms: f64) -> bool {
        let loan = if saving_ms > LOAN_PAYBACK * cost_ms { LOAN_FRAMES * frame_ms } else { 0.0 };
        self.tokens_ms + loan >= cost_ms
    }

    /// Milliseconds left (negative while a loan is repaid).
    #[must_use]
    pub fn tokens_ms(&self) -> f64 {
        self.tokens_ms
    }
}

/// Why the controller did what it did, with the numbers that decided it (ms per frame unless said otherwise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reason {
    /// The first frame: the prior's cheapest over the first `min_horizon` frames, build included; when the speed
    /// is unknown (one frame of boxes and no hint), only among the candidates cheap to build.
    Initial {
        /// Its predicted steady frame.
        predicted_ms: f64,
        /// Its predicted build.
        build_ms: f64,
        /// `false` when the first frame did not know the speed.
        speed_known: bool,
    },
    /// The second frame measured the speed the first did not know, and the prior predicts another candidate
    /// cheaper over the horizon, its build included.
    SpeedMeasured {
        /// The newcomer's predicted steady frame.
        predicted_ms: f64,
        /// Its predicted build.
        build_ms: f64,
        /// The active candidate's predicted steady frame.
        active_ms: f64,
    },
    /// The model could be wrong about the candidate in its favour: measure it on a spatial sample.
    Sample {
        /// The prediction.
        predicted_ms: f64,
        /// Its uncertainty.
        sigma: f64,
        /// The active candidate's typical frame.
        active_ms: f64,
    },
    /// A sampled probe measured both on the same sample; its estimate for the whole scene.
    Sampled {
        /// The candidate's ms on the sample (the least of its compared frames).
        probe_ms: f64,
        /// The active candidate's ms on the same frames of the sample.
        active_sample_ms: f64,
        /// Bodies in the sample.
        bodies: usize,
        /// What that makes the candidate on the whole scene.
        predicted_ms: f64,
        /// The active candidate's typical frame on the whole scene.
        active_ms: f64,
    },
    /// A sampled probe found fewer pairs a body on its sample than the scene has (below [`THIN_SAMPLE`] of it):
    /// the cubes cut off the large bodies' reach, so the sample is not the scene made smaller, and the ratio it
    /// measured against the candidate is not learned. The prior's figure stands, and the candidate may be tried
    /// on it (see [`Reason::Trial`]).
    ///
    /// [`THIN_SAMPLE`]: crate::THIN_SAMPLE
    Thin {
        /// The candidate's ms on the sample.
        probe_ms: f64,
        /// The active candidate's ms on the same frames of the sample.
        active_sample_ms: f64,
        /// Bodies in the sample.
        bodies: usize,
        /// Pairs a body the sample's frames held.
        sample_pairs_per_body: f64,
        /// Pairs a body the whole scene holds.
        scene_pairs_per_body: f64,
        /// What the sample would have made the candidate on the whole scene.
        sampled_ms: f64,
        /// What the model keeps: its figure before the sample, or the sample's when that is lower (learned).
        predicted_ms: f64,
    },
    /// The model places the candidate within reach of the margin but not beyond doubt: probe it on whole frames
    /// (or, the model unsure of it and the scene small, probe it whole directly).
    Probe {
        /// The prediction.
        predicted_ms: f64,
        /// Its uncertainty.
        sigma: f64,
        /// The active candidate's typical frame.
        active_ms: f64,
    },
    /// Cheaper beyond doubt, and the saving over the frames expected to remain pays for the build.
    Pays {
        /// The candidate's estimate.
        predicted_ms: f64,
        /// The active candidate's typical frame.
        active_ms: f64,
        /// Its build, ms in all (0 when it is warm).
        build_ms: f64,
        /// The frames the saving was counted over.
        remaining: f64,
    },
    /// A sampled probe placed the candidate within the margin but not beyond doubt, a whole probe is not
    /// affordable, and the switch pays on the predicted saving: switch, and let its own frames measure it (a
    /// trial: going back if it proves no cheaper needs only the plain margin).
    Trial {
        /// The candidate's estimate.
        predicted_ms: f64,
        /// Its uncertainty.
        sigma: f64,
        /// The active candidate's typical frame.
        active_ms: f64,
        /// Its build, ms in all (0 when it is warm).
        build_ms: f64,
        /// The frames the saving was counted over.
        remaining: f64,
    },
    /// A trial begun on a thin sample has run its first steady frames: the newcomer's typical frame and the one
    /// it left are both whole-scene measurements, a few frames apart, and the model learns their ratio as a probe's.
    TrialMeasured {
        /// The newcomer's typical frame.
        active_ms: f64,
        /// The typical frame of the candidate it left, when it left.
        left_ms: f64,
    },
    /// A full probe measured the candidate cheaper than the active one on the same frames.
    Confirmed {
        /// The probe's least ms per frame.
        probe_ms: f64,
        /// The active one's least on the same frames.
        active_ms: f64,
    },
    /// A probe measured the candidate no cheaper by the margin (or could not pay): the active one stays.
    Rejected {
        /// The probe's least ms per frame.
        probe_ms: f64,
        /// The active one's least on the same frames.
        active_ms: f64,
    },
    /// The candidate was idle for `frames` frames: its memory is freed (it is built again if ever needed).
    Idle {
        /// Frames since it last ran.
        frames: u64,
    },
    /// Forced-switch mode cycles through the candidates.
    Forced,
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::Initial { predicted_ms, build_ms, speed_known } => {
                write!(
                    f,
                    "first frame: the prior's cheapest, {predicted_ms:.3} ms a frame after a {build_ms:.2} ms build"
                )?;
                if !speed_known {
                    f.write_str(" (speed unknown: among those cheap to build)")?;
                }
                Ok(())
            }
            Self::SpeedMeasured { predicted_ms, build_ms, active_ms } => write!(
                f,
                "speed measured: predicted {predicted_ms:.3} ms a frame after a {build_ms:.2} ms build, against \
                 {active_ms:.3} ms"
            ),
            Self::Sample { predicted_ms, sigma, active_ms } => write!(
                f,
                "could beat the active {active_ms:.3} ms ({predicted_ms:.3} ms ×/÷ {:.2}): measure it on a sample",
                sigma.exp()
            ),
            Self::Sampled { probe_ms, active_sample_ms, bodies, predicted_ms, active_ms } => write!(
                f,
                "sample of {bodies} bodies: {probe_ms:.3} ms against the active {active_sample_ms:.3} ms, so \
                 {predicted_ms:.3} ms against {active_ms:.3} ms on the whole scene"
            ),
            Self::Thin {
                probe_ms,
                active_sample_ms,
                bodies,
                sample_pairs_per_body,
                scene_pairs_per_body,
                sampled_ms,
                predicted_ms,
            } => {
                write!(
                    f,
                    "sample of {bodies} bodies: {probe_ms:.3} ms against the active {active_sample_ms:.3} ms, but \
                     {sample_pairs_per_body:.2} pairs a body against the scene's {scene_pairs_per_body:.2}: "
                )?;
                if sampled_ms > predicted_ms {
                    write!(f, "too thin to carry its {sampled_ms:.3} ms; the model's {predicted_ms:.3} ms stands")
                } else {
                    write!(f, "thin, and in its favour: {sampled_ms:.3} ms on the whole scene, learned")
                }
            }
            Self::Probe { predicted_ms, sigma, active_ms } => write!(
                f,
                "predicted {predicted_ms:.3} ms ×/÷ {:.2} against the active {active_ms:.3} ms: probe it whole",
                sigma.exp()
            ),
            Self::Pays { predicted_ms, active_ms, build_ms, remaining } => write!(
                f,
                "{predicted_ms:.3} ms against {active_ms:.3} ms saves {:.1} ms over {remaining:.0} frames, more than \
                 its {build_ms:.2} ms build",
                (active_ms - predicted_ms) * remaining
            ),
            Self::Trial { predicted_ms, sigma, active_ms, build_ms, remaining } => write!(
                f,
                "sampled at {predicted_ms:.3} ms ×/÷ {:.2} against {active_ms:.3} ms, a whole probe not affordable: \
                 try it, its saving of {:.1} ms over {remaining:.0} frames pays its {build_ms:.2} ms build",
                sigma.exp(),
                (active_ms - predicted_ms) * remaining
            ),
            Self::TrialMeasured { active_ms, left_ms } => {
                write!(f, "on trial: {active_ms:.3} ms a frame against the {left_ms:.3} ms of the candidate it left")
            }
            Self::Confirmed { probe_ms, active_ms } => {
                write!(f, "probe measured {probe_ms:.3} ms against the active {active_ms:.3} ms on the same frames")
            }
            Self::Rejected { probe_ms, active_ms } => write!(
                f,
                "probe measured {probe_ms:.3} ms against the active {active_ms:.3} ms: not cheaper by the margin, stay"
            ),
            Self::Idle { frames } => write!(f, "idle for {frames} frames: its memory freed"),
            Self::Forced => f.write_str("forced-switch mode"),
        }
    }
}

/// Which side of the margin a candidate's estimate falls, against the active candidate's typical frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Cheaper by the margin even at the pessimistic end of its estimate.
    Cheaper,
    /// Cheaper by the margin at its expected value, not at its pessimistic end.
    Maybe,
    /// Could be cheaper by the margin only at its optimistic end.
    Unlikely,
    /// Not cheaper by the margin even at its optimistic end.
    No,
}

impl Verdict {
    /// The verdict on `e` against `active_ms` with `margin`.
    #[must_use]
    pub fn of(e: &Estimate, active_ms: f64, margin: f64) -> Self {
        let target = active_ms * (1.0 - margin);
        if e.ms * e.sigma.exp() < target {
            Self::Cheaper
        } else if e.ms < target {
            Self::Maybe
        } else if e.optimistic() < target {
            Self::Unlikely
        } else {
            Self::No
        }
    }
}

#[cfg(test)]
mod tests;
