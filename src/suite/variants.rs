//! A test's variants: the dimensions that multiply it (data, align, queue depth, block
//! size), expanded in a stable order into ids, labels and workloads.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::config::{BlockSizes, QueueDepth, Size};
use crate::units::{size_token, SizeLabel};
use crate::workload::{DataKind, Workload};

use super::TestSpec;

/// The dimensions that multiply a test; each combination is a variant, stored and charted
/// on its own. Dimensions combine in this order: data, align, queue_depth, block_size.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Variants {
    /// Data patterns.
    #[serde(default)]
    pub data: Vec<DataKind>,
    /// Alignments.
    #[serde(default)]
    pub align: Vec<Size>,
    /// Queue depths.
    #[serde(default)]
    pub queue_depth: Vec<QueueDepth>,
    /// Single block sizes.
    #[serde(default)]
    pub block_size: Vec<Size>,
}

/// One combination of variant values, with its id and label.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Variant {
    /// Path-safe id: `base`, or `data-compressible_align-512b`.
    pub id: String,
    /// Label for people: `compressible, 512 B aligned`.
    pub label: String,
    /// `dimension=value` pairs in combination order.
    pub settings: Vec<(String, String)>,
}

/// One value of one variant dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Setting {
    Data(DataKind),
    Align(u64),
    QueueDepth(u32),
    BlockSize(u64),
}

impl Setting {
    /// The dimension's short name in variant ids.
    fn dimension(&self) -> &'static str {
        match self {
            Setting::Data(_) => "data",
            Setting::Align(_) => "align",
            Setting::QueueDepth(_) => "qd",
            Setting::BlockSize(_) => "bs",
        }
    }
    /// The value in variant ids: `compressible`, `512b`, `32`, `128k`.
    fn token(&self) -> String {
        match self {
            Setting::Data(d) => d.word().to_string(),
            Setting::Align(a) | Setting::BlockSize(a) => size_token(*a),
            Setting::QueueDepth(q) => q.to_string(),
        }
    }
    /// The value for people: `compressible`, `512 B aligned`, `QD32`, `128 KiB`.
    fn label(&self) -> String {
        match self {
            Setting::Data(d) => d.word().to_string(),
            Setting::Align(a) => format!("{} aligned", SizeLabel(*a)),
            Setting::QueueDepth(q) => format!("QD{q}"),
            Setting::BlockSize(b) => SizeLabel(*b).to_string(),
        }
    }
    fn apply(&self, w: &mut Workload) {
        match *self {
            Setting::Data(d) => w.data = d,
            Setting::Align(a) => w.align = a,
            Setting::QueueDepth(q) => w.queue_depth = q,
            Setting::BlockSize(b) => w.block_size = BlockSizes(vec![(b, 1)]),
        }
    }
}

impl TestSpec {
    /// Expands the variants into (variant, workload) pairs in a stable order: dimensions
    /// in the order data, align, queue_depth, block_size, values as written.
    pub fn expand(&self) -> Vec<(Variant, Workload)> {
        let v = &self.variants;
        let dimensions: Vec<Vec<Setting>> = [
            v.data.iter().map(|d| Setting::Data(*d)).collect::<Vec<_>>(),
            v.align.iter().map(|a| Setting::Align(a.0)).collect(),
            v.queue_depth
                .iter()
                .map(|q| Setting::QueueDepth(q.0))
                .collect(),
            v.block_size
                .iter()
                .map(|b| Setting::BlockSize(b.0))
                .collect(),
        ]
        .into_iter()
        .filter(|d| !d.is_empty())
        .collect();
        let mut combos: Vec<Vec<Setting>> = vec![vec![]];
        for dim in &dimensions {
            combos = combos
                .iter()
                .flat_map(|c| dim.iter().map(move |s| [c.as_slice(), &[*s]].concat()))
                .collect();
        }
        combos
            .into_iter()
            .map(|settings| {
                let mut w = self.workload.clone();
                settings.iter().for_each(|s| s.apply(&mut w));
                let variant = if settings.is_empty() {
                    Variant {
                        id: "base".into(),
                        label: String::new(),
                        settings: vec![],
                    }
                } else {
                    Variant {
                        id: settings
                            .iter()
                            .map(|s| format!("{}-{}", s.dimension(), s.token()))
                            .collect::<Vec<_>>()
                            .join("_"),
                        label: settings
                            .iter()
                            .map(Setting::label)
                            .collect::<Vec<_>>()
                            .join(", "),
                        settings: settings
                            .iter()
                            .map(|s| (s.dimension().to_string(), s.token()))
                            .collect(),
                    }
                };
                (variant, w)
            })
            .collect()
    }
}

impl Variants {
    /// Each dimension names each value once.
    pub(super) fn check_unique(&self) -> Result<(), String> {
        let dims = [
            (
                "data",
                self.data.len(),
                self.data.iter().collect::<BTreeSet<_>>().len(),
            ),
            (
                "align",
                self.align.len(),
                self.align
                    .iter()
                    .map(|a| a.0)
                    .collect::<BTreeSet<_>>()
                    .len(),
            ),
            (
                "queue_depth",
                self.queue_depth.len(),
                self.queue_depth.iter().collect::<BTreeSet<_>>().len(),
            ),
            (
                "block_size",
                self.block_size.len(),
                self.block_size
                    .iter()
                    .map(|b| b.0)
                    .collect::<BTreeSet<_>>()
                    .len(),
            ),
        ];
        for (name, n, unique) in dims {
            if unique != n {
                return Err(format!("variants.{name}: expected each value once"));
            }
        }
        Ok(())
    }
}
