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

/// The width of `text` in pixels at `size` in the bundled font (0 if it cannot be measured).
fn text_width(text: &str, size: f64, bold: bool) -> i32 {
    let style = if bold {
        FontStyle::Bold
    } else {
        FontStyle::Normal
    };
    FontDesc::new(FontFamily::Name(FONT_FAMILY), size, style)
        .box_size(text)
        .map(|(w, _)| w as i32)
        .unwrap_or(0)
}

/// `text` as it fits in `room` pixels: at `size`; else at the largest size down to `min`
/// (in half pixels) at which it fits; else at `min`, cut short with an ellipsis (a chart's
/// `<title>` and its page keep it whole).
fn fit(text: &str, size: f64, min: f64, bold: bool, room: i32) -> (String, f64) {
    let mut at = size;
    while at >= min {
        if text_width(text, at, bold) <= room {
            return (text.to_string(), at);
        }
        at -= 0.5;
    }
    // The longest prefix that fits with its ellipsis, found by halving (a prefix is never
    // narrower than a shorter one), so that even an absurdly long name costs a few
    // measurements.
    let chars: Vec<char> = text.chars().collect();
    let cut = |n: usize| format!("{}…", chars[..n].iter().collect::<String>().trim_end());
    let (mut fits, mut too_long) = (0, chars.len());
    while too_long - fits > 1 {
        let mid = (fits + too_long) / 2;
        if text_width(&cut(mid), min, bold) <= room {
            fits = mid;
        } else {
            too_long = mid;
        }
    }
    (cut(fits), min)
}

