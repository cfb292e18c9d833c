//! Checking references to shape and material names where they are written.
//!
//! A scenario is parsed twice (see `load`): the first pass collects the names defined under
//! `shapes:` and `materials:`; the second pass installs them here, so that a reference such as
//! `particles[3].shape: gravel` is checked inside the YAML scalar's visitor and the error
//! carries that scalar's line and column. Outside the second pass references are accepted
//! unchecked. The same pass makes the scenario's `integrator:` known, for the check of
//! `detection.mode` (see `implicit`), and, in a pipeline file, the pipeline's trees, for the
//! check of `tree: NAME` (see `source`). A pipeline file is parsed the same way by its
//! loader, which installs these names with [`with_known`].

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};

use crate::integrator::IntegratorSpec;

/// Names defined by the scenario being parsed on this thread.
#[derive(Clone, Debug, Default)]
pub struct Known {
    /// Shape names, sorted.
    pub shapes: Vec<String>,
    /// Material names, sorted.
    pub materials: Vec<String>,
    /// The scenario's `integrator:` (checked against `detection.mode`).
    pub integrator: IntegratorSpec,
    /// The trees a pipeline declares under `trees:`, in file order (what `tree: NAME`
    /// may name; unused by scenario files).
    pub trees: Vec<String>,
    /// Particles counted so far: the listed ones, then each generator's count as it is
    /// parsed.
    pub particles: u64,
    /// The scenario's `limits.max_particles` (`None`: generator counts are not checked).
    pub max_particles: Option<u64>,
    /// The scenario's `time.dt` \[s\] and `time.output_every` (checked against
    /// `lts.interval_s`; `None`: not checked).
    pub time: Option<(f64, u32)>,
}

thread_local! {
    static KNOWN: RefCell<Option<Known>> = const { RefCell::new(None) };
}

/// Installs `known` for the duration of `f` on this thread (restored afterwards, also when
/// `f` unwinds): scenarios deserialized inside `f` check their references against it.
pub fn with_known<T>(known: Known, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Known>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            KNOWN.with(|k| *k.borrow_mut() = prev);
        }
    }
    let prev = KNOWN.with(|k| k.borrow_mut().replace(known));
    let _restore = Restore(prev);
    f()
}

/// The integrator of the scenario being parsed (explicit outside the second pass).
pub(crate) fn integrator() -> IntegratorSpec {
    KNOWN.with(|k| {
        k.borrow()
            .as_ref()
            .map(|k| k.integrator)
            .unwrap_or_default()
    })
}

/// The `time.dt` \[s\] and `time.output_every` of the scenario being parsed, `None`
/// outside the second pass.
pub(crate) fn time_known() -> Option<(f64, u32)> {
    KNOWN.with(|k| k.borrow().as_ref().and_then(|k| k.time))
}

/// The integrator of the scenario being parsed, `None` outside the second pass (where it
/// is not known yet).
pub(crate) fn integrator_known() -> Option<IntegratorSpec> {
    KNOWN.with(|k| k.borrow().as_ref().map(|k| k.integrator))
}

#[derive(Clone, Copy)]
enum Kind {
    Shape,
    Material,
}

struct NameVisitor(Kind);

impl Visitor<'_> for NameVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.0 {
            Kind::Shape => f.write_str("the name of a shape defined under `shapes:`"),
            Kind::Material => f.write_str("the name of a material defined under `materials:`"),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        KNOWN.with(|k| match k.borrow().as_ref() {
            None => Ok(v.to_owned()),
            Some(known) => {
                let (what, list) = match self.0 {
                    Kind::Shape => ("shape", &known.shapes),
                    Kind::Material => ("material", &known.materials),
                };
                if list.iter().any(|n| n == v) {
                    Ok(v.to_owned())
                } else if list.is_empty() {
                    Err(E::custom(format_args!(
                        "unknown {what} `{v}` (no {what}s are defined)"
                    )))
                } else {
                    Err(E::custom(format_args!(
                        "unknown {what} `{v}` (defined: {})",
                        list.join(", ")
                    )))
                }
            }
        })
    }
}

/// A reference to a shape name.
pub(crate) fn shape_ref<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    d.deserialize_str(NameVisitor(Kind::Shape))
}

/// A reference to a material name.
pub(crate) fn material_ref<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    d.deserialize_str(NameVisitor(Kind::Material))
}

/// A pipeline's `tree: NAME`: accepted outside the second pass, else it must name a tree
/// of [`Known::trees`].
pub(crate) fn check_tree(name: &str) -> Result<(), String> {
    KNOWN.with(|k| match k.borrow().as_ref() {
        Some(known) if !known.trees.iter().any(|t| t == name) => {
            let listing = if known.trees.is_empty() {
                "none".to_owned()
            } else {
                known.trees.join(", ")
            };
            Err(format!(
                "unknown tree `{name}` (declared under trees: {listing})"
            ))
        }
        _ => Ok(()),
    })
}

/// Adds a generator's `n` particles to the running total of the scenario being parsed;
/// `Err` (the message) once the total passes its `limits.max_particles`.
pub(crate) fn add_particles(n: u64) -> Result<(), String> {
    KNOWN.with(|k| match k.borrow_mut().as_mut() {
        Some(known) => {
            let total = known.particles.saturating_add(n);
            known.particles = total;
            match known.max_particles {
                Some(cap) if total > cap => Err(if total == n {
                    format!(
                        "{n} particles, more than the cap of {cap} (raise `limits: {{ max_particles: N }}` for a larger run)"
                    )
                } else {
                    format!(
                        "{n} particles make {total} in all, more than the cap of {cap} (raise `limits: {{ max_particles: N }}` for a larger run)"
                    )
                }),
                _ => Ok(()),
            }
        }
        None => Ok(()),
    })
}
