use serde::{Deserialize, Serialize};

/// How much simulated time a frame advances.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "policy", deny_unknown_fields)]
pub enum DtPolicy {
    /// Exactly `dt` seconds per frame, whatever the wall clock says.
    Fixed {
        /// Seconds per step.
        dt: f32,
    },
    /// The real elapsed time of the frame (capped by the clock's cap): the thesis's real-time mode.
    Variable,
    /// Steps of `dt` seconds, as many as real time has accumulated (at most `max_steps` a frame; the rest is
    /// dropped rather than carried into a spiral of ever longer frames).
    Accumulator {
        /// Seconds per step.
        dt: f32,
        /// The most steps one frame may run.
        max_steps: u32,
    },
}

impl Default for DtPolicy {
    fn default() -> Self {
        Self::Fixed { dt: crate::FRAME_60HZ }
    }
}

/// What one frame should simulate: `count` steps of `dt` seconds each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Steps {
    /// How many steps (0 when paused or when the accumulator has not filled a step yet).
    pub count: u32,
    /// Seconds per step.
    pub dt: f32,
}

/// Turns the real elapsed time of each frame into simulation steps according to a [`DtPolicy`], a cap, a
/// time scale and pause/single-step requests.
///
/// It never reads the wall clock itself: the caller passes the elapsed time, so tests (and the headless
/// runner, which passes the previous step's duration) are exact.
#[derive(Clone, Debug)]
pub struct Clock {
    /// The dt policy.
    pub policy: DtPolicy,
    /// The most real time one frame may account for, in seconds (`None`: no cap).
    pub cap: Option<f32>,
    /// Simulated seconds per real second; 0 pauses.
    pub scale: f32,
    /// Paused: no steps until resumed, except single steps.
    pub paused: bool,
    single_steps: u32,
    accumulator: f32,
}

impl Clock {
    /// A running clock with the given policy, no cap and scale 1.
    #[must_use]
    pub fn new(policy: DtPolicy) -> Self {
        Self { policy, cap: None, scale: 1.0, paused: false, single_steps: 0, accumulator: 0.0 }
    }

    /// The same clock with a cap on real time per frame.
    #[must_use]
    pub fn with_cap(mut self, cap: Option<f32>) -> Self {
        self.cap = cap;
        self
    }

    /// The same clock with a time scale.
    #[must_use]
    pub fn with_scale(mut self, scale: f32) -> Self {
        self.scale = scale;
        self
    }

    /// While paused, make the next frame run exactly one step of the policy's nominal dt.
    pub fn single_step(&mut self) {
        self.single_steps += 1;
    }

    /// The policy's nominal step: `dt` for fixed and accumulator, 1/60 s for variable.
    #[must_use]
    pub fn nominal_dt(&self) -> f32 {
        match self.policy {
            DtPolicy::Fixed { dt } | DtPolicy::Accumulator { dt, .. } => dt,
            DtPolicy::Variable => crate::FRAME_60HZ,
        }
    }

    /// The steps for a frame whose real duration was `real_elapsed` seconds.
    pub fn advance(&mut self, real_elapsed: f32) -> Steps {
        if self.paused || self.scale <= 0.0 {
            if self.single_steps > 0 {
                self.single_steps -= 1;
                return Steps { count: 1, dt: self.nominal_dt() };
            }
            return Steps { count: 0, dt: self.nominal_dt() };
        }
        let real = match self.cap {
            Some(cap) => real_elapsed.min(cap),
            None => real_elapsed,
        }
        .max(0.0);
        match self.policy {
            DtPolicy::Fixed { dt } => Steps { count: 1, dt: dt * self.scale },
            DtPolicy::Variable => Steps { count: 1, dt: real * self.scale },
            DtPolicy::Accumulator { dt, max_steps } => {
                self.accumulator += real * self.scale;
                let wanted = (self.accumulator / dt).floor() as u32;
                let count = wanted.min(max_steps);
                self.accumulator -= count as f32 * dt;
                if wanted > max_steps {
                    // Drop the backlog: running it would make the next frame longer still.
                    self.accumulator = 0.0;
                }
                Steps { count, dt }
            }
        }
    }

    /// Time accumulated but not yet simulated, as a fraction of a step (for interpolated rendering).
    #[must_use]
    pub fn alpha(&self) -> f32 {
        match self.policy {
            DtPolicy::Accumulator { dt, .. } => self.accumulator / dt,
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests;
