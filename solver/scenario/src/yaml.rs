//! What every YAML reader of the project checks before and around `serde_norway`: the
//! document's size ([`MAX_YAML_BYTES`]) and nesting depth ([`MAX_YAML_DEPTH`]) before the
//! parser sees it (libyaml is quadratic in the depth of flow collections: 100 000 `[` take
//! a minute), a leading UTF-8 byte-order mark (dropped), and duplicate mapping keys
//! (refused at the second key's `line:column`, where serde would keep the last).
//!
//! Used by the scenario loader ([`crate::load_scenario`]) and by the pipeline loader.

use std::collections::HashSet;
use std::fmt;
use std::io::Read;
use std::path::Path;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// The largest YAML file read \[bytes\] (16 MiB: a hundred times the largest real scenario;
/// larger inputs belong in generators, not in listed particles).
pub const MAX_YAML_BYTES: u64 = 16 * 1024 * 1024;

/// The deepest nesting of collections accepted (a scenario needs about 5 levels).
pub const MAX_YAML_DEPTH: usize = 64;

/// Why a YAML text was refused before parsing.
#[derive(Debug)]
pub enum YamlLimitError {
    /// The file could not be read (or is not UTF-8).
    Io(std::io::Error),
    /// The document is larger than [`MAX_YAML_BYTES`].
    TooLarge {
        /// Its size \[bytes\] (at least; a file that grows while read is cut short).
        bytes: u64,
    },
    /// Collections nest deeper than [`MAX_YAML_DEPTH`] at this 1-based position.
    TooDeep {
        /// Line of the collection that goes too deep.
        line: usize,
        /// Column of that collection.
        column: usize,
    },
}

impl YamlLimitError {
    /// The message, without the file name and position.
    pub fn message(&self) -> String {
        match self {
            YamlLimitError::Io(e) => e.to_string(),
            YamlLimitError::TooLarge { bytes } => format!(
                "{bytes} bytes, more than the {} MiB a YAML file may have",
                MAX_YAML_BYTES >> 20
            ),
            YamlLimitError::TooDeep { .. } => {
                format!("collections nested more than {MAX_YAML_DEPTH} levels deep")
            }
        }
    }
}

/// Reads the text of a YAML file, refusing one larger than [`MAX_YAML_BYTES`] before
/// reading it (and reading at most one byte more, for a file that grows or a device).
pub fn read_yaml_file(path: &Path) -> Result<String, YamlLimitError> {
    let file = std::fs::File::open(path).map_err(YamlLimitError::Io)?;
    let size = file.metadata().map_err(YamlLimitError::Io)?.len();
    if size > MAX_YAML_BYTES {
        return Err(YamlLimitError::TooLarge { bytes: size });
    }
    let mut bytes = Vec::new();
    file.take(MAX_YAML_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(YamlLimitError::Io)?;
    if bytes.len() as u64 > MAX_YAML_BYTES {
        return Err(YamlLimitError::TooLarge {
            bytes: bytes.len() as u64,
        });
    }
    String::from_utf8(bytes).map_err(|_| {
        YamlLimitError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// The text without a leading byte-order mark, once its size and nesting depth are within
/// the limits.
pub fn check_yaml_text(text: &str) -> Result<&str, YamlLimitError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.len() as u64 > MAX_YAML_BYTES {
        return Err(YamlLimitError::TooLarge {
            bytes: text.len() as u64,
        });
    }
    match too_deep_at(text, MAX_YAML_DEPTH) {
        Some((line, column)) => Err(YamlLimitError::TooDeep { line, column }),
        None => Ok(text),
    }
}

/// Where collections first nest deeper than `max`, estimated in one linear pass over the
/// text: block collections by their indentation (and compact `- - x` entries), flow
/// collections by their brackets outside quoted scalars, comments and block scalars. The
/// estimate never counts less than libyaml nests; it may count a little more, which only
/// matters for documents near the limit, far above any real one.
fn too_deep_at(text: &str, max: usize) -> Option<(usize, usize)> {
    #[derive(Clone, Copy, PartialEq)]
    enum Quote {
        None,
        Single,
        Double,
    }
    let mut block: Vec<usize> = Vec::new(); // columns of the open block collections
    let mut flow = 0usize;
    let mut quote = Quote::None;
    let mut block_scalar: Option<usize> = None; // indentation of its parent line
    for (l, line) in text.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let indent = chars.iter().take_while(|c| **c == ' ').count();
        let blank = indent == chars.len();
        if let Some(parent) = block_scalar {
            if blank || indent > parent {
                continue;
            }
            block_scalar = None;
        }
        let mut i = 0;
        let mut node_start = true;
        if quote == Quote::None && flow == 0 {
            if blank || chars[indent] == '#' || (indent == 0 && chars[0] == '%') {
                continue;
            }
            if indent == 0 && (line.starts_with("---") || line.starts_with("...")) {
                block.clear();
                i = 3;
            } else {
                while block.last().is_some_and(|&c| c >= indent) {
                    block.pop();
                }
                block.push(indent);
                i = indent;
            }
        }
        let deep = |block: &Vec<usize>, flow: usize| block.len() + flow > max;
        if deep(&block, flow) {
            return Some((l + 1, i + 1));
        }
        while i < chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            let ends = |n: Option<char>| n.is_none_or(|n| n == ' ' || n == '\t');
            match quote {
                Quote::Single => {
                    if c == '\'' {
                        if next == Some('\'') {
                            i += 1;
                        } else {
                            quote = Quote::None;
                            node_start = false;
                        }
                    }
                }
                Quote::Double => {
                    if c == '\\' {
                        i += 1;
                    } else if c == '"' {
                        quote = Quote::None;
                        node_start = false;
                    }
                }
                Quote::None => match c {
                    ' ' | '\t' => {}
                    '#' if i == 0 || chars[i - 1] == ' ' || chars[i - 1] == '\t' => break,
                    '[' | '{' if flow > 0 || node_start => {
                        flow += 1;
                        node_start = true;
                        if deep(&block, flow) {
                            return Some((l + 1, i + 1));
                        }
                    }
                    ']' | '}' if flow > 0 => {
                        flow -= 1;
                        node_start = false;
                    }
                    ',' if flow > 0 => node_start = true,
                    ':' if ends(next) || flow > 0 => node_start = true,
                    '-' | '?' if node_start && flow == 0 && ends(next) => {
                        if i > indent {
                            block.push(i);
                            if deep(&block, flow) {
                                return Some((l + 1, i + 1));
                            }
                        }
                    }
                    '\'' if node_start => quote = Quote::Single,
                    '"' if node_start => quote = Quote::Double,
                    '|' | '>' if node_start && flow == 0 => {
                        block_scalar = Some(indent);
                        break;
                    }
                    '&' | '!' if node_start => {
                        while i + 1 < chars.len() && !ends(chars.get(i + 1).copied()) {
                            i += 1;
                        }
                    }
                    _ => node_start = false,
                },
            }
            i += 1;
        }
    }
    None
}

/// Walks a whole YAML document and refuses the first mapping key that repeats an earlier
/// key of the same mapping, at that key's position (`KEY.PATH: duplicate key `k``).
pub fn check_duplicate_keys(text: &str) -> Result<(), serde_norway::Error> {
    serde_norway::from_str::<Node>(text).map(|_| ())
}

/// Any YAML node, checked and thrown away.
struct Node;

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
        Ok(Node)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
        Ok(Node)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
        Ok(Node)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
        Ok(Node)
    }
    fn visit_str<E>(self, _: &str) -> Result<Node, E> {
        Ok(Node)
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        while seq.next_element::<Node>()?.is_some() {}
        Ok(Node)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut seen = HashSet::new();
        while map.next_key_seed(Key(&mut seen))?.is_some() {
            map.next_value::<Node>()?;
        }
        Ok(Node)
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Node, A::Error> {
        // A tagged node (`!tag value`).
        use serde::de::VariantAccess;
        let (de::IgnoredAny, variant) = data.variant()?;
        variant.newtype_variant::<Node>()
    }
}

