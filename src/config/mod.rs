//! Loading the lab's YAML files with errors that name file, line, column and field, and the
//! value types those files use (sizes, durations, rates, queue depths).

use std::fmt;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::InputError;
use crate::units;

mod loaded;
mod position;
mod values;

pub use loaded::{sha256_file, sha256_hex, Loaded};
pub use values::{BlockSizes, Ident};

/// The content of `file` as text, or where its first byte that is not UTF-8 is.
pub fn utf8_text<'a>(file: &Path, bytes: &'a [u8]) -> Result<&'a str, InputError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        // The prefix is valid UTF-8: its characters on this line give the column.
        let column = String::from_utf8_lossy(&good[line_start..]).chars().count() + 1;
        InputError::new(
            file,
            "",
            format!(
                "expected UTF-8 text, found byte 0x{:02X} (saved as Latin-1 or Windows-1252? save it as UTF-8)",
                bytes[e.valid_up_to()]
            ),
        )
        .at(line, column)
    })
}

/// Parses `text` (the content of `file`) as YAML into `T`. Unknown keys are errors where
/// `T` denies them; every error carries the position and the field path.
pub fn from_yaml<T: DeserializeOwned>(file: &Path, text: &str) -> Result<T, InputError> {
    serde_yaml::from_str(text).map_err(|e| at_key(yaml_error(file, &e), text))
}

/// Points an error at the key it names. A check made once a mapping is read (a drive's
/// parameters against each other, a test's length) is reported where that mapping starts,
/// or at the top of the file, with the key's path at the head of its message
/// (`ssd.page: …`, `duration: …`): this finds that key in `text` and reports its line and
/// column, and the path from the file's top (`tests[2].duration`).
pub fn at_key(mut e: InputError, text: &str) -> InputError {
    use position::{is_path, item_index, locate, yaml_lines};
    let at = (e.line, e.column);
    let lines = yaml_lines(text);
    // The mapping checked: a list item gets its index in the field ("tests" → "tests[0]").
    if let Some(i) = item_index(&lines, at) {
        if !e.field.is_empty() && !e.field.ends_with(']') {
            e.field = format!("{}[{i}]", e.field);
        }
    }
    let key = match e.message.split_once(": ") {
        Some((head, rest)) if is_path(head) => {
            let head = head.to_string();
            e.message = rest.to_string();
            e.field = if e.field.is_empty() {
                head.clone()
            } else {
                format!("{}.{head}", e.field)
            };
            head
        }
        // At the top of the file the path split off the message is the whole field.
        _ if at == (1, 1) && is_path(&e.field) => e.field.clone(),
        _ => return e,
    };
    if let Some((line, column)) = locate(&lines, at, &key) {
        (e.line, e.column) = (line, column);
    }
    e
}

/// Converts a serde_yaml error into an [`InputError`], splitting its field path from its
/// message and keeping its position.
pub fn yaml_error(file: &Path, e: &serde_yaml::Error) -> InputError {
    let mut message = e.to_string();
    if let Some(i) = message.rfind(" at line ") {
        message.truncate(i);
    }
    // serde_yaml prefixes the message with the path of the field ("tests[0].span: ...").
    let mut field = String::new();
    if let Some((head, tail)) = message.split_once(": ") {
        if !head.is_empty() && !head.contains(' ') {
            field = head.to_string();
            message = tail.to_string();
        }
    }
    let message = plain_words(&message);
    // An error about the document as a whole (a missing top-level key) has no position of
    // its own: it is reported at the top of the file.
    let (line, column) = e
        .location()
        .map(|l| (l.line(), l.column()))
        .unwrap_or((1, 1));
    InputError {
        file: file.to_path_buf(),
        line,
        column,
        field,
        message,
    }
}

