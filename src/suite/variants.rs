//! A test's variants: the dimensions that multiply it (data, align, queue depth, block
//! size, threads, write share, offered load), expanded in a stable order into ids, labels
//! and workloads. A numeric dimension of three values or more is a sweep, charted as a
//! curve.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::config::{BlockSizes, Percent, QueueDepth, Size, Threads};
use crate::units::{size_token, SizeLabel};
use crate::workload::{DataKind, Operation, RateLimit, Workload};

use super::TestSpec;

/// The dimensions that multiply a test; each combination is a variant, stored and charted
/// on its own. Dimensions combine in this order: data, align, queue_depth, block_size,
/// threads, writes, rate.
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
    /// Engine threads.
    #[serde(default)]
    pub threads: Vec<Threads>,
    /// Shares of the I/Os that write (AnandTech's mixed test: 0% to 100%).
    #[serde(default)]
    pub writes: Vec<Percent>,
    /// Offered loads (`10000 IOPS`, `200MB/s`): the QoS curve.
    #[serde(default)]
    pub rate: Vec<RateLimit>,
}

/// The suite key of a dimension's short name in variant ids (`qd` → `queue_depth`).
pub fn dimension_key(dimension: &str) -> &str {
    match dimension {
        "qd" => "queue_depth",
        "bs" => "block_size",
        "t" => "threads",
        "wr" => "writes",
        d => d,
    }
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
    Threads(u32),
    Writes(u8),
    Rate(RateLimit),
}

impl Setting {
    /// The dimension's short name in variant ids.
    fn dimension(&self) -> &'static str {
        match self {
            Setting::Data(_) => "data",
            Setting::Align(_) => "align",
            Setting::QueueDepth(_) => "qd",
            Setting::BlockSize(_) => "bs",
            Setting::Threads(_) => "t",
            Setting::Writes(_) => "wr",
            Setting::Rate(_) => "rate",
        }
    }
    /// The dimension's key in a suite's `variants:`.
    fn key(&self) -> &'static str {
        dimension_key(self.dimension())
    }
    /// The value in variant ids: `compressible`, `512b`, `32`, `128k`.
    fn token(&self) -> String {
        match self {
            Setting::Data(d) => d.word().to_string(),
            Setting::Align(a) | Setting::BlockSize(a) => size_token(*a),
            Setting::QueueDepth(q) | Setting::Threads(q) => q.to_string(),
            Setting::Writes(w) => w.to_string(),
            Setting::Rate(r) => r.token(),
        }
    }
    /// The value for people: `compressible`, `512 B aligned`, `QD32`, `128 KiB`.
    fn label(&self) -> String {
        match self {
            Setting::Data(d) => d.word().to_string(),
            Setting::Align(a) => format!("{} aligned", SizeLabel(*a)),
            Setting::QueueDepth(q) => format!("QD{q}"),
            Setting::BlockSize(b) => SizeLabel(*b).to_string(),
            Setting::Threads(t) => format!("T{t}"),
            Setting::Writes(w) => format!("{w}% writes"),
            Setting::Rate(r) => format!("{} offered", r.label()),
        }
    }
    fn apply(&self, w: &mut Workload) {
        match *self {
            Setting::Threads(t) => w.threads = t,
            Setting::Writes(p) => {
                w.operation = Operation {
                    read_percent: 100 - p,
                }
            }
            Setting::Rate(r) => w.rate = Some(r),
            Setting::Data(d) => w.data = d,
            Setting::Align(a) => w.align = a,
            Setting::QueueDepth(q) => w.queue_depth = q,
            Setting::BlockSize(b) => w.block_size = BlockSizes(vec![(b, 1)]),
        }
    }
}

impl TestSpec {
    /// Expands the variants into (variant, workload) pairs in a stable order: dimensions
    /// in the order data, align, queue_depth, block_size, threads, writes, rate, values as
    /// written.
    pub fn expand(&self) -> Vec<(Variant, Workload)> {
        let dimensions: Vec<Vec<Setting>> = self
            .variants
            .dimensions()
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
    /// Each dimension's values as settings, in combination order (empty where the test
    /// names none).
    fn dimensions(&self) -> [Vec<Setting>; 7] {
        [
            self.data.iter().map(|d| Setting::Data(*d)).collect(),
            self.align.iter().map(|a| Setting::Align(a.0)).collect(),
            self.queue_depth
                .iter()
                .map(|q| Setting::QueueDepth(q.0))
                .collect(),
            self.block_size
                .iter()
                .map(|b| Setting::BlockSize(b.0))
                .collect(),
            self.threads.iter().map(|t| Setting::Threads(t.0)).collect(),
            self.writes.iter().map(|w| Setting::Writes(w.0)).collect(),
            self.rate.iter().map(|r| Setting::Rate(*r)).collect(),
        ]
    }

    /// Each dimension names at least two values (one is the test's own key, not a
    /// variant), each once.
    pub(super) fn check(&self) -> Result<(), String> {
        for dim in self.dimensions() {
            let Some(name) = dim.first().map(Setting::key) else {
                continue;
            };
            if dim.len() == 1 {
                return Err(format!(
                    "variants.{name}: expected two values or more (a sweep of one value is \
                     the test itself: set `{name}` on the test instead)"
                ));
            }
            let tokens: BTreeSet<String> = dim.iter().map(Setting::token).collect();
            if tokens.len() != dim.len() {
                return Err(format!("variants.{name}: expected each value once"));
            }
        }
        Ok(())
    }
}