/// A mapping key: a scalar must not repeat one of `.0` (collections as keys are walked,
/// never equal).
struct Key<'a>(&'a mut HashSet<String>);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Key<'_> {
    fn check<E: de::Error>(self, kind: &str, shown: String) -> Result<(), E> {
        if self.0.insert(format!("{kind}:{shown}")) {
            Ok(())
        } else {
            Err(E::custom(format_args!("duplicate key `{shown}`")))
        }
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping key")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.check("b", v.to_string())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.check("n", v.to_string())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.check("n", v.to_string())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.check("f", v.to_string())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.check("s", v.to_owned())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.check("u", "null".to_owned())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.check("u", "null".to_owned())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        NodeVisitor.visit_seq(seq).map(|_| ())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        NodeVisitor.visit_map(map).map(|_| ())
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        NodeVisitor.visit_enum(data).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_error(text: &str) -> Option<(usize, usize)> {
        too_deep_at(text, 4)
    }

    #[test]
    fn depth_counts_block_and_flow_nesting() {
        assert_eq!(depth_error("a:\n  b:\n    c:\n      d: 1\n"), None);
        assert_eq!(
            depth_error("a:\n  b:\n    c:\n      d:\n        e: 1\n"),
            Some((5, 9))
        );
        assert_eq!(depth_error("a: [[[1]]]\n"), None);
        assert_eq!(depth_error("a: [[[[1]]]]\n"), Some((1, 7)));
        assert_eq!(depth_error("- - - - - x\n"), Some((1, 9)));
        assert_eq!(depth_error("a: {b: {c: [1, 2]}}\nd: [[[1]]]\n"), None);
    }

    #[test]
    fn depth_ignores_brackets_in_scalars_comments_and_block_scalars() {
        let text =
            "a: '[[[[[[' # [[[[[[\nb: \"{{{{{{\\\"\"\nc: |\n  [[[[[[[\n  {{{{{\nd: x[[[[[[\n";
        assert_eq!(depth_error(text), None);
    }

    #[test]
    fn bom_is_dropped_and_duplicates_are_found() {
        assert_eq!(check_yaml_text("\u{feff}a: 1\n").unwrap(), "a: 1\n");
        let e = check_duplicate_keys("a: 1\nb:\n  c: 1\n  c: 2\n").unwrap_err();
        assert_eq!(e.to_string(), "b: duplicate key `c` at line 4 column 3");
        assert!(check_duplicate_keys("a: {x: 1}\nb: {x: 1}\n").is_ok());
    }
}
