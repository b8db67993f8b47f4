use std::fmt;

/// The most counters one algorithm reports. A fixed array keeps [`Stats`] `Copy` and allocation-free, so
/// the app can read it every frame and the timing records can keep one per frame.
pub const MAX_COUNTERS: usize = 16;

/// One named number: `("pair_tests", 12345.0)`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Counter {
    /// A short snake_case name (`pair_tests`, `swaps_x`, `max_leaf_load`).
    pub name: &'static str,
    /// The value; counts are stored exactly up to 2⁵³.
    pub value: f64,
}

/// Counters of one [`find_pairs`](crate::Broadphase::find_pairs) call, algorithm-specific.
///
/// By convention every algorithm that tests box pairs reports `pair_tests` (exact overlap tests made), so the
/// bench and the meta-broadphase can compare work across algorithms.
#[derive(Clone, Copy, PartialEq, Default)]
pub struct Stats {
    len: u8,
    counters: [Counter; MAX_COUNTERS],
}

impl Stats {
    /// No counters.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Set `name` to `value`, adding the counter if it is new. Counters beyond [`MAX_COUNTERS`] are dropped
    /// (checked in debug builds: that is a bug in the algorithm, not a run-time condition).
    pub fn set(&mut self, name: &'static str, value: f64) {
        if let Some(c) = self.counters[..self.len as usize].iter_mut().find(|c| c.name == name) {
            c.value = value;
        } else if (self.len as usize) < MAX_COUNTERS {
            self.counters[self.len as usize] = Counter { name, value };
            self.len += 1;
        } else {
            debug_assert!(false, "more than {MAX_COUNTERS} counters; dropping {name}");
        }
    }

    /// Builder form of [`Stats::set`].
    #[must_use]
    pub fn with(mut self, name: &'static str, value: f64) -> Self {
        self.set(name, value);
        self
    }

    /// The value of `name`, if reported.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<f64> {
        self.iter().find(|c| c.name == name).map(|c| c.value)
    }

    /// The counters in the order they were first set.
    pub fn iter(&self) -> impl Iterator<Item = &Counter> {
        self.counters[..self.len as usize].iter()
    }

    /// The number of counters.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// `true` when nothing was reported.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl fmt::Debug for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter().map(|c| (c.name, c.value))).finish()
    }
}

/// `name=value` pairs separated by spaces, integers without a fraction: `pair_tests=120 max_depth=7`.
impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if c.value.fract() == 0.0 && c.value.abs() < 1e15 {
                write!(f, "{}={}", c.name, c.value as i64)?;
            } else {
                write!(f, "{}={:.3}", c.name, c.value)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_set_replace_and_print() {
        let mut s = Stats::new().with("pair_tests", 10.0).with("mean_leaf_load", 2.5);
        s.set("pair_tests", 12.0);
        assert_eq!(s.len(), 2);
        assert_eq!(s.get("pair_tests"), Some(12.0));
        assert_eq!(s.get("nope"), None);
        assert_eq!(s.to_string(), "pair_tests=12 mean_leaf_load=2.500");
    }
}