/// Title, workload and caption at the top left, each made to fit the chart's width.
fn heading(root: &Area, title: &str, subtitle: &str, caption: &str) -> Result<(), String> {
    let lt = Pos::new(HPos::Left, VPos::Top);
    let room = root.dim_in_pixel().0 as i32 - 24;
    for (text, y, size, min, bold, color) in [
        (title, 10, 22.0, 16.0, true, INK),
        (subtitle, 36, 16.0, 13.0, false, MUTED),
        (caption, 54, 16.0, 13.0, true, MUTED),
    ] {
        let (text, size) = fit(text, size, min, bold, room);
        root.draw(&Text::new(text, (12, y), font(size, bold, color, lt)))
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

/// The change from `a` to `b` in percent, signed: `+12%`, `-3%`; `–` when `a` is not above zero.
pub fn percent_change(a: f64, b: f64) -> String {
    if a > 0.0 && b.is_finite() {
        // Rounded first, so a change that rounds to nothing reads +0%, never -0%.
        let pct = ((b / a - 1.0) * 100.0).round() + 0.0;
        format!("{pct:+.0}%")
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

/// Colours of the other series, after the highlight: Okabe–Ito, distinct for colour-blind
/// readers (yellow left out, too faint on white). Past the sixth, lines are dashed; past the
/// twelfth, dotted.
const PALETTE: [RGBColor; 6] = [
    BAR,
    SECOND,
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x00, 0x00),
];

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mark {
    /// Points joined by a line (gaps where a value is missing).
    Line,
    /// Points only (a scatter).
    Dots,
}

/// One series of a [`LineChart`].
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// `(x, y)` points; non-finite values leave a gap.
    pub points: Vec<(f64, f64)>,
    /// Drawn in the highlight colour, thicker (the reviewed drive).
    pub highlight: bool,
    /// Line or dots.
    pub mark: Mark,
    /// A fixed colour (else the palette's next).
    pub color: Option<RGBColor>,
}

/// Lines or dots over a linear or logarithmic plane: CDFs, latency over time, throughput
/// over repeats.
#[derive(Debug, Clone)]
pub struct LineChart {
    /// Id for the SVG's title and description elements.
    pub id: String,
    /// Title.
    pub title: String,
    /// The workload in words.
    pub subtitle: String,
    /// What is plotted and the direction (`lower is better`).
    pub caption: String,
    /// The x axis' quantity and unit.
    pub x_label: String,
    /// The y axis' quantity and unit.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// The x values are latencies in µs: ticks read as durations (`500 µs`, `10 ms`, `1 s`).
    pub x_latency: bool,
    /// The y values are latencies in µs (as `x_latency`).
    pub y_latency: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// The y axis starts at zero (else at the smallest value).
    pub y_from_zero: bool,
    /// The x values are counts (repeats): ticks on whole numbers only, the axis from half a
    /// step before the first to half a step after the last (else from zero).
    pub x_whole: bool,
    /// The series, drawn in order (the highlighted one last, on top).
    pub series: Vec<Series>,
    /// Shaded x ranges with a label (the SNIA measurement window).
    pub bands: Vec<(f64, f64, String)>,
    /// Vertical rules with a label (where each repeat starts).
    pub rules: Vec<(f64, String)>,
    /// Text for screen readers: the figures in words.
    pub summary: String,
}

/// An axis tick: whole numbers without decimals (with thousands separators), others with
/// up to three significant digits and no trailing zeros.
fn tick(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let digits = format!("{}", v.abs() as u64);
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        if v < 0.0 {
            out.insert(0, '-');
        }
        out
    } else {
        let s = figure(v);
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
}

/// An axis tick of a latency in µs, as a duration in the unit that reads best: `500 µs`,
/// `10 ms`, `1 s`.
fn latency_tick(us: f64) -> String {
    let a = us.abs();
    if a >= 1e6 {
        format!("{} s", tick(us / 1e6))
    } else if a >= 1e3 {
        format!("{} ms", tick(us / 1e3))
    } else {
        format!("{} µs", tick(us))
    }
}

/// A tick of an axis of latencies (in µs) or of plain figures.
fn axis_tick(v: f64, latency: bool) -> String {
    if latency {
        latency_tick(v)
    } else {
        tick(v)
    }
}

/// Lowest and highest finite values, with room for a log axis (positive only).
fn extent(values: impl Iterator<Item = f64>, log: bool) -> Option<(f64, f64)> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (lo <= hi).then_some((lo, hi))
}

/// An axis range around `(lo, hi)`: decades on a log axis, a little headroom on a linear one.
fn axis_range((lo, hi): (f64, f64), log: bool, from_zero: bool) -> (f64, f64) {
    if log {
        let a = libm::pow(10.0, libm::floor(libm::log10(lo)));
        let b = libm::pow(10.0, libm::ceil(libm::log10(hi)));
        (a, if b <= a { a * 10.0 } else { b })
    } else {
        let a = if from_zero { lo.min(0.0) } else { lo };
        let b = if hi > a {
            hi + (hi - a) * 0.05
        } else {
            a + 1.0
        };
        (a, b)
    }
}

/// A line chart's width in pixels.
const LINE_CHART_WIDTH: u32 = 760;
/// Where the legend's first column starts.
const LEGEND_LEFT: i32 = 70;
/// A legend entry's sample line and the gap after it, before the label.
const LEGEND_SAMPLE: i32 = 30;
/// The gap after a legend label, before the next entry.
const LEGEND_GAP: i32 = 16;

/// A legend's font size, pixels.
const LEGEND_SIZE: f64 = 14.0;

/// A label's width in a legend, pixels.
fn legend_width(label: &str, bold: bool) -> i32 {
    text_width(label, LEGEND_SIZE, bold)
}

/// How a line chart's legend is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Legend {
    columns: usize,
    column_width: i32,
}

impl Legend {
    /// The pixels a label has in its column.
    fn label_room(&self) -> i32 {
        self.column_width - LEGEND_SAMPLE - LEGEND_GAP
    }
}

