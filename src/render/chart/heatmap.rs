//! Heat maps: a grid of figures over two dimensions (SNIA PTS's block size × read/write mix
//! table), each cell shaded on a log scale from the smallest figure to the largest, with
//! its figure written in it.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::units::figure;

use super::{accessible, draw_svg, fit, font, heading, INK, MUTED};

/// A heat map: `values[row][column]`, rows drawn top to bottom, a missing cell blank.
#[derive(Debug, Clone)]
pub struct HeatMap {
    /// Chart id (and its SVG's).
    pub id: String,
    /// The chart's title.
    pub title: String,
    /// The workload in words.
    pub subtitle: String,
    /// Unit and which way is better.
    pub caption: String,
    /// What the rows are (`block size`).
    pub row_axis: String,
    /// What the columns are (`read/write mix, %`).
    pub column_axis: String,
    /// Row labels, top to bottom.
    pub rows: Vec<String>,
    /// Column labels, left to right.
    pub columns: Vec<String>,
    /// The figures, a row at a time.
    pub values: Vec<Vec<Option<f64>>>,
    /// The chart in words, for screen readers.
    pub summary: String,
}

/// Left of the grid: the row labels.
const LEFT: i32 = 96;
/// Above the grid: the heading and the column labels.
const TOP: i32 = 112;
const ROW: i32 = 34;
const WIDTH: i32 = 760;

/// The shade of `t` in 0..=1: light blue to dark blue (one hue, so the order reads without
/// colour vision).
fn shade(t: f64) -> RGBColor {
    let (lo, hi) = ((0xEF, 0xF3, 0xFF), (0x08, 0x30, 0x6B));
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * t.clamp(0.0, 1.0)).round() as u8;
    RGBColor(mix(lo.0, hi.0), mix(lo.1, hi.1), mix(lo.2, hi.2))
}

impl HeatMap {
    /// The smallest and the largest figure above zero (`lo > hi` where there is none).
    fn extremes(&self) -> (f64, f64) {
        let all = self.values.iter().flatten().flatten().filter(|v| **v > 0.0);
        all.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)))
    }

    /// Where a figure falls between the smallest and the largest, on a log scale.
    fn scale(&self) -> impl Fn(f64) -> f64 {
        let (lo, hi) = self.extremes();
        let (lo, hi) = (
            libm::log(lo.max(f64::MIN_POSITIVE)),
            libm::log(hi.max(f64::MIN_POSITIVE)),
        );
        move |v: f64| {
            if v <= 0.0 || hi <= lo {
                0.5
            } else {
                (libm::log(v) - lo) / (hi - lo)
            }
        }
    }

    /// The chart as an SVG document.
    pub fn to_svg(&self) -> Result<String, String> {
        let scale = self.scale();
        let cols = self.columns.len().max(1) as i32;
        let cell_w = (WIDTH - LEFT - 12) / cols;
        let svg = draw_svg(&self.id, self.rows.len() + 1, TOP, ROW, |root| {
            heading(root, &self.title, &self.subtitle, &self.caption)?;
            let err = |e| format!("{e:?}");
            let centre = Pos::new(HPos::Center, VPos::Center);
            let right = Pos::new(HPos::Right, VPos::Center);
            let left = Pos::new(HPos::Left, VPos::Center);
            root.draw(&Text::new(
                self.column_axis.clone(),
                (LEFT + cell_w * cols / 2, 80),
                font(13.0, true, MUTED, centre),
            ))
            .map_err(err)?;
            root.draw(&Text::new(
                self.row_axis.clone(),
                (12, 98),
                font(13.0, true, MUTED, left),
            ))
            .map_err(err)?;
            for (c, label) in self.columns.iter().enumerate() {
                let (text, size) = fit(label, 13.0, 9.0, false, cell_w - 4);
                let x = LEFT + c as i32 * cell_w + cell_w / 2;
                root.draw(&Text::new(text, (x, 98), font(size, false, INK, centre)))
                    .map_err(err)?;
            }
            for (r, label) in self.rows.iter().enumerate() {
                let y = TOP + r as i32 * ROW;
                let (text, size) = fit(label, 13.0, 9.0, false, LEFT - 16);
                root.draw(&Text::new(
                    text,
                    (LEFT - 8, y + ROW / 2),
                    font(size, false, INK, right),
                ))
                .map_err(err)?;
                for c in 0..self.columns.len() {
                    let x = LEFT + c as i32 * cell_w;
                    let value = self
                        .values
                        .get(r)
                        .and_then(|row| row.get(c))
                        .copied()
                        .flatten();
                    let Some(v) = value else { continue };
                    let t = scale(v);
                    root.draw(&Rectangle::new(
                        [(x + 1, y + 1), (x + cell_w - 1, y + ROW - 1)],
                        shade(t).filled(),
                    ))
                    .map_err(err)?;
                    let ink = if t > 0.55 { WHITE } else { INK };
                    let (text, size) = fit(&figure(v), 13.0, 8.0, false, cell_w - 6);
                    root.draw(&Text::new(
                        text,
                        (x + cell_w / 2, y + ROW / 2),
                        font(size, false, ink, centre),
                    ))
                    .map_err(err)?;
                }
            }
            // The key: the shades from the smallest figure to the largest.
            let y = TOP + self.rows.len() as i32 * ROW + 8;
            let (lo, hi) = self.extremes();
            if lo <= hi {
                let steps = 12;
                let w = 16;
                let x0 = LEFT + 70;
                root.draw(&Text::new(
                    figure(lo),
                    (x0 - 6, y + 8),
                    font(12.0, false, MUTED, right),
                ))
                .map_err(err)?;
                for k in 0..steps {
                    let x = x0 + k * w;
                    root.draw(&Rectangle::new(
                        [(x, y), (x + w, y + 16)],
                        shade(k as f64 / (steps - 1) as f64).filled(),
                    ))
                    .map_err(err)?;
                }
                root.draw(&Text::new(
                    format!("{} (log scale)", figure(hi)),
                    (x0 + steps * w + 6, y + 8),
                    font(12.0, false, MUTED, left),
                ))
                .map_err(err)?;
            }
            Ok(())
        })?;
        Ok(accessible(svg, &self.id, &self.title, &self.summary))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> HeatMap {
        HeatMap {
            id: "t".into(),
            title: "T".into(),
            subtitle: "w".into(),
            caption: "IOPS · higher is better".into(),
            row_axis: "block size".into(),
            column_axis: "read/write mix, %".into(),
            rows: vec!["4 KiB".into(), "1 MiB".into()],
            columns: vec!["100/0".into(), "0/100".into()],
            values: vec![
                vec![Some(90_000.0), Some(30_000.0)],
                vec![Some(3_000.0), None],
            ],
            summary: "s".into(),
        }
    }

    #[test]
    fn each_cell_is_shaded_by_its_figure_and_written_in_it() {
        let svg = map().to_svg().unwrap();
        assert!(
            ["90000", "30000", "3000"]
                .iter()
                .all(|v| svg.contains(&format!("\n{v}\n"))),
            "{svg}"
        );
        // The largest figure takes the darkest shade, the smallest the lightest.
        assert!(svg.contains("#08306B"), "{svg}");
        assert!(svg.contains("#EFF3FF"));
        // The missing cell draws nothing: three shaded cells and the key's twelve.
        let cells = svg.matches("<rect").count();
        assert_eq!(cells, 1 + 3 + 12, "background, cells, key");
        assert!(svg.contains("role=\"img\""));
    }
}
