//! Loading the lab's YAML files with errors that name file, line, column and field, and the
//! value types those files use (sizes, durations, rates, queue depths).

use std::fmt;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::InputError;
use crate::units;

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

/// Whether `s` reads as a field path: keys of letters, digits and `_`, joined by `.`,
/// with `[n]` indices.
fn is_path(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'))
        && segments(s).is_some()
}

/// A line of YAML that holds something: its 1-based number, its indentation and the text
/// after it.
#[derive(Debug, Clone, Copy)]
struct YamlLine<'a> {
    no: usize,
    indent: usize,
    text: &'a str,
}

/// The lines of `text` that are neither blank nor comments nor document markers.
fn yaml_lines(text: &str) -> Vec<YamlLine<'_>> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim_start_matches(' ');
            let blank = t.trim().is_empty() || t.starts_with('#') || t.trim_end() == "---";
            (!blank).then_some(YamlLine {
                no: i + 1,
                indent: l.len() - t.len(),
                text: t,
            })
        })
        .collect()
}

/// One step of a field path.
#[derive(Debug, PartialEq)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// `ssd.firmwares.original` or `tests[2].variants.align` as steps; `None` if malformed.
fn segments(path: &str) -> Option<Vec<Step<'_>>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if key.is_empty() && rest.is_empty() {
            return None;
        }
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            out.push(Step::Index(r[..end].parse().ok()?));
            rest = &r[end + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

/// The key a `key: value` line starts with (quotes removed), if it is one.
fn key_of(text: &str) -> Option<&str> {
    if let Some(q @ ('"' | '\'')) = text.chars().next() {
        let end = text[1..].find(q)? + 1;
        return text[end + 1..].starts_with(':').then(|| &text[1..end]);
    }
    let i = text.find(':')?;
    let after = &text[i + 1..];
    (after.is_empty() || after.starts_with(' ')).then(|| text[..i].trim_end())
}

/// The lines of the node that starts at `at` (1-based line and column; the whole text for
/// 1:1): from that column of its first line, then the lines indented deeper than that line.
fn node_at<'a>(lines: &[YamlLine<'a>], at: (usize, usize)) -> Option<Vec<YamlLine<'a>>> {
    if at == (1, 1) {
        return Some(lines.to_vec());
    }
    let j = lines.iter().position(|l| l.no == at.0)?;
    let first = lines[j];
    let skip = (at.1.checked_sub(1)?).checked_sub(first.indent)?;
    let mut text = first.text.get(skip..)?;
    let mut indent = first.indent + skip;
    // A list item: its node begins after the dash.
    let item = text.starts_with('-');
    if let Some(rest) = text.strip_prefix('-') {
        let trimmed = rest.trim_start_matches(' ');
        indent += 1 + rest.len() - trimmed.len();
        text = trimmed;
    }
    let mut body = Vec::new();
    if !text.trim().is_empty() {
        body.push(YamlLine {
            no: first.no,
            indent,
            text,
        });
    }
    // A block mapping that starts its line goes on at that line's indentation; one that
    // starts after a dash or a key, at any deeper one.
    let own =
        |l: &&YamlLine| l.indent > first.indent || (skip == 0 && !item && l.indent == first.indent);
    body.extend(lines[j + 1..].iter().take_while(own));
    Some(body)
}

