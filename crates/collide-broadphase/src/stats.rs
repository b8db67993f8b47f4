use std::fmt;

/// The most name-keyed counters one algorithm reports. A fixed array keeps [`Stats`] `Copy` and
/// allocation-free, so the app can read it every frame and the timing records can keep one per frame.
pub const MAX_COUNTERS: usize = 16;

/// One named number: `("nodes", 1177.0)`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Counter {
    /// A short snake_case name (`nodes`, `swaps_x`, `max_leaf_load`).
    pub name: &'static str,
    /// The value; counts are stored exactly up to 2⁵³.
    pub value: f64,
}

/// Counters of one [`find_pairs`](crate::Broadphase::find_pairs) call.
///
/// Three numbers mean the same thing for every algorithm and are typed fields, so the bench and the
/// meta-broadphase can compare work across algorithms without knowing any algorithm's vocabulary:
/// - [`pair_tests`](Stats::pair_tests): exact box–box overlap tests made;
/// - [`work`](Stats::work): every other elementary step — a node visited, an item scattered or sorted, an
///   endpoint swapped, a pair-set probe — the "everything but tests" of the call;
/// - [`bytes_touched`](Stats::bytes_touched): an estimate of the bytes of its own structures the call read or
///   wrote (boxes copied, endpoints sorted, nodes built), the memory traffic behind the time.
///
/// Everything else is algorithm-specific and name-keyed ([`Stats::set`], [`Stats::get`]): `swaps_x`,
/// `max_leaf_load`, `static_bodies`… Those names are for people and plots, never for another algorithm's code.
#[derive(Clone, Copy, PartialEq, Default)]
pub struct Stats {
    /// Exact box–box overlap tests made.
    pub pair_tests: u64,
    /// Elementary steps other than pair tests (nodes visited, items scattered, endpoints swapped…).
    pub work: u64,
    /// Estimated bytes of the algorithm's own structures read or written.
    pub bytes_touched: u64,
    len: u8,
    counters: [Counter; MAX_COUNTERS],
}

/// The three typed numbers of [`Stats`], accumulated while the work is done (by the parallel chunks of a
/// search, say) and then set with [`Stats::with_work`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Exact box–box overlap tests made ([`Stats::pair_tests`]).
    pub pair_tests: u64,
    /// Elementary steps other than pair tests ([`Stats::work`]).
    pub work: u64,
    /// Estimated bytes read or written ([`Stats::bytes_touched`]).
    pub bytes_touched: u64,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Self) {
        self.pair_tests += other.pair_tests;
        self.work += other.work;
        self.bytes_touched += other.bytes_touched;
    }
}

impl std::ops::Add for Tally {
    type Output = Self;
    fn add(mut self, other: Self) -> Self {
        self += other;
        self
    }
}

/// A [`Stats`] holding the tally and no name-keyed counter yet.
impl From<Tally> for Stats {
    fn from(t: Tally) -> Self {
        Self::new().with_work(t.pair_tests, t.work, t.bytes_touched)
    }
}

impl Tally {
    /// `pair_tests` tests and nothing else.
    #[must_use]
    pub fn tests(pair_tests: u64) -> Self {
        Self { pair_tests, ..Self::default() }
    }

    /// `work` steps that touched `bytes_touched` bytes.
    #[must_use]
    pub fn work(work: u64, bytes_touched: u64) -> Self {
        Self { work, bytes_touched, ..Self::default() }
    }
}

/// The names of the typed fields, which [`Stats::set`] refuses (one name per concept).
const TYPED: [&str; 3] = ["pair_tests", "work", "bytes_touched"];

impl Stats {
    /// No counters.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Set the three shared numbers.
    #[must_use]
    pub fn with_work(mut self, pair_tests: u64, work: u64, bytes_touched: u64) -> Self {
        self.pair_tests = pair_tests;
        self.work = work;
        self.bytes_touched = bytes_touched;
        self
    }

    /// The three shared numbers as a [`Tally`].
    #[must_use]
    pub fn tally(&self) -> Tally {
        Tally { pair_tests: self.pair_tests, work: self.work, bytes_touched: self.bytes_touched }
    }

    /// Set `name` to `value`, adding the counter if it is new. A typed field's name panics and a counter beyond
    /// `MAX_COUNTERS` is dropped (a panic in debug builds): both are bugs in the algorithm, caught by its first
    /// test, never a run-time condition.
    pub fn set(&mut self, name: &'static str, value: f64) {
        assert!(!TYPED.contains(&name), "`{name}` is a typed field of Stats; set the field");
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

    /// The value of the name-keyed counter `name`, if reported. The typed fields are read as fields.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<f64> {
        self.iter().find(|c| c.name == name).map(|c| c.value)
    }

    /// The name-keyed counters in the order they were first set.
    pub fn iter(&self) -> impl Iterator<Item = &Counter> {
        self.counters[..self.len as usize].iter()
    }

    /// The number of name-keyed counters.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// `true` when nothing was reported: no name-keyed counter and the typed fields all zero.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0 && self.pair_tests == 0 && self.work == 0 && self.bytes_touched == 0
    }

    /// Every reported number, the typed fields first (those that are not zero), then the name-keyed counters.
    fn words(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        let typed = [self.pair_tests, self.work, self.bytes_touched];
        TYPED
            .into_iter()
            .zip(typed)
            .filter(|&(_, v)| v != 0)
            .map(|(n, v)| (n, v as f64))
            .chain(self.iter().map(|c| (c.name, c.value)))
    }
}

impl fmt::Debug for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.words()).finish()
    }
}

/// `name=value` pairs separated by spaces, integers without a fraction: `pair_tests=120 work=88 max_depth=7`.
impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, value)) in self.words().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if value.fract() == 0.0 && value.abs() < 1e15 {
                write!(f, "{name}={}", value as i64)?;
            } else {
                write!(f, "{name}={value:.3}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
