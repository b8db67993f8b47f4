use crate::Broadphase;
use std::fmt;

/// One tunable parameter of an algorithm, as the config, the app's controls and the bench see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// The config key (`max_leaf`, `candidates`).
    pub name: &'static str,
    /// One line for tooltips and `--help`.
    pub description: &'static str,
    /// What values it takes.
    pub kind: ParamKind,
}

/// The values a parameter takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A number in `min..=max`.
    Number {
        /// The value when the config does not set it.
        default: f64,
        /// The smallest accepted value.
        min: f64,
        /// The largest accepted value.
        max: f64,
        /// `true` when only whole numbers make sense (leaf sizes, depths).
        integer: bool,
    },
    /// A non-empty list of registry names, none of them in `excluded` (the meta-broadphase's candidates). The
    /// default is every registered algorithm not excluded; it is read against the table the algorithm is
    /// built with, so algorithms registered later join by their row.
    Algorithms {
        /// Names that may not be listed (the oracle, the meta-broadphase itself).
        excluded: &'static [&'static str],
    },
}

impl ParamSpec {
    /// A real-valued parameter.
    #[must_use]
    pub const fn number(name: &'static str, description: &'static str, default: f64, min: f64, max: f64) -> Self {
        Self { name, description, kind: ParamKind::Number { default, min, max, integer: false } }
    }

    /// A whole-number parameter.
    #[must_use]
    pub const fn integer(name: &'static str, description: &'static str, default: f64, min: f64, max: f64) -> Self {
        Self { name, description, kind: ParamKind::Number { default, min, max, integer: true } }
    }

    /// A list of registry names, none of them in `excluded`.
    #[must_use]
    pub const fn algorithms(name: &'static str, description: &'static str, excluded: &'static [&'static str]) -> Self {
        Self { name, description, kind: ParamKind::Algorithms { excluded } }
    }

    /// The default value.
    #[must_use]
    pub fn default_value(&self) -> ParamValue {
        match self.kind {
            ParamKind::Number { default, .. } => ParamValue::Number(default),
            ParamKind::Algorithms { .. } => ParamValue::Algorithms(Vec::new()),
        }
    }

    /// The registered names this [`ParamKind::Algorithms`] parameter accepts, in table order (empty for numbers).
    pub fn accepted_names<'t>(&self, registry: &'t [AlgorithmDescriptor]) -> impl Iterator<Item = &'static str> + 't {
        let excluded: &'static [&'static str] = match self.kind {
            ParamKind::Algorithms { excluded } => excluded,
            ParamKind::Number { .. } => &[],
        };
        let is_list = matches!(self.kind, ParamKind::Algorithms { .. });
        registry.iter().map(|d| d.name).filter(move |n| is_list && !excluded.contains(n))
    }
}

/// A checked parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// A number.
    Number(f64),
    /// Registry names; empty means the default, every accepted name of the table the algorithm is built with.
    Algorithms(Vec<&'static str>),
}

/// A parameter value as a user gave it (config file or `--set`), before it is checked against its spec.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamInput<'a> {
    /// A number.
    Number(f64),
    /// A string: one name or several separated by commas (`"sap,octree-dup"`).
    Text(&'a str),
    /// A list of names.
    List(&'a [String]),
}

/// Checked parameter values: every parameter of the algorithm, checked, defaults filled in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    values: Vec<(&'static str, ParamValue)>,
}

impl Params {
    /// Check `given` against `spec` (unknown names, ranges, whole numbers, registry names) and fill in the
    /// defaults. `registry` is the table names are checked against.
    pub fn from_input<'s>(
        spec: &'static [ParamSpec],
        given: impl IntoIterator<Item = (&'s str, ParamInput<'s>)>,
        registry: &[AlgorithmDescriptor],
    ) -> Result<Self, ParamError> {
        let mut params = Self::defaults(spec);
        for (name, input) in given {
            let Some(s) = spec.iter().find(|s| s.name == name) else {
                return Err(ParamError::Unknown {
                    name: name.to_owned(),
                    valid: spec.iter().map(|s| s.name).collect(),
                });
            };
            let value = match s.kind {
                ParamKind::Number { min, max, integer, .. } => {
                    let ParamInput::Number(value) = input else {
                        return Err(ParamError::NotANumber { spec: *s });
                    };
                    if !value.is_finite() || value < min || value > max || (integer && value.fract() != 0.0) {
                        return Err(ParamError::OutOfRange { spec: *s, value });
                    }
                    ParamValue::Number(value)
                }
                ParamKind::Algorithms { .. } => ParamValue::Algorithms(check_names(s, input, registry)?),
            };
            params.set_value(s.name, value);
        }
        Ok(params)
    }

    /// [`Params::from_input`] for numbers only (code and tests that set numeric parameters; a list parameter given
    /// this way is an error, since no registry is at hand to check its names).
    pub fn from_numbers<'s>(
        spec: &'static [ParamSpec],
        given: impl IntoIterator<Item = (&'s str, f64)>,
    ) -> Result<Self, ParamError> {
        Self::from_input(spec, given.into_iter().map(|(n, v)| (n, ParamInput::Number(v))), &[])
    }

    /// Every parameter at its default.
    #[must_use]
    pub fn defaults(spec: &'static [ParamSpec]) -> Self {
        Self { values: spec.iter().map(|s| (s.name, s.default_value())).collect() }
    }

    /// The number `name`. Panics when the algorithm asks for a parameter its own spec does not declare, or
    /// declares as a list — a programming error caught by the first test, never by user input (that goes
    /// through [`Params::from_input`]).
    #[must_use]
    pub fn get(&self, name: &str) -> f64 {
        match self.value(name) {
            Some(ParamValue::Number(v)) => *v,
            Some(ParamValue::Algorithms(_)) => panic!("parameter `{name}` is a list of algorithms, not a number"),
            None => panic!("parameter `{name}` is not in the algorithm's spec"),
        }
    }

    /// The number `name`, if present and a number.
    #[must_use]
    pub fn try_get(&self, name: &str) -> Option<f64> {
        match self.value(name) {
            Some(ParamValue::Number(v)) => Some(*v),
            _ => None,
        }
    }

    /// The algorithm list `name` (empty: the default). Panics like [`Params::get`] on a programming error.
    #[must_use]
    pub fn algorithms(&self, name: &str) -> &[&'static str] {
        match self.value(name) {
            Some(ParamValue::Algorithms(names)) => names,
            Some(ParamValue::Number(_)) => panic!("parameter `{name}` is a number, not a list of algorithms"),
            None => panic!("parameter `{name}` is not in the algorithm's spec"),
        }
    }

    /// The value of `name`, if present.
    #[must_use]
    pub fn value(&self, name: &str) -> Option<&ParamValue> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// Set the number `name` (added if absent). Unchecked: for code that already validated the value.
    pub fn set(&mut self, name: &'static str, value: f64) {
        self.set_value(name, ParamValue::Number(value));
    }

    /// Set `name` to `value` (added if absent). Unchecked.
    pub fn set_value(&mut self, name: &'static str, value: ParamValue) {
        match self.values.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.values.push((name, value)),
        }
    }

    /// Every `(name, value)`, in spec order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &ParamValue)> + '_ {
        self.values.iter().map(|(n, v)| (*n, v))
    }
}

