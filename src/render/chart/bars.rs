//! Horizontal bar charts in the review style: one bar per drive, or a pair per drive (two
//! variants of a test) with the difference in percent.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    accessible, draw_svg, fit, font, heading, text_width, tick, Area, BAR, GRID, HIGHLIGHT, INK,
    MUTED, SECOND,
};
use crate::units::figure;

/// One bar of a horizontal bar chart.
#[derive(Debug, Clone)]
pub struct BarItem {
    /// The drive's name.
    pub label: String,
    /// The figure.
    pub value: f64,
    /// Drawn in the highlight colour and bold (the reviewed drive).
    pub highlight: bool,
}

/// A horizontal bar chart in the review style.
#[derive(Debug, Clone)]
pub struct BarChart {
    /// Id for the SVG's title and description elements.
    pub id: String,
    /// Test title (and variant).
    pub title: String,
    /// The workload in words.
    pub subtitle: String,
    /// The unit and direction: `MB/s · higher is better`.
    pub caption: String,
    /// The bars, in drawing order (top first).
    pub bars: Vec<BarItem>,
}

/// A step of 1, 2 or 5 × 10^k giving about five ticks up to `max`.
fn nice_step(max: f64) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let raw = max / 5.0;
    let mag = libm::pow(10.0, libm::floor(libm::log10(raw)));
    let r = raw / mag;
    mag * if r <= 1.0 {
        1.0
    } else if r <= 2.0 {
        2.0
    } else if r <= 5.0 {
        5.0
    } else {
        10.0
    }
}

/// The value axis of horizontal bars: room for the longest label on the left, `right` pixels
/// for values on the right, light grid lines and tick labels from `top` to `bottom`.
struct Axis {
    x0: i32,
    x1: i32,
    top_value: f64,
    /// One size for every drive label of the chart: the largest, down to 13 px, at which
    /// the widest fits its column.
    label_size: f64,
}

/// A drive label's size at most, pixels.
const LABEL_SIZE: f64 = 17.0;

impl Axis {
    fn draw(
        root: &Area,
        labels: &[&str],
        values: impl Iterator<Item = f64>,
        right: i32,
        top: i32,
        bottom: i32,
    ) -> Result<Axis, String> {
        let e = |e: DrawingAreaErrorKind<_>| format!("{e:?}");
        // Measured bold, as the reviewed drive's label is drawn.
        let (widest, label) = labels
            .iter()
            .map(|l| (text_width(l, LABEL_SIZE, true), *l))
            .max()
            .unwrap_or((0, ""));
        let x0 = (widest + 24).clamp(140, 360);
        let (w, _) = root.dim_in_pixel();
        let max = values.filter(|v| v.is_finite()).fold(0.0, f64::max);
        let step = nice_step(max);
        let axis = Axis {
            x0,
            x1: w as i32 - right,
            top_value: (max / step).ceil().max(1.0) * step,
            label_size: fit(label, LABEL_SIZE, 13.0, true, x0 - 14).1,
        };
        let mut t = 0.0;
        while t <= axis.top_value + step * 0.01 {
            let x = axis.x(t);
            root.draw(&PathElement::new(
                vec![(x, top - 4), (x, bottom)],
                GRID.stroke_width(1),
            ))
            .map_err(e)?;
            root.draw(&Text::new(
                tick(t),
                (x, bottom + 6),
                font(15.0, false, MUTED, Pos::new(HPos::Center, VPos::Top)),
            ))
            .map_err(e)?;
            t += step;
        }
        root.draw(&PathElement::new(
            vec![(axis.x0, top - 4), (axis.x0, bottom)],
            MUTED.stroke_width(1),
        ))
        .map_err(e)?;
        Ok(axis)
    }

