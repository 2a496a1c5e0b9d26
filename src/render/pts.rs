//! A round-major steady-state test (SNIA PTS IOPS) as its report shows it: for each drive,
//! the measurement window's figure of every variant as a heat map over the test's two
//! dimensions (block size × read/write mix), with the same grid as a table beside it.
//! Only the tracked variant also gets the usual bar chart and latency charts: the grid
//! holds the other cells (and the explorer every figure of each).

use std::collections::BTreeMap;

use crate::analysis::TestFigures;
use crate::error::RenderError;
use crate::lab::Lab;
use crate::units::figure;

use super::chart::HeatMap;
use super::context::{Figure, TableCtx, TableRow};
use super::format::csv_field;
use super::pairs::settings;
use super::sweeps::token_value;

/// One dimension of the grid: its short name and its values (number, label), in order.
struct GridAxis {
    dimension: String,
    values: Vec<(f64, String, String)>,
}

impl GridAxis {
    /// What the dimension is, for the axis.
    fn name(&self) -> &'static str {
        match self.dimension.as_str() {
            "bs" => "block size",
            "wr" => "read/write mix, %",
            "qd" => "queue depth",
            "t" => "threads",
            _ => "variant",
        }
    }
}

/// A round-major test's variants on a grid of its two dimensions.
pub(super) struct Grid<'a> {
    /// Test id.
    pub test: String,
    rows: GridAxis,
    columns: GridAxis,
    /// `(row token, column token)` → the variant's figures.
    cells: BTreeMap<(String, String), &'a TestFigures>,
    /// The tracked variant's figures (the test's headline).
    tracked: &'a TestFigures,
}

