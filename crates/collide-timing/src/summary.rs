/// The thesis's relative dt: a frame's duration divided by one 60 Hz frame (16.67 ms). 1 is 60 fps, 2 is 30.
#[must_use]
pub fn relative_dt(dt_seconds: f64) -> f64 {
    dt_seconds / f64::from(crate::FRAME_60HZ)
}

/// [`relative_dt`] of a duration in milliseconds, the unit of step records and CSVs.
#[must_use]
pub fn relative_dt_ms(dt_ms: f64) -> f64 {
    relative_dt(dt_ms / 1000.0)
}

/// Mean, percentiles and extremes of a set of samples (frame times in ms, say).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// How many samples.
    pub count: usize,
    /// The arithmetic mean.
    pub mean: f64,
    /// The smallest sample.
    pub min: f64,
    /// The median (nearest rank).
    pub p50: f64,
    /// The 95th percentile (nearest rank).
    pub p95: f64,
    /// The 99th percentile (nearest rank).
    pub p99: f64,
    /// The largest sample.
    pub max: f64,
}

impl Summary {
    /// The summary of `samples` (all zero for none). Sorts a copy: O(n log n).
    #[must_use]
    pub fn of(samples: &[f64]) -> Self {
        if samples.is_empty() {
            return Self::default();
        }
        let mut sorted = samples.to_vec();
        sorted.sort_unstable_by(f64::total_cmp);
        let rank = |p: f64| sorted[(((p / 100.0) * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
        Self {
            count: sorted.len(),
            mean: sorted.iter().sum::<f64>() / sorted.len() as f64,
            min: sorted[0],
            p50: rank(50.0),
            p95: rank(95.0),
            p99: rank(99.0),
            max: sorted[sorted.len() - 1],
        }
    }
}

/// The last `capacity` samples, for rolling statistics and the app's frame-time graph.
#[derive(Clone, Debug)]
pub struct RecentSamples {
    samples: Vec<f64>,
    capacity: usize,
    next: usize,
}

impl RecentSamples {
    /// Empty, holding at most `capacity` samples (at least 1).
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self { samples: Vec::with_capacity(capacity), capacity, next: 0 }
    }

    /// Add a sample, dropping the oldest when full. No allocation once full.
    pub fn push(&mut self, sample: f64) {
        if self.samples.len() < self.capacity {
            self.samples.push(sample);
        } else {
            self.samples[self.next] = sample;
        }
        self.next = (self.next + 1) % self.capacity;
    }

    /// The samples, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        let (newer, older) = self.samples.split_at(if self.samples.len() < self.capacity { 0 } else { self.next });
        older.iter().chain(newer).copied()
    }

    /// The number of samples held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// `true` before the first sample.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The summary of the samples held.
    #[must_use]
    pub fn summary(&self) -> Summary {
        Summary::of(&self.samples)
    }
}

#[cfg(test)]
mod tests;