/// serde's "invalid type: FOUND, expected WANTED" (or "invalid value: …") in the words of
/// every other message ("expected WANTED, found FOUND"), with Rust's type names said as
/// what to write (`u64` is "a whole number from 0 to 18446744073709551615"; an enum given
/// a list or a mapping, "a YAML tag starting with '!'", wants a name) and YAML's
/// (a sequence is a list).
fn plain_words(message: &str) -> String {
    if let Some((at, hint)) = did_you_mean_field(message) {
        // The hint goes right after the name: the list that follows can be long.
        let (head, list) = message.split_at(at);
        return format!("{head} ({hint}){list}");
    }
    let Some((found, wanted)) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
        .and_then(|m| m.split_once(", expected "))
    else {
        return message.to_string();
    };
    let whole = |max: u64| format!("a whole number from 0 to {max}");
    let wanted = match wanted {
        "u8" => whole(u8::MAX.into()),
        "u16" => whole(u16::MAX.into()),
        "u32" => whole(u32::MAX.into()),
        "u64" | "usize" => whole(u64::MAX),
        "i64" => "a whole number".to_string(),
        "f64" | "f32" => "a number".to_string(),
        "a YAML tag starting with '!'" => "a name (one word)".to_string(),
        "a map" => "a mapping".to_string(),
        "a sequence" => "a list".to_string(),
        // A nested section (`ssd:`, a firmware) named by its Rust type.
        other if other.starts_with("struct ") => "a mapping of `key: value` lines".to_string(),
        other => other.to_string(),
    };
    let found = match found {
        "sequence" => "a list".to_string(),
        "map" => "a mapping".to_string(),
        "unit value" => "nothing".to_string(),
        // A number too large for any integer type is read "as u128".
        other => other.replace(" as u128", ""),
    };
    format!("expected {wanted}, found {found}")
}

/// For serde's "unknown field `X`, expected one of `a`, `b`, …" (or "unknown variant"), where
/// `X` ends (after its closing backtick) and a hint naming what it was probably meant to be
/// ([`did_you_mean`]).
fn did_you_mean_field(message: &str) -> Option<(usize, String)> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))?;
    let (found, expected) = rest.split_once("`, expected ")?;
    let names = expected.split('`').skip(1).step_by(2);
    let hint = did_you_mean(&likely(found, names), |name| format!("`{name}`"))?;
    Some((message.len() - rest.len() + found.len() + 1, hint))
}

/// "did you mean A?" or "did you mean A, B or C?", each name quoted by `quote`; `None` for
/// no names.
pub fn did_you_mean(names: &[&str], quote: impl Fn(&str) -> String) -> Option<String> {
    let quoted: Vec<String> = names.iter().map(|n| quote(n)).collect();
    let (last, rest) = quoted.split_last()?;
    Some(if rest.is_empty() {
        format!("did you mean {last}?")
    } else {
        format!("did you mean {} or {last}?", rest.join(", "))
    })
}

/// "did you mean \"A\"?" for a name the lab does not know, if [`likely`] finds one.
pub fn suggest<'a>(found: &str, names: impl IntoIterator<Item = &'a str>) -> Option<String> {
    did_you_mean(&likely(found, names), |n| format!("{n:?}"))
}

/// The names among `names` that `found` was probably meant to be, at most three: those it
/// begins, if three letters or more (punctuation and case aside: `bittech` for
/// `bit-tech-2009`), else the closest by edit distance if within a third of its length (one
/// edit for short names). Empty when nothing is close or too much is.
pub fn likely<'a>(found: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    const MOST: usize = 3;
    let plain = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let names: Vec<&str> = names.into_iter().filter(|&n| n != found).collect();
    let stem = plain(found);
    if stem.len() >= 3 {
        let begun: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| plain(n).starts_with(&stem))
            .collect();
        if !begun.is_empty() {
            return if begun.len() <= MOST {
                begun
            } else {
                Vec::new()
            };
        }
    }
    let length = found.chars().count();
    let limit = (length / 3).max(1);
    let near: Vec<(usize, &str)> = names
        .iter()
        .map(|&n| (edit_distance(found, n), n))
        .filter(|&(d, _)| d <= limit && d < length)
        .collect();
    let Some(best) = near.iter().map(|&(d, _)| d).min() else {
        return Vec::new();
    };
    let closest: Vec<&str> = near
        .into_iter()
        .filter(|&(d, _)| d == best)
        .map(|(_, n)| n)
        .collect();
    if closest.len() <= MOST {
        closest
    } else {
        Vec::new()
    }
}

