//! Charts drawn with plotters into SVG, measured with the bundled font so that the same
//! figures give the same bytes on every machine: bar and paired-bar charts (`bars`), line
//! and dot charts (`lines`), heat maps (`heatmap`), and their PNG exports (`png`). This
//! module holds what they share: the fonts, the colours, text measured and fitted to its
//! room, the heading, and the SVG document around a drawing.

mod bars;
mod heatmap;
mod lines;
mod png;

pub use bars::{percent, percent_change, BarChart, BarItem, PairChart, PairItem};
pub use heatmap::HeatMap;
pub use lines::{Axis, AxisScale, AxisValues, Band, LineChart, Mark, Rule, Series};
pub use png::{fonts_js, to_png, PNG_WIDTH};

use std::sync::Once;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;

/// The family name charts use; the site's stylesheet maps it to the bundled font.
pub const FONT_FAMILY: &str = "roundup-sans";
/// The families a chart's SVG names: the bundled font on the site, DejaVu Sans (the same
/// font, where installed) or another sans-serif where the SVG file is opened on its own.
pub const SVG_FONT_FAMILIES: &str = "roundup-sans, DejaVu Sans, sans-serif";
static FONT_REGULAR: &[u8] = include_bytes!("../../../templates/static/fonts/DejaVuSans.ttf");
static FONT_BOLD: &[u8] = include_bytes!("../../../templates/static/fonts/DejaVuSans-Bold.ttf");
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

/// The second colour of paired bars (Okabe–Ito vermillion).
pub const SECOND: RGBColor = RGBColor(0xD5, 0x5E, 0x00);

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

/// Each character's advance in the bundled font, regular and bold, per pixel of font size,
/// as `text_width` measures it: the explorer (templates/static/explore.js) measures its
/// labels with these, so that its charts fit their texts exactly as the static ones do.
pub fn advances(
    chars: &std::collections::BTreeSet<char>,
) -> [std::collections::BTreeMap<String, f64>; 2] {
    fonts();
    [false, true].map(|bold| {
        chars
            .iter()
            .map(|c| {
                (
                    c.to_string(),
                    text_width(&c.to_string(), 10_000.0, bold) as f64 / 10_000.0,
                )
            })
            .collect()
    })
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

/// An axis tick, on bar and line charts alike: whole numbers without decimals (with
/// thousands separators), others with up to three significant digits and no trailing zeros.
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
        let s = crate::units::figure(v);
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
}

/// Gives an SVG a role, a title and a description for screen readers, and its text the
/// fallback fonts of [`SVG_FONT_FAMILIES`].
fn accessible(svg: String, id: &str, title: &str, desc: &str) -> String {
    let svg = svg.replace(
        &format!("font-family=\"{FONT_FAMILY}\""),
        &format!("font-family=\"{SVG_FONT_FAMILIES}\""),
    );
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