impl LineChart {
    /// Draws the chart as an SVG document with a title and description for screen readers.
    pub fn to_svg(&self) -> Result<String, String> {
        const TOP: i32 = 74;
        const PLOT: i32 = 320;
        const LEGEND_ROW: i32 = 22;
        fonts();
        let legend = self.legend_layout();
        let legend_rows = self.series.len().div_ceil(legend.columns) as i32;
        let h = (TOP + PLOT + legend_rows * LEGEND_ROW + 16) as u32;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (LINE_CHART_WIDTH, h)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| format!("{e:?}"))?;
            self.draw(&root, TOP, PLOT, (legend, LEGEND_ROW))
                .map_err(|e| format!("drawing chart {}: {e}", self.id))?;
            root.present()
                .map_err(|e| format!("drawing chart {}: {e:?}", self.id))?;
        }
        Ok(accessible(
            svg,
            &self.id,
            &self.title,
            &format!("{}. {}. {}", self.subtitle, self.caption, self.summary),
        ))
    }

    fn draw(
        &self,
        root: &Area,
        top: i32,
        plot: i32,
        (legend, legend_row): (Legend, i32),
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<_>| format!("{e:?}");
        heading(root, &self.title, &self.subtitle, &self.caption)?;
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let ys = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1));
        let (Some(xe), Some(ye)) = (extent(xs, self.log_x), extent(ys, self.log_y)) else {
            root.draw(&Text::new(
                "no data".to_string(),
                (380, top + plot / 2),
                font(16.0, false, MUTED, Pos::new(HPos::Center, VPos::Center)),
            ))
            .map_err(e)?;
            return Ok(());
        };
        let x = axis_range(xe, self.log_x, true);
        let y = axis_range(ye, self.log_y, self.y_from_zero);
        let (w, _) = root.dim_in_pixel();
        let area = root.clone().shrink((0, top), (w, plot as u32));
        match (self.log_x, self.log_y) {
            (false, false) if self.x_whole => {
                // Half a step either side of the first and last, and at most one tick a
                // whole number: a nice step puts them on whole numbers.
                let (first, last) = (xe.0.round(), xe.1.round().max(xe.0.round()));
                let ticks = ((last - first) as usize + 1).min(10);
                self.plot(&area, (first - 0.5)..(last + 0.5), y.0..y.1, y, ticks)?
            }
            (false, false) => self.plot(&area, x.0..x.1, y.0..y.1, y, 8)?,
            (true, false) => self.plot(&area, (x.0..x.1).log_scale(), y.0..y.1, y, 8)?,
            (false, true) => self.plot(&area, x.0..x.1, (y.0..y.1).log_scale(), y, 8)?,
            (true, true) => {
                self.plot(&area, (x.0..x.1).log_scale(), (y.0..y.1).log_scale(), y, 8)?
            }
        }
        // The legend under the plot, as many entries a row as the longest label leaves
        // room for, each drawn as its series is.
        for (i, (s, color, dash)) in self.styled().into_iter().enumerate() {
            let (col, row) = ((i % legend.columns) as i32, (i / legend.columns) as i32);
            let x = LEGEND_LEFT + col * legend.column_width;
            let y = top + plot + 8 + row * legend_row;
            let style = color.stroke_width(if s.highlight { 4 } else { 3 });
            let sample = vec![(x, y + 9), (x + 24, y + 9)];
            match (s.mark, dash) {
                (Mark::Dots, _) => root
                    .draw(&Circle::new((x + 12, y + 9), 4, color.filled()))
                    .map_err(e)?,
                (Mark::Line, None) => root.draw(&PathElement::new(sample, style)).map_err(e)?,
                (Mark::Line, Some((on, off))) => root
                    .draw(&plotters::element::DashedPathElement::new(
                        sample, on, off, style,
                    ))
                    .map_err(e)?,
            }
            root.draw(&Text::new(
                fit(
                    &s.label,
                    LEGEND_SIZE,
                    LEGEND_SIZE,
                    s.highlight,
                    legend.label_room(),
                )
                .0,
                (x + LEGEND_SAMPLE, y + 9),
                font(14.0, s.highlight, INK, Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(e)?;
        }
        Ok(())
    }

    /// Three legend entries a row, or fewer when the widest label (measured in the bundled
    /// font, bold for the highlighted drive) would run into the next entry.
    fn legend_layout(&self) -> Legend {
        let widest = self
            .series
            .iter()
            .map(|s| legend_width(&s.label, s.highlight))
            .max()
            .unwrap_or(0);
        // A sample line, a gap, the label and a gap before the next entry.
        let entry = LEGEND_SAMPLE + widest + LEGEND_GAP;
        let room = LINE_CHART_WIDTH as i32 - LEGEND_LEFT;
        let columns = (1..=3).rev().find(|&c| c * entry <= room).unwrap_or(1);
        Legend {
            columns: columns as usize,
            column_width: room / columns,
        }
    }

    /// Each series with its colour and its dash (on and off pixels; None for a solid
    /// line), in legend order.
    fn styled(&self) -> Vec<(&Series, RGBColor, Dash)> {
        let mut k = 0;
        self.series
            .iter()
            .map(|s| {
                if s.highlight {
                    (s, s.color.unwrap_or(HIGHLIGHT), None)
                } else if let Some(c) = s.color {
                    (s, c, None)
                } else {
                    k += 1;
                    let dash = match (k - 1) / PALETTE.len() {
                        0 => None,
                        1 => Some((8, 5)),
                        _ => Some((2, 4)),
                    };
                    (s, PALETTE[(k - 1) % PALETTE.len()], dash)
                }
            })
            .collect()
    }

    /// Draws the series on `x` × `y`, with at most `x_ticks` ticks on the x axis.
    fn plot<X, Y>(
        &self,
        area: &Area,
        x: X,
        y: Y,
        y_span: (f64, f64),
        x_ticks: usize,
    ) -> Result<(), String>
    where
        X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
        Y: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
        X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
        Y::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
    {
        let e = |e: DrawingAreaErrorKind<_>| format!("{e:?}");
        let mut chart = ChartBuilder::on(area)
            .margin_left(10)
            .margin_right(40)
            .margin_top(8)
            .x_label_area_size(44)
            .y_label_area_size(78)
            .build_cartesian_2d(x, y)
            .map_err(e)?;
        let label = font(13.0, false, MUTED, Pos::new(HPos::Center, VPos::Top));
        let x_fmt = |v: &f64| axis_tick(*v, self.x_latency);
        let y_fmt = |v: &f64| axis_tick(*v, self.y_latency);
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .axis_style(MUTED)
            .x_desc(self.x_label.clone())
            .y_desc(self.y_label.clone())
            .x_labels(x_ticks)
            .y_labels(6)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .label_style(label.clone())
            .axis_desc_style(font(14.0, false, INK, Pos::new(HPos::Center, VPos::Top)))
            .draw()
            .map_err(e)?;
        for (a, b, text) in &self.bands {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(*a, y_span.0), (*b, y_span.1)],
                    HIGHLIGHT.mix(0.15).filled(),
                )))
                .map_err(e)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    text.clone(),
                    (*a, y_span.1),
                    font(13.0, true, MUTED, Pos::new(HPos::Left, VPos::Top)),
                )))
                .map_err(e)?;
        }
        for (at, text) in &self.rules {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(*at, y_span.0), (*at, y_span.1)],
                    MUTED.stroke_width(1),
                )))
                .map_err(e)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    text.clone(),
                    (*at, y_span.1),
                    font(12.0, false, MUTED, Pos::new(HPos::Left, VPos::Top)),
                )))
                .map_err(e)?;
        }
        let mut styled = self.styled();
        // The highlighted series on top.
        styled.sort_by_key(|(s, _, _)| s.highlight);
        for (s, color, dash) in styled {
            let inside = |p: &&(f64, f64)| {
                p.0.is_finite()
                    && p.1.is_finite()
                    && (!self.log_y || p.1 > 0.0)
                    && (!self.log_x || p.0 > 0.0)
            };
            match s.mark {
                Mark::Dots => {
                    let r = if s.highlight { 3 } else { 2 };
                    chart
                        .draw_series(
                            s.points
                                .iter()
                                .filter(inside)
                                .map(|p| Circle::new(*p, r, color.filled())),
                        )
                        .map_err(e)?;
                }
                Mark::Line => {
                    let style = color.stroke_width(if s.highlight { 3 } else { 2 });
                    // Each unbroken run of points is one line.
                    for run in s.points.split(|p| !inside(&p)) {
                        if run.is_empty() {
                            continue;
                        }
                        if let Some((on, off)) = dash {
                            chart
                                .draw_series(DashedLineSeries::new(run.to_vec(), on, off, style))
                                .map_err(e)?;
                        } else {
                            chart
                                .draw_series(LineSeries::new(run.to_vec(), style))
                                .map_err(e)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// A line's dash: pixels on and off, or None for a solid line.
type Dash = Option<(u32, u32)>;

/// Width of the PNG exports, px: a 600 px column at twice the density.
pub const PNG_WIDTH: u32 = 1200;

/// The bundled fonts for rasterizing, loaded once.
fn font_db() -> std::sync::Arc<resvg::usvg::fontdb::Database> {
    static DB: std::sync::OnceLock<std::sync::Arc<resvg::usvg::fontdb::Database>> =
        std::sync::OnceLock::new();
    DB.get_or_init(|| {
        let mut db = resvg::usvg::fontdb::Database::new();
        db.load_font_data(FONT_REGULAR.to_vec());
        db.load_font_data(FONT_BOLD.to_vec());
        std::sync::Arc::new(db)
    })
    .clone()
}

/// An opaque RGBA image as a palette of at most 256 colours and an index per pixel. A
/// chart has few colours (anti-aliasing adds some hundreds): the 256 most frequent are kept
/// exactly (ties by colour, so the result is deterministic), any others (a few pixels at
/// crossing lines) take the nearest of them.
/// A hasher for packed colours: one multiply (SipHash is needlessly slow here).
#[derive(Default)]
struct ColourHasher(u64);

impl std::hash::Hasher for ColourHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ *b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (v as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type ColourMap<V> = std::collections::HashMap<u32, V, std::hash::BuildHasherDefault<ColourHasher>>;

fn indexed(rgba: &[u8]) -> (Vec<[u8; 3]>, Vec<u8>) {
    let pack = |p: &[u8]| u32::from_le_bytes([p[0], p[1], p[2], 0]);
    let unpack = |c: u32| {
        let b = c.to_le_bytes();
        [b[0], b[1], b[2]]
    };
    // Runs of one colour are long (background, bars): count a run at a time.
    let mut counts: ColourMap<u32> = ColourMap::default();
    let mut run = (u32::MAX, 0u32);
    for p in rgba.chunks_exact(4) {
        let c = pack(p);
        if c == run.0 {
            run.1 += 1;
        } else {
            if run.1 > 0 {
                *counts.entry(run.0).or_insert(0) += run.1;
            }
            run = (c, 1);
        }
    }
    if run.1 > 0 {
        *counts.entry(run.0).or_insert(0) += run.1;
    }
    let mut colours: Vec<(u32, u32)> = counts.into_iter().collect();
    colours.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let palette: Vec<[u8; 3]> = colours.iter().take(256).map(|c| unpack(c.0)).collect();
    let mut index: ColourMap<u8> = palette
        .iter()
        .enumerate()
        .map(|(i, c)| (pack(&[c[0], c[1], c[2]]), i as u8))
        .collect();
    let nearest = |c: [u8; 3]| -> u8 {
        let d = |p: &[u8; 3]| -> u32 {
            (0..3)
                .map(|k| (p[k] as i32 - c[k] as i32).pow(2) as u32)
                .sum()
        };
        let mut best = 0;
        for (i, p) in palette.iter().enumerate() {
            if d(p) < d(&palette[best]) {
                best = i;
            }
        }
        best as u8
    };
    let mut indices = Vec::with_capacity(rgba.len() / 4);
    let mut last = (u32::MAX, 0u8);
    for p in rgba.chunks_exact(4) {
        let c = pack(p);
        if c != last.0 {
            last = (c, *index.entry(c).or_insert_with(|| nearest(unpack(c))));
        }
        indices.push(last.1);
    }
    (palette, indices)
}

/// Rasterizes a chart's SVG to PNG, [`PNG_WIDTH`] pixels wide, with the bundled fonts only
/// (never the machine's), so the same SVG gives the same PNG; opaque, with a palette
/// (see `indexed`), which keeps a chart's PNG small and quick to compress.
pub fn to_png(svg: &str) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    let opt = usvg::Options {
        font_family: "DejaVu Sans".into(),
        fontdb: font_db(),
        ..usvg::Options::default()
    };
    let svg = svg.replace(
        &format!("font-family=\"{FONT_FAMILY}\""),
        "font-family=\"DejaVu Sans\"",
    );
    let tree = usvg::Tree::from_str(&svg, &opt).map_err(|e| format!("chart SVG: {e}"))?;
    let size = tree.size();
    let scale = PNG_WIDTH as f32 / size.width();
    let h = ((size.height() * scale).ceil() as u32).max(1);
    let mut pixmap = tiny_skia::Pixmap::new(PNG_WIDTH, h)
        .ok_or_else(|| format!("chart of {PNG_WIDTH}×{h} px is too large"))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    let (palette, indices) = indexed(pixmap.data());
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, PNG_WIDTH, h);
    enc.set_color(png::ColorType::Indexed);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_palette(palette.concat());
    enc.set_compression(png::Compression::Default);
    enc.set_filter(png::FilterType::NoFilter);
    let mut w = enc.write_header().map_err(|e| format!("PNG: {e}"))?;
    w.write_image_data(&indices)
        .map_err(|e| format!("PNG: {e}"))?;
    w.finish().map_err(|e| format!("PNG: {e}"))?;
    Ok(out)
}
#[cfg(test)]
mod line_tests {
    use super::*;

    fn cdf() -> LineChart {
        LineChart {
            id: "rw.cdf".into(),
            title: "4KB Random Write: latency distribution".into(),
            subtitle: "4 KiB random write, QD3".into(),
            caption: "share of I/Os · lower latency is better".into(),
            x_label: "latency (log scale)".into(),
            y_label: "I/Os completed, %".into(),
            log_x: true,
            x_latency: true,
            y_latency: false,
            log_y: false,
            y_from_zero: true,
            x_whole: false,
            series: vec![
                Series {
                    label: "Fast".into(),
                    points: vec![(50.0, 0.0), (80.0, 50.0), (f64::NAN, 90.0), (400.0, 100.0)],
                    highlight: true,
                    mark: Mark::Line,
                    color: None,
                },
                Series {
                    label: "Slow <b>".into(),
                    points: vec![(900.0, 0.0), (1500.0, 50.0), (350_000.0, 100.0)],
                    highlight: false,
                    mark: Mark::Line,
                    color: None,
                },
            ],
            bands: vec![(100.0, 200.0, "SNIA window".into())],
            rules: vec![],
            summary: "Fast: median 80 µs; Slow: median 1.5 ms.".into(),
        }
    }

    #[test]
    fn line_chart_labels_series_axes_and_escapes() {
        let svg = cdf().to_svg().unwrap();
        assert!(svg.starts_with("<svg role=\"img\""));
        assert!(svg.contains("rw.cdf-desc") && svg.contains("Slow: median 1.5 ms."));
        assert!(svg.contains("Slow &lt;b&gt;"), "legend labels are escaped");
        assert!(svg.contains("latency (log scale)") && svg.contains("I/Os completed, %"));
        assert!(svg.contains("SNIA window"));
        // The highlighted series in the highlight colour, the other from the palette.
        assert!(svg.contains("stroke=\"#E69F00\"") && svg.contains("stroke=\"#0072B2\""));
        // Decades on the log axis of latencies, read as durations across the units.
        assert!(
            svg.contains(">\n100 µs\n<") && svg.contains(">\n1 ms\n<") && svg.contains(">\n1 s\n<"),
            "{svg}"
        );
        assert_eq!(svg, cdf().to_svg().unwrap(), "same figures, same bytes");
    }

    #[test]
    fn repeats_are_ticked_on_whole_numbers_only() {
        // The x axis' tick labels of a chart over `n` repeats.
        let ticks = |n: usize| {
            let mut chart = cdf();
            chart.log_x = false;
            chart.x_latency = false;
            chart.x_whole = true;
            chart.bands.clear();
            chart.series.truncate(1);
            chart.series[0].points = (1..=n).map(|i| (i as f64, 20.0 + i as f64)).collect();
            let svg = chart.to_svg().unwrap();
            // Tick labels (both axes: the y axis' are whole here) are text elements holding
            // a number alone.
            svg.split(">\n")
                .filter_map(|t| t.split_once("\n<").map(|(v, _)| v.to_string()))
                .filter(|v| v.parse::<f64>().is_ok())
                .collect::<Vec<String>>()
        };
        let three = ticks(3);
        for t in ["1", "2", "3"] {
            assert!(three.contains(&t.to_string()), "{three:?}");
        }
        for n in [1, 3, 20] {
            let labels = ticks(n);
            assert!(
                labels
                    .iter()
                    .all(|v| !v.contains('.') && v.parse::<f64>().unwrap() >= 0.0),
                "{n} repeats: {labels:?}"
            );
        }
    }

    #[test]
    fn legend_entries_never_run_into_the_next() {
        let mut chart = cdf();
        let long = "Intel X25-M G2 160 GB × 2 (RAID 0) 320 GB";
        let layout = |chart: &LineChart| {
            fonts();
            chart.legend_layout()
        };
        // Short names: three a row, where they have always been.
        assert_eq!(
            layout(&chart),
            Legend {
                columns: 3,
                column_width: 230
            }
        );
        for (label, highlight) in [(long, false), (long, true), (&*long.repeat(3), false)] {
            chart.series[1].label = label.to_string();
            chart.series[1].highlight = highlight;
            let legend = layout(&chart);
            let w = legend_width(label, highlight);
            assert!(legend.columns < 3, "{label}: {legend:?}");
            let room = legend.label_room();
            let svg = chart.to_svg().unwrap();
            if legend.columns > 1 {
                assert!(
                    w <= room,
                    "{label} ({w} px) runs into the next entry: {legend:?}"
                );
                assert!(svg.contains(label), "drawn whole");
            } else {
                // Wider than the chart: cut short, with an ellipsis, inside it.
                let cut = fit(label, LEGEND_SIZE, LEGEND_SIZE, highlight, room).0;
                assert!(cut.ends_with('…') && legend_width(&cut, highlight) <= room);
                assert!(svg.contains(&cut) && !svg.contains(label), "{cut}");
            }
        }
    }

    #[test]
    fn png_is_publication_width_and_deterministic() {
        let svg = cdf().to_svg().unwrap();
        let png = to_png(&svg).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR: width and height, big-endian, at bytes 16..24.
        let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
        assert_eq!(w, PNG_WIDTH);
        assert!(h > 600 && h < 1000, "{h}");
        assert_eq!(png, to_png(&svg).unwrap());
        // Text is drawn with the bundled font: a chart without text differs from one with.
        let blank = to_png(&svg.replace("4KB Random Write", "")).unwrap();
        assert_ne!(png, blank);
    }

    #[test]
    fn ticks_read_like_figures() {
        assert_eq!(tick(1_000_000.0), "1,000,000");
        assert_eq!(tick(80.0), "80");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(-1000.0), "-1,000");
        assert_eq!(latency_tick(100.0), "100 µs");
        assert_eq!(latency_tick(10_000.0), "10 ms");
        assert_eq!(latency_tick(2_500_000.0), "2.5 s");
    }
}