/// The edit distance between two names: insertions, deletions, substitutions and swaps of
/// two neighbouring letters (`mien` for `mine`), each one edit (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows of the table: two back, one back, and the one being filled.
    let mut before: Vec<usize> = Vec::new();
    let mut last: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let substitute = last[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            row[j] = substitute.min(last[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut last, row);
    }
    last[b.len()]
}

/// A YAML scalar as a visitor receives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar<'a> {
    /// A string.
    Str(&'a str),
    /// A non-negative integer.
    Unsigned(u64),
    /// A negative integer.
    Signed(i64),
    /// A float.
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
    /// `~`, `null` or nothing.
    Null,
}

impl Scalar<'_> {
    /// The scalar as text a parser can read (strings and numbers), if it is one.
    pub fn text(&self) -> Option<String> {
        match self {
            Scalar::Str(s) => Some(s.to_string()),
            Scalar::Unsigned(n) => Some(n.to_string()),
            Scalar::Signed(n) => Some(n.to_string()),
            Scalar::Float(f) => Some(f.to_string()),
            _ => None,
        }
    }

    /// How an error message names the scalar.
    pub fn describe(&self) -> String {
        match self {
            Scalar::Str(s) => format!("{s:?}"),
            Scalar::Unsigned(n) => n.to_string(),
            Scalar::Signed(n) => n.to_string(),
            Scalar::Float(f) => f.to_string(),
            Scalar::Bool(b) => b.to_string(),
            Scalar::Null => "nothing".into(),
        }
    }
}

/// A YAML node as a value type reads it: a scalar or a mapping (in file order).
#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    /// A scalar.
    Scalar(Scalar<'a>),
    /// A mapping's entries.
    Map(Vec<(serde_yaml::Value, serde_yaml::Value)>),
}

struct NodeVisitor<F> {
    expected: String,
    allow_map: bool,
    parse: F,
}

impl<'de, T, F: FnOnce(Node) -> Result<T, String>> serde::de::Visitor<'de> for NodeVisitor<F> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.expected)
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
        (self.parse)(Node::Scalar(Scalar::Str(v))).map_err(E::custom)
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<T, E> {
        (self.parse)(Node::Scalar(Scalar::Unsigned(v))).map_err(E::custom)
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<T, E> {
        (self.parse)(Node::Scalar(Scalar::Signed(v))).map_err(E::custom)
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<T, E> {
        (self.parse)(Node::Scalar(Scalar::Float(v))).map_err(E::custom)
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<T, E> {
        (self.parse)(Node::Scalar(Scalar::Bool(v))).map_err(E::custom)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<T, E> {
        (self.parse)(Node::Scalar(Scalar::Null)).map_err(E::custom)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        use serde::de::Error as _;
        if !self.allow_map {
            return Err(A::Error::custom(format!(
                "expected {}, found a mapping",
                self.expected
            )));
        }
        let mut entries = Vec::new();
        while let Some(e) = map.next_entry::<serde_yaml::Value, serde_yaml::Value>()? {
            entries.push(e);
        }
        (self.parse)(Node::Map(entries)).map_err(A::Error::custom)
    }
}

/// Deserializes a scalar through `parse`. The parse runs inside the deserializer, so its
/// error carries the scalar's own line, column and field path; a list or mapping is an
/// error naming `expected`.
pub fn scalar<'de, D, T>(
    d: D,
    expected: &str,
    parse: impl FnOnce(Scalar) -> Result<T, String>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let visitor = NodeVisitor {
        expected: expected.to_string(),
        allow_map: false,
        parse: for_any_node(|n| match n {
            Node::Scalar(s) => parse(s),
            Node::Map(_) => Err("a mapping".into()),
        }),
    };
    d.deserialize_any(visitor)
}

/// Reads a mapping as `R`, then turns it into `T` with `check` (which compares its keys
/// with each other). The check runs while the mapping is being read, so its error carries
/// the mapping's own position and field path (`tests[2]`, not the list it is in); a message
/// starting with a key (`count: …`) is then pointed at that key by [`at_key`].
pub fn checked_map<'de, D, R, T>(
    d: D,
    expected: &'static str,
    check: fn(R) -> Result<T, String>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    R: Deserialize<'de>,
{
    struct Checked<R, T> {
        expected: &'static str,
        check: fn(R) -> Result<T, String>,
    }
    impl<'de, R: Deserialize<'de>, T> serde::de::Visitor<'de> for Checked<R, T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.expected)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            use serde::de::Error as _;
            let raw = R::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
            (self.check)(raw).map_err(A::Error::custom)
        }
    }
    d.deserialize_map(Checked { expected, check })
}