/// Check a list of names against the registry and the spec's exclusions.
fn check_names(
    spec: &ParamSpec,
    input: ParamInput<'_>,
    registry: &[AlgorithmDescriptor],
) -> Result<Vec<&'static str>, ParamError> {
    let given: Vec<&str> = match input {
        ParamInput::Number(_) => return Err(ParamError::NotAList { spec: *spec }),
        ParamInput::Text(text) => text.split(',').map(str::trim).filter(|t| !t.is_empty()).collect(),
        ParamInput::List(list) => list.iter().map(|t| t.trim()).collect(),
    };
    let valid: Vec<&'static str> = spec.accepted_names(registry).collect();
    if given.is_empty() {
        return Err(ParamError::EmptyList { spec: *spec, valid });
    }
    let mut names = Vec::with_capacity(given.len());
    for name in given {
        match valid.iter().find(|v| **v == name) {
            Some(v) if !names.contains(v) => names.push(*v),
            Some(_) => {}
            None => return Err(ParamError::UnknownName { spec: *spec, name: name.to_owned(), valid }),
        }
    }
    Ok(names)
}

/// `max_leaf=32 max_depth=10 candidates=sap|mbp`, the form the CSVs and the app's title show (`|` between names,
/// so that a CSV field needs no quoting; `all` for the default list).
impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (n, v)) in self.values.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            match v {
                ParamValue::Number(v) => write!(f, "{n}={v}")?,
                ParamValue::Algorithms(names) if names.is_empty() => write!(f, "{n}=all")?,
                ParamValue::Algorithms(names) => write!(f, "{n}={}", names.join("|"))?,
            }
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
    /// Text or a list where a number is needed.
    NotANumber {
        /// The parameter.
        spec: ParamSpec,
    },
    /// A number where a list of algorithms is needed.
    NotAList {
        /// The parameter.
        spec: ParamSpec,
    },
    /// An empty list of algorithms.
    EmptyList {
        /// The parameter.
        spec: ParamSpec,
        /// The names it accepts.
        valid: Vec<&'static str>,
    },
    /// A name that is not registered, or not accepted by this parameter.
    UnknownName {
        /// The parameter.
        spec: ParamSpec,
        /// The name given.
        name: String,
        /// The names it accepts.
        valid: Vec<&'static str>,
    },
}

impl ParamError {
    /// The parameter the error is about, as the user wrote it (for pointing at the config line).
    #[must_use]
    pub fn param_name(&self) -> &str {
        match self {
            Self::Unknown { name, .. } => name,
            Self::OutOfRange { spec, .. }
            | Self::NotANumber { spec }
            | Self::NotAList { spec }
            | Self::EmptyList { spec, .. }
            | Self::UnknownName { spec, .. } => spec.name,
        }
    }
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
                let ParamKind::Number { min, max, integer, .. } = spec.kind else {
                    return write!(f, "`{}` = {value} is not a list of algorithms", spec.name);
                };
                let kind = if integer { "a whole number" } else { "a number" };
                write!(f, "`{}` = {value} is out of range: expected {kind} in {min}..={max}", spec.name)
            }
            Self::NotANumber { spec } => write!(f, "`{}` must be a number", spec.name),
            Self::NotAList { spec } => {
                write!(f, "`{}` must be a list of algorithm names, e.g. [\"sap\", \"octree-dup\"]", spec.name)
            }
            Self::EmptyList { spec, valid } => {
                write!(f, "`{}` is empty: name at least one of {}", spec.name, valid.join(", "))
            }
            Self::UnknownName { spec, name, valid } => {
                write!(f, "`{}`: `{name}` is not a candidate; valid names: {}", spec.name, valid.join(", "))
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
    /// Build one with checked parameters.
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
mod tests;