/// The round-major tests of `suite` in the lab: test id → the tracked variant.
pub(super) fn round_major(lab: &Lab, suite: &str) -> BTreeMap<String, String> {
    lab.suites
        .get(suite)
        .map(|s| {
            s.spec
                .tests
                .iter()
                .filter_map(|t| Some((t.id.0.clone(), t.round_major.clone()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// A value's label on the grid: a read/write mix as SNIA writes it (`65/35`), else the
/// variant label's part.
fn value_label(dimension: &str, value: f64, label: &str) -> String {
    match dimension {
        "wr" => format!("{}/{}", 100 - value as u32, value as u32),
        _ => label.to_string(),
    }
}

/// The grid of `suite`'s `test` in `figures`, where its variants have exactly two numeric
/// dimensions and the tracked one has figures.
pub(super) fn grid<'a>(
    figures: &'a [TestFigures],
    suite: &str,
    test: &str,
    tracked: &str,
) -> Option<Grid<'a>> {
    let of_test = |f: &&TestFigures| f.suite == suite && f.test == test;
    let mut axes: [BTreeMap<String, (f64, String)>; 2] = Default::default();
    let mut names: [String; 2] = Default::default();
    let mut cells = BTreeMap::new();
    for f in figures.iter().filter(of_test) {
        let set = settings(&f.variant);
        let labels: Vec<&str> = f.variant_label.split(", ").collect();
        if set.len() != 2 || labels.len() != 2 {
            return None;
        }
        for (k, (dimension, token)) in set.iter().enumerate() {
            let value = token_value(dimension, token)?;
            names[k] = dimension.clone();
            axes[k].insert(
                token.clone(),
                (value, value_label(dimension, value, labels[k])),
            );
        }
        cells.insert((set[0].1.clone(), set[1].1.clone()), f);
    }
    let axis = |k: usize| {
        let mut values: Vec<(f64, String, String)> = axes[k]
            .iter()
            .map(|(token, (v, label))| (*v, label.clone(), token.clone()))
            .collect();
        values.sort_by(|a, b| a.0.total_cmp(&b.0));
        GridAxis {
            dimension: names[k].clone(),
            values,
        }
    };
    Some(Grid {
        test: test.to_string(),
        rows: axis(0),
        columns: axis(1),
        tracked: figures
            .iter()
            .filter(of_test)
            .find(|f| f.variant == tracked)?,
        cells,
    })
}

impl Grid<'_> {
    /// The drives with figures on the grid, in id order.
    pub(super) fn drives(&self) -> Vec<(String, String)> {
        let mut drives: BTreeMap<String, String> = BTreeMap::new();
        for f in self.cells.values() {
            for b in &f.bars {
                drives.insert(b.drive.clone(), b.drive_name.clone());
            }
        }
        drives.into_iter().collect()
    }

    /// Each cell's IOPS for `drive`, a row at a time.
    fn values(&self, drive: &str) -> Vec<Vec<Option<f64>>> {
        self.rows
            .values
            .iter()
            .map(|(_, _, r)| {
                self.columns
                    .values
                    .iter()
                    .map(|(_, _, c)| {
                        let f = self.cells.get(&(r.clone(), c.clone()))?;
                        Some(f.bars.iter().find(|b| b.drive == drive)?.iops)
                    })
                    .collect()
            })
            .collect()
    }

    /// The heat map and table of `drive` as chart `slot`.
    pub(super) fn figure(
        &self,
        drive: &str,
        drive_name: &str,
        slot: &str,
    ) -> Result<Figure, RenderError> {
        let values = self.values(drive);
        let t = self.tracked;
        let tracked_iops = t.bars.iter().find(|b| b.drive == drive).map(|b| b.iops);
        let mut csv = format!(
            "drive,{},{},iops\n",
            self.rows.dimension, self.columns.dimension
        );
        let mut rows = Vec::new();
        for ((_, row_label, row_token), row) in self.rows.values.iter().zip(&values) {
            let mut cells = vec![row_label.clone()];
            for ((_, _, col_token), v) in self.columns.values.iter().zip(row) {
                cells.push(v.map_or_else(|| "–".into(), figure));
                if let Some(v) = v {
                    csv.push_str(&format!(
                        "{},{row_token},{col_token},{}\n",
                        csv_field(drive),
                        figure(*v)
                    ));
                }
            }
            rows.push(TableRow {
                cells,
                highlight: false,
            });
        }
        let row_name = self.rows.name();
        let column_name = self.columns.name();
        let chart = HeatMap {
            id: slot.to_string(),
            title: format!("{}: {drive_name}", t.title),
            // The tracked cell's workload but its block size and operation, which the
            // grid varies.
            subtitle: format!(
                "{} cells, steady state on {}{}",
                self.cells.len(),
                t.variant_label,
                t.workload
                    .split_once(", ")
                    .map_or(String::new(), |(_, rest)| format!(", {rest}"))
            ),
            caption: "IOPS in the steady-state measurement window · higher is better".into(),
            row_axis: row_name.into(),
            column_axis: column_name.into(),
            rows: self.rows.values.iter().map(|v| v.1.clone()).collect(),
            columns: self.columns.values.iter().map(|v| v.1.clone()).collect(),
            values,
            summary: format!(
                "{drive_name}'s IOPS by {row_name} and {column_name}, {} cells.",
                self.cells.len()
            ),
        };
        let svg = chart.to_svg().map_err(RenderError::Chart)?;
        let mut head = vec![capitalised(row_name)];
        head.extend(self.columns.values.iter().map(|v| v.1.clone()));
        let draft = tracked_iops.map_or_else(String::new, |iops| {
            format!(
                "In steady state the {drive_name} sustained {} IOPS of {}.",
                figure(iops),
                t.variant_label
            )
        });
        Ok(Figure {
            id: chart.id,
            title: chart.title,
            subtitle: chart.subtitle,
            caption: chart.caption,
            svg,
            table: TableCtx {
                caption: format!(
                    "{drive_name}: IOPS by {row_name} (rows) and {column_name} (columns), \
                     over the measurement window"
                ),
                head,
                rows,
                folded: false,
                text_columns: 1,
            },
            figures: csv.clone(),
            csv: Some(csv),
            draft,
        })
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}