/// Gives a closure the signature "for any lifetime of the node", which inference misses.
fn for_any_node<T, F: FnOnce(Node) -> Result<T, String>>(f: F) -> F {
    f
}

/// Deserializes a scalar or a mapping through `parse`, with positions as for [`scalar`].
pub fn scalar_or_map<'de, D, T>(
    d: D,
    expected: &str,
    parse: impl FnOnce(Node) -> Result<T, String>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    d.deserialize_any(NodeVisitor {
        expected: expected.to_string(),
        allow_map: true,
        parse,
    })
}

/// Reads a scalar's text and parses it with `parse`.
pub fn scalar_text<'de, D, T>(
    d: D,
    expected: &str,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let what = expected.to_string();
    scalar(d, expected, move |s| match s.text() {
        Some(t) => parse(&t),
        None => Err(format!("expected {what}, found {}", s.describe())),
    })
}

/// Names a YAML value's kind for error messages.
pub fn describe(v: &serde_yaml::Value) -> String {
    match v {
        serde_yaml::Value::Null => "nothing".into(),
        serde_yaml::Value::Bool(b) => format!("{b}"),
        serde_yaml::Value::Number(n) => format!("{n}"),
        serde_yaml::Value::String(s) => format!("{s:?}"),
        serde_yaml::Value::Sequence(_) => "a list".into(),
        serde_yaml::Value::Mapping(_) => "a mapping".into(),
        serde_yaml::Value::Tagged(t) => format!("a value tagged {}", t.tag),
    }
}

macro_rules! text_value {
    ($(#[$doc:meta])* $name:ident($inner:ty), $what:expr, $parse:expr, $show:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let parse: fn(&str) -> Result<$inner, String> = $parse;
                scalar_text(d, $what, parse).map($name)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let show: fn(&$inner) -> String = $show;
                f.write_str(&show(&self.0))
            }
        }
    };
}

text_value!(
    /// A size in bytes, written `4KiB`, `128k`, `8GiB`, `160GB`.
    Size(u64),
    "a size such as 4KiB or 8GiB",
    |t| {
        let b = units::parse_size(t)?;
        if b == 0 { Err(format!("expected a size above zero, found {t:?}")) } else { Ok(b) }
    },
    |b| units::SizeLabel(*b).to_string().replace(' ', "")
);

text_value!(
    /// A duration in nanoseconds, written `3m`, `90s`, `500ms`.
    Duration(u64),
    "a duration such as 90s or 3m",
    units::parse_duration,
    |ns| units::DurationLabel(*ns).to_string().replace(' ', "").replace("min", "m").replace('µ', "u")
);

text_value!(
    /// A transfer rate in bytes per second, written `250MB/s`.
    Rate(f64),
    "a rate such as 250MB/s",
    units::parse_rate,
    |r| format!("{}MB/s", r / 1e6)
);

/// A queue depth: a whole number from 1 to 65535.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct QueueDepth(pub u32);