    /// A drive's label, right-aligned to the axis at the middle of its row `y` (bold for the
    /// reviewed drive), at the chart's label size, cut short if even that is too wide.
    fn label(&self, root: &Area, text: &str, y: i32, bold: bool) -> Result<(), String> {
        let (text, size) = fit(text, self.label_size, self.label_size, bold, self.x0 - 14);
        root.draw(&Text::new(
            text,
            (self.x0 - 10, y),
            font(size, bold, INK, Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(|e| format!("{e:?}"))
    }

    /// The x pixel of a value (clamped to the axis start for negative or missing values).
    fn x(&self, v: f64) -> i32 {
        if !v.is_finite() {
            return self.x0;
        }
        self.x0 + ((v.max(0.0) / self.top_value) * (self.x1 - self.x0) as f64).round() as i32
    }

    /// A bar from the axis to `v` over the vertical band `(top, height)`, with its value
    /// printed at the end (bold for the reviewed drive).
    fn bar(
        &self,
        root: &Area,
        v: f64,
        (y, height): (i32, i32),
        color: RGBColor,
        bold: bool,
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<_>| format!("{e:?}");
        let end = self.x(v);
        let size = if height >= 20 { 16.0 } else { 14.0 };
        root.draw(&Rectangle::new(
            [(self.x0, y), (end.max(self.x0 + 1), y + height)],
            color.filled(),
        ))
        .map_err(e)?;
        root.draw(&Text::new(
            figure(v),
            (end + 6, y + height / 2),
            font(size, bold, INK, Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(e)?;
        Ok(())
    }
}

impl BarChart {
    /// Draws the chart as an SVG document with a title and description for screen readers.
    pub fn to_svg(&self) -> Result<String, String> {
        const TOP: i32 = 70;
        const ROW: i32 = 28;
        let svg = draw_svg(&self.id, self.bars.len(), TOP, ROW, |root| {
            heading(root, &self.title, &self.subtitle, &self.caption)?;
            let labels: Vec<&str> = self.bars.iter().map(|b| b.label.as_str()).collect();
            let axis = Axis::draw(
                root,
                &labels,
                self.bars.iter().map(|b| b.value),
                80,
                TOP,
                TOP + self.bars.len() as i32 * ROW,
            )?;
            for (i, b) in self.bars.iter().enumerate() {
                let y = TOP + i as i32 * ROW;
                let color = if b.highlight { HIGHLIGHT } else { BAR };
                axis.bar(root, b.value, (y + 4, ROW - 8), color, b.highlight)?;
                axis.label(root, &b.label, y + ROW / 2, b.highlight)?;
            }
            Ok(())
        })?;
        let desc = self
            .bars
            .iter()
            .map(|b| format!("{}: {}", b.label, figure(b.value)))
            .collect::<Vec<_>>()
            .join("; ");
        Ok(accessible(
            svg,
            &self.id,
            &self.title,
            &format!("{}. {}. {}.", self.subtitle, self.caption, desc),
        ))
    }
}

/// The change from `a` to `b` in percent, signed: `+12%`, `-3%`; `–` when `a` is not above zero.
pub fn percent_change(a: f64, b: f64) -> String {
    match percent(a, b) {
        Some(pct) => format!("{pct:+.0}%"),
        None => "–".into(),
    }
}

/// The change from `a` to `b` in whole percent, as [`percent_change`] writes it; None where
/// there is none to give (`a` not above zero, `b` not a figure).
pub fn percent(a: f64, b: f64) -> Option<f64> {
    // Rounded first, so a change that rounds to nothing reads +0%, never -0%.
    (a > 0.0 && b.is_finite()).then(|| ((b / a - 1.0) * 100.0).round() + 0.0)
}

/// One drive's pair of figures.
#[derive(Debug, Clone)]
pub struct PairItem {
    /// The drive's name.
    pub label: String,
    /// The first variant's figure.
    pub a: f64,
    /// The second variant's figure.
    pub b: f64,
    /// Drawn in bold (the reviewed drive).
    pub highlight: bool,
}

/// Paired horizontal bars: two variants of a test per drive, with the difference in percent.
#[derive(Debug, Clone)]
pub struct PairChart {
    /// Id for the SVG's title and description elements.
    pub id: String,
    /// Title.
    pub title: String,
    /// The workload in words.
    pub subtitle: String,
    /// Unit and direction.
    pub caption: String,
    /// Names of the two variants, as the legend shows them.
    pub legend: (String, String),
    /// The pairs, top first.
    pub pairs: Vec<PairItem>,
}

impl PairChart {
    /// Draws the chart as an SVG document.
    pub fn to_svg(&self) -> Result<String, String> {
        const TOP: i32 = 92;
        const ROW: i32 = 40;
        let svg = draw_svg(&self.id, self.pairs.len(), TOP, ROW, |root| {
            let e = |e: DrawingAreaErrorKind<_>| format!("{e:?}");
            heading(root, &self.title, &self.subtitle, &self.caption)?;
            for (i, (name, color)) in [(&self.legend.0, BAR), (&self.legend.1, SECOND)]
                .into_iter()
                .enumerate()
            {
                let x = 12 + i as i32 * 260;
                root.draw(&Rectangle::new([(x, 74), (x + 14, 86)], color.filled()))
                    .map_err(e)?;
                let (name, size) = fit(name, 15.0, 12.0, false, 236);
                root.draw(&Text::new(
                    name,
                    (x + 20, 80),
                    font(size, false, INK, Pos::new(HPos::Left, VPos::Center)),
                ))
                .map_err(e)?;
            }
            let labels: Vec<&str> = self.pairs.iter().map(|p| p.label.as_str()).collect();
            let axis = Axis::draw(
                root,
                &labels,
                self.pairs.iter().flat_map(|p| [p.a, p.b]),
                150,
                TOP,
                TOP + self.pairs.len() as i32 * ROW,
            )?;
            let (w, _) = root.dim_in_pixel();
            for (i, p) in self.pairs.iter().enumerate() {
                let y = TOP + i as i32 * ROW;
                axis.label(root, &p.label, y + ROW / 2, p.highlight)?;
                axis.bar(root, p.a, (y + 4, 14), BAR, p.highlight)?;
                axis.bar(root, p.b, (y + 20, 14), SECOND, p.highlight)?;
                let diff = percent_change(p.a, p.b);
                root.draw(&Text::new(
                    diff,
                    (w as i32 - 12, y + ROW / 2),
                    font(16.0, true, INK, Pos::new(HPos::Right, VPos::Center)),
                ))
                .map_err(e)?;
            }
            Ok(())
        })?;
        let desc: Vec<String> = self
            .pairs
            .iter()
            .map(|p| format!("{}: {} / {}", p.label, figure(p.a), figure(p.b)))
            .collect();
        Ok(accessible(
            svg,
            &self.id,
            &self.title,
            &format!(
                "{}. {}. {} / {}: {}.",
                self.subtitle,
                self.caption,
                self.legend.0,
                self.legend.1,
                desc.join("; ")
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::chart::FONT_FAMILY;

    fn chart() -> BarChart {
        BarChart {
            id: "rw.base".into(),
            title: "4KB Random Write".into(),
            subtitle: "4 KiB random write, QD3".into(),
            caption: "MB/s · higher is better".into(),
            bars: vec![
                BarItem {
                    label: "Intel X25-M <G2>".into(),
                    value: 28.9,
                    highlight: true,
                },
                BarItem {
                    label: "OCZ Vertex".into(),
                    value: 9.97,
                    highlight: false,
                },
            ],
        }
    }

    #[test]
    fn svg_has_every_bar_label_and_accessibility() {
        let svg = chart().to_svg().unwrap();
        assert!(svg.starts_with("<svg role=\"img\""));
        assert!(svg.contains("<title id=\"rw.base-title\">4KB Random Write</title>"));
        assert!(svg.contains("Intel X25-M &lt;G2&gt;"), "labels are escaped");
        assert!(svg.contains(">\nOCZ Vertex\n</text>"));
        assert!(svg.contains(">\n28.9\n") && svg.contains(">\n9.97\n"));
        assert!(svg.contains("higher is better"));
        assert_eq!(svg.matches("fill=\"#0072B2\"").count(), 1);
        assert_eq!(svg.matches("fill=\"#E69F00\"").count(), 1);
        // The bundled font first, then fallbacks for the SVG file opened on its own.
        assert!(svg.contains(&format!(
            "font-family=\"{FONT_FAMILY}, DejaVu Sans, sans-serif\""
        )));
        // Ticks read as figures: 0, 10, 20, 30 (not 10.0).
        assert!(svg.contains(">\n10\n</text>") && !svg.contains(">\n10.0\n</text>"));
    }

    /// Each `<text>` of an SVG: its font size, its content and whether it is bold.
    fn texts(svg: &str) -> Vec<(f64, String, bool)> {
        svg.split("<text ")
            .skip(1)
            .map(|t| {
                let (attrs, rest) = t.split_once('>').unwrap_or((t, ""));
                let size = attrs.split("font-size=\"").nth(1).unwrap_or("0");
                let size = size[..size.find('"').unwrap_or(0)].parse().unwrap_or(0.0);
                let body = rest.split("</text>").next().unwrap_or("").trim();
                (
                    size,
                    body.to_string(),
                    attrs.contains("font-weight=\"bold\""),
                )
            })
            .collect()
    }

    #[test]
    fn a_long_title_or_label_is_fitted_to_the_chart_not_cut_off_by_its_edge() {
        let title = "4KB Random Write: firmware 045C8610 vs firmware 045C8820 (compressible, 4 KiB aligned)";
        let name =
            "A drive whose name is far longer than any column of a chart could ever hold, 2 TB";
        let mut c = chart();
        c.title = title.into();
        c.bars[1].label = name.into();
        let t = texts(&c.to_svg().unwrap());
        let short = texts(&chart().to_svg().unwrap());
        // Whole, in a smaller size than a short title's.
        assert_eq!(t[0].1, title);
        assert!(t[0].0 < short[0].0, "{} vs {}", t[0].0, short[0].0);
        // The absurd label is cut short, with an ellipsis.
        let label = t.iter().find(|(_, s, _)| s.starts_with("A drive")).unwrap();
        assert!(
            label.1.ends_with('…') && label.1.len() < name.len(),
            "{}",
            label.1
        );
        // Every drive label of a chart in one size.
        let other = t.iter().find(|(_, s, _)| s.starts_with("Intel")).unwrap();
        assert_eq!(label.0, other.0);
        // Measured with the bundled font, every text stays inside the 760 px drawing.
        let ratio = short[0].0 / 22.0;
        assert!(t[0].2, "the title is bold");
        for (size, text, bold) in &t {
            let width = text_width(text, size / ratio, *bold);
            assert!(width <= 760 - 12, "{text:?} is {width} px wide");
        }
        // A title of 100,000 characters costs a few measurements, not 100,000.
        c.title = "x".repeat(100_000);
        let t = texts(&c.to_svg().unwrap());
        assert!(t[0].1.ends_with('…') && t[0].1.len() < 400);
        assert!(text_width(&t[0].1, t[0].0 / ratio, true) <= 760 - 12);
    }

    #[test]
    fn same_figures_same_bytes() {
        assert_eq!(chart().to_svg().unwrap(), chart().to_svg().unwrap());
    }

    #[test]
    fn steps_are_nice() {
        assert_eq!(nice_step(28.9), 10.0);
        assert_eq!(nice_step(250.0), 50.0);
        assert_eq!(nice_step(0.02), 0.005);
    }
}
