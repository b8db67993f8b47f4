use std::time::Instant;

/// The phases of one simulation step, in pipeline order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The bodies sorted into spatial order (every `reorder_every` steps; 0 ms on the others).
    Reorder,
    /// Velocities and positions advanced by dt.
    Integrate,
    /// Bounding boxes rebuilt (and non-finite bodies removed).
    Aabbs,
    /// The broadphase's `find_pairs`.
    Broadphase,
    /// Exact tests on the candidate pairs.
    Narrowphase,
    /// Push-out and impulses.
    Resolution,
    /// Container walls.
    Walls,
}

impl Phase {
    /// Every phase, in pipeline order.
    pub const ALL: [Self; 7] = [
        Self::Reorder,
        Self::Integrate,
        Self::Aabbs,
        Self::Broadphase,
        Self::Narrowphase,
        Self::Resolution,
        Self::Walls,
    ];

    /// The snake_case name used in CSV headers and puffin scopes.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Reorder => "reorder",
            Self::Integrate => "integrate",
            Self::Aabbs => "aabbs",
            Self::Broadphase => "broadphase",
            Self::Narrowphase => "narrowphase",
            Self::Resolution => "resolution",
            Self::Walls => "walls",
        }
    }
}

/// Milliseconds spent in each [`Phase`] of one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    ms: [f64; Phase::ALL.len()],
}

impl PhaseTimes {
    /// The time of `phase` in milliseconds.
    #[must_use]
    pub fn get(&self, phase: Phase) -> f64 {
        self.ms[phase as usize]
    }

    /// Add `ms` to `phase`.
    pub fn add(&mut self, phase: Phase, ms: f64) {
        self.ms[phase as usize] += ms;
    }

    /// The sum over all phases.
    #[must_use]
    pub fn total(&self) -> f64 {
        self.ms.iter().sum()
    }
}

/// Measures consecutive phases with one clock read per boundary.
#[derive(Debug)]
pub struct PhaseTimer {
    last: Instant,
    times: PhaseTimes,
}

impl PhaseTimer {
    /// Start timing now.
    #[must_use]
    pub fn start() -> Self {
        Self { last: Instant::now(), times: PhaseTimes::default() }
    }

    /// The time since the last boundary belongs to `phase`.
    pub fn end(&mut self, phase: Phase) {
        let now = Instant::now();
        self.times.add(phase, (now - self.last).as_secs_f64() * 1e3);
        self.last = now;
    }

    /// The times so far.
    #[must_use]
    pub fn times(&self) -> PhaseTimes {
        self.times
    }
}

#[cfg(test)]
mod tests;