impl<'de> Deserialize<'de> for QueueDepth {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        whole_number(d, 1, 65535).map(|v| QueueDepth(v as u32))
    }
}

/// Engine threads: a whole number from 1 to 256.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Threads(pub u32);

impl<'de> Deserialize<'de> for Threads {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        whole_number(d, 1, 256).map(|v| Threads(v as u32))
    }
}

/// A whole percentage, written `30%` (or `0.3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Percent(pub u8);

impl<'de> Deserialize<'de> for Percent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar_text(d, "a whole percentage such as 30%", |t| {
            let f = parse_fraction(t)?;
            let p = libm::round(f * 100.0);
            if (f * 100.0 - p).abs() > 1e-9 {
                return Err(format!(
                    "expected a whole percentage such as 30%, found {t:?}"
                ));
            }
            Ok(Percent(p as u8))
        })
    }
}

/// A count: a whole number from 1 up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Count(pub u64);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        whole_number(d, 1, u64::MAX).map(Count)
    }
}

/// Reads a whole number within `[lo, hi]`, with a message that says the range.
pub fn whole_number<'de, D: Deserializer<'de>>(d: D, lo: u64, hi: u64) -> Result<u64, D::Error> {
    let expected = if hi == u64::MAX {
        format!("a whole number from {lo} up")
    } else {
        format!("a whole number from {lo} to {hi}")
    };
    let msg = expected.clone();
    scalar(d, &expected, move |s| match s {
        Scalar::Unsigned(n) if (lo..=hi).contains(&n) => Ok(n),
        other => Err(format!("expected {msg}, found {}", other.describe())),
    })
}

/// A fraction from 0 to 1, written `0.25` or `25%`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
pub struct Fraction(pub f64);

impl<'de> Deserialize<'de> for Fraction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar_text(d, "a fraction such as 0.25 or 25%", parse_fraction).map(Fraction)
    }
}