/// Where the list item starting at `at` stands in its list (0 for the first), if a list
/// item starts there.
fn item_index(lines: &[YamlLine<'_>], at: (usize, usize)) -> Option<usize> {
    let j = lines.iter().position(|l| l.no == at.0)?;
    let dash = lines[j];
    if dash.indent + 1 != at.1 || !dash.text.starts_with('-') {
        return None;
    }
    let before = lines[..j]
        .iter()
        .rev()
        .take_while(|l| {
            l.indent > dash.indent || (l.indent == dash.indent && l.text.starts_with('-'))
        })
        .filter(|l| l.indent == dash.indent)
        .count();
    Some(before)
}

/// The 1-based line and column of the key or item at `path` below the node starting at
/// `at` (see [`node_at`]), in block-style YAML; within a `{flow: mapping}` written on one
/// line, of the key on that line. A key that is not there gives the deepest one that is
/// on its path (`None` if none is).
fn locate(lines: &[YamlLine<'_>], at: (usize, usize), path: &str) -> Option<(usize, usize)> {
    let mut body = node_at(lines, at)?;
    let mut found = None;
    // The text after a key whose value is written on its line, and that text's column.
    let mut inline: Option<(usize, usize, &str)> = None;
    for step in segments(path)? {
        // A node written as a `{flow: mapping}` (a list item, a key's value).
        if let (None, [first, ..]) = (inline, &body[..]) {
            if first.text.starts_with('{') {
                inline = Some((first.no, first.indent, first.text));
            }
        }
        if let Some((no, col, text)) = inline {
            let Step::Key(k) = step else {
                return found;
            };
            let Some(i) = text.match_indices(k).map(|(i, _)| i).find(|&i| {
                let before = text[..i].trim_end_matches(' ');
                let keyed = text[i + k.len()..].trim_start_matches(['"', '\'']);
                (before.is_empty() || before.ends_with(['{', ',', '"', '\'']))
                    && keyed.starts_with(':')
            }) else {
                return found;
            };
            let start = i - usize::from(text[..i].ends_with(['"', '\'']));
            found = Some((no, col + start + 1));
            inline = Some((no, col + i, &text[i..]));
            continue;
        }
        let Some(base) = body.first().map(|l| l.indent) else {
            return found;
        };
        let at_base = |l: &YamlLine| l.indent == base;
        let hit = match step {
            Step::Key(k) => body
                .iter()
                .enumerate()
                .find(|(_, l)| at_base(l) && key_of(l.text) == Some(k)),
            Step::Index(n) => body
                .iter()
                .enumerate()
                .filter(|(_, l)| at_base(l) && l.text.starts_with('-'))
                .nth(n),
        };
        // A key left out (a required one, or one whose default is wrong): its mapping.
        let Some((i, l)) = hit else {
            return found;
        };
        let l = *l;
        found = Some((l.no, l.indent + 1));
        let rest = &body[i + 1..];
        let child: Vec<YamlLine> = match step {
            Step::Key(_) => {
                let deeper: Vec<_> = rest
                    .iter()
                    .take_while(|m| m.indent > base)
                    .copied()
                    .collect();
                if deeper.is_empty() {
                    // A list may sit at its key's own indentation.
                    rest.iter()
                        .take_while(|m| {
                            m.indent > base || (m.indent == base && m.text.starts_with('-'))
                        })
                        .copied()
                        .collect()
                } else {
                    deeper
                }
            }
            Step::Index(_) => {
                let after = &l.text[1..];
                let trimmed = after.trim_start_matches(' ');
                let mut v = Vec::new();
                if !trimmed.trim().is_empty() {
                    v.push(YamlLine {
                        no: l.no,
                        indent: l.indent + 1 + after.len() - trimmed.len(),
                        text: trimmed,
                    });
                }
                v.extend(rest.iter().take_while(|m| m.indent > base));
                v
            }
        };
        if child.is_empty() && matches!(step, Step::Key(_)) {
            let value = l.text.find(':').map_or("", |c| &l.text[c + 1..]);
            inline = Some((l.no, l.indent + l.text.len() - value.len(), value));
        }
        body = child;
    }
    found
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
    fn checks_after_reading_point_at_the_key_they_name() {
        let text = "# a drive\nid: x\nssd:\n  page: 3KiB\n  firmwares:\n    \"1\": {gc_policy: fifo}\n    two:\n      gc: foreground\n\ntests:\n- id: a\n  count: 5\n- id: b\n  span: full\n  variants: {align: [512B, 4KiB]}\n";
        let lines = yaml_lines(text);
        let top = (1, 1);
        assert_eq!(locate(&lines, top, "ssd.page"), Some((4, 3)));
        assert_eq!(
            locate(&lines, top, "ssd.firmwares.1.gc_policy"),
            Some((6, 11))
        );
        assert_eq!(locate(&lines, top, "ssd.firmwares.two.gc"), Some((8, 7)));
        assert_eq!(locate(&lines, top, "tests[1].span"), Some((14, 3)));
        assert_eq!(
            locate(&lines, top, "tests[1].variants.align"),
            Some((15, 14))
        );
        // A key left out: the mapping it belongs in.
        assert_eq!(locate(&lines, top, "ssd.log_blocks"), Some((3, 1)));
        assert_eq!(locate(&lines, top, "nothing"), None);
        // From a mapping's first key, as serde reports a check of a mapping value.
        assert_eq!(locate(&lines, (4, 3), "firmwares.two"), Some((7, 5)));
        let flow = "tests:\n  - {id: a, trace: {generate: {profile: x}}}\n";
        assert_eq!(
            locate(&yaml_lines(flow), top, "tests[0].trace.generate.profile"),
            Some((2, 32))
        );
        // Within a flow mapping that starts the node.
        assert_eq!(locate(&lines, (15, 13), "align"), Some((15, 14)));
        // From a list item, as serde reports a check of the item.
        assert_eq!(item_index(&lines, (13, 1)), Some(1));
        assert_eq!(locate(&lines, (13, 1), "span"), Some((14, 3)));
        let e = at_key(
            InputError::new(
                "s.yaml",
                "tests",
                "count: expected either `duration` or `count`",
            )
            .at(11, 1),
            text,
        );
        assert_eq!(
            e.to_string(),
            "s.yaml:12:3: tests[0].count: expected either `duration` or `count`"
        );
        // An error that already has its scalar's position is left as it is.
        let e = at_key(
            InputError::new("s.yaml", "tests[1].span", "expected a size").at(14, 9),
            text,
        );
        assert_eq!(e.to_string(), "s.yaml:14:9: tests[1].span: expected a size");
    }

    #[test]
    fn unknown_keys_are_errors() {
        let text = "items:\n  - qd: 3\n    size: 4KiB\n    colour: red\n";
        let e = from_yaml::<Doc>(Path::new("x.yaml"), text).unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.message.contains("unknown field `colour`"), "{e}");
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
