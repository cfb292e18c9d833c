//! Names and by-name references inside a pipeline file.
//!
//! Meshes and trees are declared under a name ([`Name`], usable as a file name) in an
//! ordered map without duplicates ([`NamedMap`]); a tree refers to its mesh by name
//! ([`Ref`]). References are checked while deserializing, so that a dangling one is
//! reported with the `line:column` of the reference itself: the loader parses the file
//! twice, the second time with the declared names registered by [`with_known`]. (The
//! scenario section's references — trees, shapes, materials — are checked the same way by
//! `msdem_scenario`.)

use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// The longest accepted name \[characters\].
const MAX_NAME_LEN: usize = 64;

/// A declared name: 1–64 ASCII letters, digits, `_` or `-`, starting with a letter or digit
/// (it becomes part of file names such as `meshes/NAME.ply`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Name(String);

impl Name {
    /// Checks `s` and wraps it; the error says what is wrong.
    pub fn new(s: &str) -> Result<Self, String> {
        let ok_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        let starts_ok = s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
        if s.is_empty() || s.len() > MAX_NAME_LEN || !starts_ok || !s.chars().all(ok_char) {
            return Err(format!(
                "invalid name `{s}`: use 1 to {MAX_NAME_LEN} ASCII letters, digits, `_` or `-`, starting with a letter or digit"
            ));
        }
        Ok(Self(s.to_owned()))
    }

    /// The name as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Checked inside the visitor so that the YAML layer marks the error with the
        // position of the name itself.
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Name, E> {
                Name::new(v).map_err(E::custom)
            }
        }
        d.deserialize_str(NameVisitor)
    }
}

/// A map from [`Name`] to `T` that keeps the file's order and rejects duplicate names.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedMap<T>(Vec<(Name, T)>);

impl<T> NamedMap<T> {
    /// The entries in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&Name, &T)> {
        self.0.iter().map(|(n, t)| (n, t))
    }

    /// The entry called `name`.
    pub fn get(&self, name: &str) -> Option<&T> {
        self.0
            .iter()
            .find(|(n, _)| n.as_str() == name)
            .map(|(_, t)| t)
    }

    /// The names in file order.
    pub fn names(&self) -> Vec<String> {
        self.0.iter().map(|(n, _)| n.0.clone()).collect()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T> Default for NamedMap<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T: Serialize> Serialize for NamedMap<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(n, t)| (n, t)))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for NamedMap<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MapVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for MapVisitor<T> {
            type Value = NamedMap<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping from names to entries")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries: Vec<(Name, T)> = Vec::new();
                while let Some(name) = map.next_key_seed(NewName(&entries))? {
                    let value = map.next_value::<T>()?;
                    entries.push((name, value));
                }
                Ok(NamedMap(entries))
            }
        }
        d.deserialize_map(MapVisitor(PhantomData))
    }
}

/// A [`Name`] not yet among `.0`; checked inside the visitor so that a duplicate is
/// reported at its own position.
struct NewName<'a, T>(&'a [(Name, T)]);

impl<'de, T> de::DeserializeSeed<'de> for NewName<'_, T> {
    type Value = Name;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Name, D::Error> {
        d.deserialize_str(self)
    }
}

impl<T> Visitor<'_> for NewName<'_, T> {
    type Value = Name;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Name, E> {
        let name = Name::new(v).map_err(E::custom)?;
        if self.0.iter().any(|(n, _)| *n == name) {
            return Err(E::custom(format!("duplicate name `{name}`")));
        }
        Ok(name)
    }
}

/// The names declared in a pipeline file, registered while references are checked.
#[derive(Clone, Debug, Default)]
pub struct Known {
    /// Names under `meshes:`.
    pub meshes: Vec<String>,
    /// The pipeline file's folder: `import:` files are resolved against it and must exist
    /// there (`None`: not checked).
    pub import_dir: Option<std::path::PathBuf>,
}

thread_local! {
    static KNOWN: RefCell<Option<Known>> = const { RefCell::new(None) };
}

/// Runs `f` with `known` registered, so that every [`Ref`] deserialized inside `f` is
/// checked against it. Outside, references are accepted unchecked.
pub fn with_known<R>(known: Known, f: impl FnOnce() -> R) -> R {
    let previous = KNOWN.with(|k| k.replace(Some(known)));
    let result = f();
    KNOWN.with(|k| k.replace(previous));
    result
}

/// The folder registered for `import:` files by [`with_known`], if any.
pub fn import_dir() -> Option<std::path::PathBuf> {
    KNOWN.with(|k| k.borrow().as_ref().and_then(|k| k.import_dir.clone()))
}

/// What a [`Ref`] refers to.
pub trait Namespace {
    /// Singular noun for messages, e.g. `mesh`.
    const WHAT: &'static str;
    /// Where such names are declared, for messages, e.g. `meshes`.
    const WHERE: &'static str;
    /// The declared names of this kind.
    fn names(known: &Known) -> &[String];
}

macro_rules! namespace {
    ($(#[$doc:meta])* $ty:ident, $what:literal, $where:literal, $field:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $ty;
        impl Namespace for $ty {
            const WHAT: &'static str = $what;
            const WHERE: &'static str = $where;
            fn names(known: &Known) -> &[String] {
                &known.$field
            }
        }
    };
}

namespace!(
    /// Names of `meshes:` entries.
    Meshes, "mesh", "meshes", meshes
);
/// A reference by name to an entry of namespace `N`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ref<N> {
    name: String,
    kind: PhantomData<N>,
}

impl<N> Ref<N> {
    /// The referenced name.
    pub fn as_str(&self) -> &str {
        &self.name
    }
}

impl<N> Serialize for Ref<N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name)
    }
}

impl<'de, N: Namespace> Deserialize<'de> for Ref<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Checked inside the visitor so that the YAML layer marks the error with the
        // position of the reference itself.
        struct RefVisitor<N>(PhantomData<N>);
        impl<N: Namespace> Visitor<'_> for RefVisitor<N> {
            type Value = Ref<N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "the name of a {}", N::WHAT)
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Ref<N>, E> {
                check_known::<N>(name).map_err(E::custom)?;
                Ok(Ref {
                    name: name.to_owned(),
                    kind: PhantomData,
                })
            }
        }
        d.deserialize_str(RefVisitor(PhantomData))
    }
}

/// Ok when no names are registered or `name` is a registered name of namespace `N`.
fn check_known<N: Namespace>(name: &str) -> Result<(), String> {
    KNOWN.with(|k| match &*k.borrow() {
        Some(known) if !N::names(known).iter().any(|n| n == name) => {
            let declared = N::names(known);
            let listing = if declared.is_empty() {
                "none".to_owned()
            } else {
                declared.join(", ")
            };
            Err(format!(
                "unknown {} `{name}` (declared under {}: {listing})",
                N::WHAT,
                N::WHERE
            ))
        }
        _ => Ok(()),
    })
}