/// Parses `0.25` or `25%` into 0.25.
pub fn parse_fraction(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let v = if let Some(p) = t.strip_suffix('%') {
        p.trim().parse::<f64>().map(|p| p / 100.0)
    } else {
        t.parse::<f64>()
    };
    match v {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!(
            "expected a fraction from 0 to 1 (or 0% to 100%), found {t:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        items: Vec<Item>,
    }
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        qd: QueueDepth,
        size: Size,
    }

    #[test]
    fn errors_carry_position_and_field() {
        let text = "items:\n  - qd: 3\n    size: 4KiB\n  - qd: 0\n    size: 4KiB\n";
        let e = from_yaml::<Doc>(Path::new("x.yaml"), text).unwrap_err();
        assert_eq!(e.field, "items[1].qd");
        assert_eq!((e.line, e.column), (4, 9));
        assert_eq!(
            e.message,
            "expected a whole number from 1 to 65535, found 0"
        );
        assert_eq!(
            e.to_string(),
            "x.yaml:4:9: items[1].qd: expected a whole number from 1 to 65535, found 0"
        );
    }

    #[test]
    fn checks_after_reading_are_reported_at_the_key_they_name() {
        let text = "tests:\n- id: a\n  count: 5\n- id: b\n  span: full\n";
        let e = at_key(
            InputError::new(
                "s.yaml",
                "tests",
                "count: expected either `duration` or `count`",
            )
            .at(2, 1),
            text,
        );
        assert_eq!(
            e.to_string(),
            "s.yaml:3:3: tests[0].count: expected either `duration` or `count`"
        );
        // An error that already has its scalar's position is left as it is.
        let e = at_key(
            InputError::new("s.yaml", "tests[1].span", "expected a size").at(5, 9),
            text,
        );
        assert_eq!(e.to_string(), "s.yaml:5:9: tests[1].span: expected a size");
    }

    #[test]
    fn unknown_keys_are_errors() {
        let text = "items:\n  - qd: 3\n    size: 4KiB\n    colour: red\n";
        let e = from_yaml::<Doc>(Path::new("x.yaml"), text).unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.message.contains("unknown field `colour`"), "{e}");
        assert!(!e.message.contains("did you mean"), "{e}");
        // A section given something else is told it wants keys, not the Rust type's name.
        let e = from_yaml::<Doc>(Path::new("x.yaml"), "items: [5]\n").unwrap_err();
        assert_eq!(
            e.message,
            "expected a mapping of `key: value` lines, found integer `5`"
        );
        // A misspelt key is told the one it was probably meant to be.
        let text = "items:\n  - qd: 3\n    sise: 4KiB\n";
        let e = from_yaml::<Doc>(Path::new("x.yaml"), text).unwrap_err();
        assert_eq!(
            e.message,
            "unknown field `sise` (did you mean `size`?), expected `qd` or `size`"
        );
    }

    #[test]
    fn likely_names() {
        let drives = [
            "intel-x25-e-64",
            "intel-x25m-g2-160",
            "intel-x25m-g2-160-used",
            "ocz-vertex-120",
            "bit-tech-2009",
        ];
        // What a name begins, punctuation and case aside.
        assert_eq!(likely("bittech", drives), ["bit-tech-2009"]);
        assert_eq!(
            likely("intel-x25m-g2", drives),
            ["intel-x25m-g2-160", "intel-x25m-g2-160-used"]
        );
        // Too short to say which of many.
        assert!(likely("i", drives).is_empty());
        // A misspelling, and no guess for what is nothing like any name.
        assert_eq!(likely("ocz-vretex-120", drives), ["ocz-vertex-120"]);
        assert!(likely("samsung", drives).is_empty());
        assert_eq!(
            did_you_mean(&["a", "b", "c"], |n| format!("{n:?}")).unwrap(),
            "did you mean \"a\", \"b\" or \"c\"?"
        );
        assert_eq!(did_you_mean(&[], |n| n.to_string()), None);
        // The hint follows the name, wherever else its letters are in the message.
        assert_eq!(
            plain_words("unknown variant `ian`, expected `iab`"),
            "unknown variant `ian` (did you mean `iab`?), expected `iab`"
        );
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("chanels", "channels"), 1);
        assert_eq!(edit_distance("queue_dept", "queue_depth"), 1);
        assert_eq!(edit_distance("randm", "random"), 1);
        assert_eq!(edit_distance("abc", "abc"), 0);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("abc", ""), 3);
        // A swap of neighbours is one edit.
        assert_eq!(edit_distance("mien", "mine"), 1);
        assert_eq!(edit_distance("bsae", "base"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
    }

    #[test]
    fn type_errors_say_what_to_write() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        enum Kind {
            #[serde(rename = "a")]
            A,
        }
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Top {
            seed: u64,
            kind: Option<Kind>,
        }
        for (text, wanted) in [
            (
                "seed: 1.5\n",
                "expected a whole number from 0 to 18446744073709551615, found floating point `1.5`",
            ),
            (
                "seed: -1\n",
                "expected a whole number from 0 to 18446744073709551615, found integer `-1`",
            ),
            (
                "seed: 99999999999999999999999\n",
                "expected a whole number from 0 to 18446744073709551615, found integer `99999999999999999999999`",
            ),
            (
                "seed: 1\nkind: [a]\n",
                "expected a name (one word), found a list",
            ),
            ("seed: 1\nkind: b\n", "unknown variant `b`, expected `a`"),
            (
                "seed: 1\nkind: aa\n",
                "unknown variant `aa` (did you mean `a`?), expected `a`",
            ),
        ] {
            let e = from_yaml::<Top>(Path::new("x.yaml"), text).unwrap_err();
            assert_eq!(e.message, wanted, "{text:?}");
        }
    }

    #[test]
    fn sizes_in_yaml() {
        let text = "items:\n  - qd: 3\n    size: 4 parsecs\n";
        let e = from_yaml::<Doc>(Path::new("x.yaml"), text).unwrap_err();
        assert_eq!(e.field, "items[0].size");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("size unit"), "{e}");
    }
}
