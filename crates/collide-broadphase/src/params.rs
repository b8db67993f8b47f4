use crate::Broadphase;
use std::fmt;

/// One tunable parameter of an algorithm, as the config, the app's sliders and the bench see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// The config key (`max_leaf`, `cell_size`).
    pub name: &'static str,
    /// One line for tooltips and `--help`.
    pub description: &'static str,
    /// The value when the config does not set it.
    pub default: f64,
    /// The smallest accepted value.
    pub min: f64,
    /// The largest accepted value.
    pub max: f64,
    /// `true` when only whole numbers make sense (leaf sizes, depths).
    pub integer: bool,
}

/// Resolved parameter values: every parameter of the algorithm, checked, defaults filled in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    values: Vec<(&'static str, f64)>,
}

impl Params {
    /// Check `given` against `spec` (unknown names, ranges, whole numbers) and fill in the defaults.
    pub fn resolve<'s>(
        spec: &'static [ParamSpec],
        given: impl IntoIterator<Item = (&'s str, f64)>,
    ) -> Result<Self, ParamError> {
        let mut params = Self::defaults(spec);
        for (name, value) in given {
            let Some(s) = spec.iter().find(|s| s.name == name) else {
                return Err(ParamError::Unknown {
                    name: name.to_owned(),
                    valid: spec.iter().map(|s| s.name).collect(),
                });
            };
            if !value.is_finite() || value < s.min || value > s.max || (s.integer && value.fract() != 0.0) {
                return Err(ParamError::OutOfRange { spec: *s, value });
            }
            params.set(s.name, value);
        }
        Ok(params)
    }

    /// Every parameter at its default.
    #[must_use]
    pub fn defaults(spec: &'static [ParamSpec]) -> Self {
        Self { values: spec.iter().map(|s| (s.name, s.default)).collect() }
    }

    /// The value of `name`. Panics when the algorithm asks for a parameter its own spec does not declare —
    /// a programming error caught by the first test, never by user input (that goes through [`Params::resolve`]).
    #[must_use]
    pub fn get(&self, name: &str) -> f64 {
        self.try_get(name).unwrap_or_else(|| panic!("parameter `{name}` is not in the algorithm's spec"))
    }

    /// The value of `name`, if present.
    #[must_use]
    pub fn try_get(&self, name: &str) -> Option<f64> {
        self.values.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }

    /// Set `name` (added if absent). Unchecked: for code that already validated the value.
    pub fn set(&mut self, name: &'static str, value: f64) {
        match self.values.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.values.push((name, value)),
        }
    }

    /// Every `(name, value)`, in spec order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        self.values.iter().copied()
    }
}

/// `max_leaf=32 max_depth=10`, the form the CSVs and the app's title show.
impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (n, v)) in self.values.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{n}={v}")?;
        }
        Ok(())
    }
}

/// A parameter that does not fit its algorithm's spec.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamError {
    /// No parameter of that name.
    Unknown {
        /// The name given.
        name: String,
        /// The parameters the algorithm has.
        valid: Vec<&'static str>,
    },
    /// A value outside `min..=max`, not finite, or fractional where a whole number is needed.
    OutOfRange {
        /// The parameter.
        spec: ParamSpec,
        /// The value given.
        value: f64,
    },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unknown { name, valid } if valid.is_empty() => {
                write!(f, "unknown parameter `{name}`: this algorithm has no parameters")
            }
            Self::Unknown { name, valid } => {
                write!(f, "unknown parameter `{name}`; valid parameters: {}", valid.join(", "))
            }
            Self::OutOfRange { spec, value } => {
                let kind = if spec.integer { "a whole number" } else { "a number" };
                write!(f, "`{}` = {value} is out of range: expected {kind} in {}..={}", spec.name, spec.min, spec.max)
            }
        }
    }
}

impl std::error::Error for ParamError {}

/// A row of the `ALGORITHMS` registry: how to name, describe, tune and build one broadphase.
///
/// The app's dropdown, config validation, `--help` and the bench all read the same table, so adding an
/// algorithm is adding a row.
#[derive(Clone, Copy)]
pub struct AlgorithmDescriptor {
    /// The registry name (short kebab-case): the config value and the CSV column.
    pub name: &'static str,
    /// One line: what it is and when it wins.
    pub summary: &'static str,
    /// Its tunable parameters.
    pub params: &'static [ParamSpec],
    /// Build one with resolved parameters.
    pub build: fn(&Params) -> Box<dyn Broadphase>,
}

impl AlgorithmDescriptor {
    /// Build with every parameter at its default.
    #[must_use]
    pub fn build_default(&self) -> Box<dyn Broadphase> {
        (self.build)(&Params::defaults(self.params))
    }
}

impl fmt::Debug for AlgorithmDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlgorithmDescriptor").field("name", &self.name).finish_non_exhaustive()
    }
}

/// An algorithm name that is not in the registry; its message lists the valid names.
#[derive(Clone, Debug, PartialEq)]
pub struct UnknownAlgorithm {
    /// The name given.
    pub name: String,
    /// The registered names.
    pub valid: Vec<&'static str>,
}

impl fmt::Display for UnknownAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown algorithm `{}`; valid algorithms: {}", self.name, self.valid.join(", "))
    }
}

impl std::error::Error for UnknownAlgorithm {}

/// Look `name` up in a registry table.
pub fn find_algorithm<'t>(
    table: &'t [AlgorithmDescriptor],
    name: &str,
) -> Result<&'t AlgorithmDescriptor, UnknownAlgorithm> {
    table
        .iter()
        .find(|d| d.name == name)
        .ok_or_else(|| UnknownAlgorithm { name: name.to_owned(), valid: table.iter().map(|d| d.name).collect() })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &[ParamSpec] = &[
        ParamSpec { name: "max_leaf", description: "", default: 32.0, min: 1.0, max: 1024.0, integer: true },
        ParamSpec { name: "loose", description: "", default: 2.0, min: 1.0, max: 4.0, integer: false },
    ];

    #[test]
    fn resolve_fills_defaults_and_rejects_bad_values_by_name() {
        let p = Params::resolve(SPEC, [("max_leaf", 8.0)]).unwrap();
        assert_eq!(p.get("max_leaf"), 8.0);
        assert_eq!(p.get("loose"), 2.0);
        assert_eq!(p.to_string(), "max_leaf=8 loose=2");
        let e = Params::resolve(SPEC, [("max_leef", 8.0)]).unwrap_err();
        assert_eq!(e.to_string(), "unknown parameter `max_leef`; valid parameters: max_leaf, loose");
        let e = Params::resolve(SPEC, [("max_leaf", 0.0)]).unwrap_err();
        assert!(e.to_string().contains("1..=1024"), "{e}");
        assert!(Params::resolve(SPEC, [("max_leaf", 2.5)]).is_err());
        assert!(Params::resolve(SPEC, [("loose", f64::NAN)]).is_err());
    }
}
