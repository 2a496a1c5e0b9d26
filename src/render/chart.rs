//! Charts drawn with plotters into SVG, measured with the bundled font so that the same
//! figures give the same bytes on every machine.

use std::sync::Once;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;

use crate::units::figure;

/// The family name charts use; the site's stylesheet maps it to the bundled font.
pub const FONT_FAMILY: &str = "roundup-sans";
static FONT_REGULAR: &[u8] = include_bytes!("../../templates/static/fonts/DejaVuSans.ttf");
static FONT_BOLD: &[u8] = include_bytes!("../../templates/static/fonts/DejaVuSans-Bold.ttf");
static FONTS: Once = Once::new();

fn fonts() {
    FONTS.call_once(|| {
        // The bundled fonts are known-good TrueType files; a failure here is a build defect.
        let regular = plotters::style::register_font(FONT_FAMILY, FontStyle::Normal, FONT_REGULAR);
        let bold = plotters::style::register_font(FONT_FAMILY, FontStyle::Bold, FONT_BOLD);
        assert!(
            regular.is_ok() && bold.is_ok(),
            "the bundled fonts are valid TrueType"
        );
    });
}

/// Okabe–Ito colours: distinct for colour-blind readers.
pub const BAR: RGBColor = RGBColor(0x00, 0x72, 0xB2);
/// The highlight colour for the reviewed drive.
pub const HIGHLIGHT: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
const MUTED: RGBColor = RGBColor(0x66, 0x66, 0x66);
const GRID: RGBColor = RGBColor(0xDD, 0xDD, 0xDD);

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
    let mag = 10f64.powf(raw.log10().floor());
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

fn escape_xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The drawing area of a chart.
type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// A text style in the bundled font.
fn font(size: f64, bold: bool, color: RGBColor, pos: Pos) -> TextStyle<'static> {
    let style = if bold {
        FontStyle::Bold
    } else {
        FontStyle::Normal
    };
    FontDesc::new(FontFamily::Name(FONT_FAMILY), size, style)
        .color(&color)
        .pos(pos)
}

/// Title, workload and caption at the top left.
fn heading(root: &Area, title: &str, subtitle: &str, caption: &str) -> Result<(), String> {
    let lt = Pos::new(HPos::Left, VPos::Top);
    for (text, y, size, bold, color) in [
        (title, 10, 22.0, true, INK),
        (subtitle, 36, 16.0, false, MUTED),
        (caption, 54, 16.0, true, MUTED),
    ] {
        root.draw(&Text::new(
            text.to_string(),
            (12, y),
            font(size, bold, color, lt),
        ))
        .map_err(|e| format!("{e:?}"))?;
    }
    Ok(())
}

/// The value axis of horizontal bars: room for the longest label on the left, `right` pixels
/// for values on the right, light grid lines and tick labels from `top` to `bottom`.
struct Axis {
    x0: i32,
    x1: i32,
    top_value: f64,
}

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
        let label_font = FontDesc::new(FontFamily::Name(FONT_FAMILY), 17.0, FontStyle::Bold)
            .into_text_style(root);
        let widest = labels
            .iter()
            .map(|l| {
                root.estimate_text_size(l, &label_font)
                    .map(|(w, _)| w as i32)
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0);
        let (w, _) = root.dim_in_pixel();
        let max = values.filter(|v| v.is_finite()).fold(0.0, f64::max);
        let step = nice_step(max);
        let axis = Axis {
            x0: (widest + 24).clamp(140, 360),
            x1: w as i32 - right,
            top_value: (max / step).ceil().max(1.0) * step,
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
                figure(t),
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

/// Draws a chart of `rows` rows of `row` pixels below a heading of `top` pixels.
fn draw_svg(
    id: &str,
    rows: usize,
    top: i32,
    row: i32,
    body: impl FnOnce(&Area) -> Result<(), String>,
) -> Result<String, String> {
    fonts();
    let h = (top + (rows.max(1) as i32) * row + 34) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, h)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| format!("{e:?}"))?;
        body(&root).map_err(|e| format!("drawing chart {id}: {e}"))?;
        root.present()
            .map_err(|e| format!("drawing chart {id}: {e:?}"))?;
    }
    Ok(svg)
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
                root.draw(&Text::new(
                    b.label.clone(),
                    (axis.x0 - 10, y + ROW / 2),
                    font(17.0, b.highlight, INK, Pos::new(HPos::Right, VPos::Center)),
                ))
                .map_err(|e| format!("{e:?}"))?;
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

/// Gives an SVG a role, a title and a description for screen readers.
fn accessible(svg: String, id: &str, title: &str, desc: &str) -> String {
    let id = escape_xml(id);
    let head =
        format!("<svg role=\"img\" aria-labelledby=\"{id}-title {id}-desc\" class=\"chart\" ");
    let inner = format!(
        "<title id=\"{id}-title\">{}</title><desc id=\"{id}-desc\">{}</desc>",
        escape_xml(title),
        escape_xml(desc)
    );
    let svg = svg.replacen("<svg ", &head, 1);
    match svg.find('>') {
        Some(i) => format!("{}{}{}", &svg[..=i], inner, &svg[i + 1..]),
        None => svg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(svg.contains(FONT_FAMILY));
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

/// The change from `a` to `b` in percent, signed: `+12%`, `-3%`; `–` when `a` is not above zero.
pub fn percent_change(a: f64, b: f64) -> String {
    if a > 0.0 && b.is_finite() {
        format!("{:+.0}%", (b / a - 1.0) * 100.0)
    } else {
        "–".into()
    }
}

/// The second colour of paired bars (Okabe–Ito vermillion).
pub const SECOND: RGBColor = RGBColor(0xD5, 0x5E, 0x00);

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
                root.draw(&Text::new(
                    name.clone(),
                    (x + 20, 80),
                    font(15.0, false, INK, Pos::new(HPos::Left, VPos::Center)),
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
                root.draw(&Text::new(
                    p.label.clone(),
                    (axis.x0 - 10, y + ROW / 2),
                    font(17.0, p.highlight, INK, Pos::new(HPos::Right, VPos::Center)),
                ))
                .map_err(e)?;
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
