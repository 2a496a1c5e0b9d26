//! Identifiers and block-size mixes: values every input file names (suites, drives,
//! trace profiles), parsed with the field they came from.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use crate::units::SizeLabel;

use super::{describe, scalar, scalar_or_map, Node, Scalar};

/// An identifier used in file names and URLs: lowercase letters, digits, `-`, `_`, `.`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Ident(pub String);

impl Ident {
    /// Checks `text` against the identifier rules.
    pub fn parse(text: &str) -> Result<Ident, String> {
        let ok = !text.is_empty()
            && text.len() <= 64
            && text
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
            && text
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric());
        if ok {
            Ok(Ident(text.to_string()))
        } else {
            Err(format!(
                "expected an identifier of lowercase letters, digits, '-', '_' and '.' (starting with a letter or digit, at most 64), found {text:?}"
            ))
        }
    }
}

impl<'de> Deserialize<'de> for Ident {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar(d, "an identifier", |s| match s {
            Scalar::Str(t) => Ident::parse(t),
            other => Err(format!(
                "expected an identifier, found {}",
                other.describe()
            )),
        })
    }
}

impl fmt::Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One block size or a weighted mix, sorted by size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockSizes(pub Vec<(u64, u32)>);

impl BlockSizes {
    /// The smallest size of the mix.
    pub fn min(&self) -> u64 {
        self.0.iter().map(|(s, _)| *s).min().unwrap_or(0)
    }
    /// The largest size of the mix.
    pub fn max(&self) -> u64 {
        self.0.iter().map(|(s, _)| *s).max().unwrap_or(0)
    }
    /// The mix's mean size, by weight.
    pub fn mean(&self) -> f64 {
        let weight: u64 = self.0.iter().map(|(_, w)| *w as u64).sum();
        let bytes: u64 = self.0.iter().map(|(s, w)| s * *w as u64).sum();
        bytes as f64 / weight.max(1) as f64
    }
    /// Label such as `4 KiB` or `4 KiB 30%, 16 KiB 11%`.
    pub fn label(&self) -> String {
        if self.0.len() == 1 {
            return SizeLabel(self.0[0].0).to_string();
        }
        let total: u32 = self.0.iter().map(|(_, w)| w).sum();
        self.0
            .iter()
            .map(|(s, w)| {
                format!(
                    "{} {}%",
                    SizeLabel(*s),
                    (*w as f64 * 100.0 / total as f64).round()
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn block_size(text: &str) -> Result<u64, String> {
    match crate::units::parse_size(text)? {
        0 => Err("expected a block size above zero, found 0".into()),
        b if b > u32::MAX as u64 => {
            Err(format!("expected a block size below 4 GiB, found {text:?}"))
        }
        b => Ok(b),
    }
}

impl<'de> Deserialize<'de> for BlockSizes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar_or_map(
            d,
            "a block size such as 4KiB, or a weighted mix such as {4KiB: 30, 16KiB: 11}",
            |node| {
                let mut sizes = match node {
                    Node::Map(m) => {
                        if m.is_empty() {
                            return Err("expected at least one block size in the mix".into());
                        }
                        let mut out = Vec::new();
                        for (k, w) in &m {
                            let text = match k {
                                serde_yaml::Value::String(s) => s.clone(),
                                serde_yaml::Value::Number(n) => n.to_string(),
                                other => {
                                    return Err(format!(
                                        "expected a block size such as 4KiB, found {}",
                                        describe(other)
                                    ))
                                }
                            };
                            let weight = w
                                .as_u64()
                                .filter(|w| (1..=1_000_000).contains(w))
                                .ok_or_else(|| {
                                    format!(
                                        "expected a weight from 1 to 1000000 for {text}, found {}",
                                        describe(w)
                                    )
                                })?;
                            out.push((block_size(&text)?, weight as u32));
                        }
                        out
                    }
                    Node::Scalar(s) => match s.text() {
                        Some(t) => vec![(block_size(&t)?, 1)],
                        None => {
                            return Err(format!(
                                "expected a block size such as 4KiB, found {}",
                                s.describe()
                            ))
                        }
                    },
                };
                sizes.sort();
                if sizes.windows(2).any(|w| w[0].0 == w[1].0) {
                    return Err("expected each block size once in the mix".into());
                }
                Ok(BlockSizes(sizes))
            },
        )
    }
}
