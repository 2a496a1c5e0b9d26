//! Line and dot charts over a linear or logarithmic plane: latency distributions, latency
//! over time, throughput over repeats.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    accessible, fit, font, fonts, heading, text_width, tick, Area, BAR, GRID, HIGHLIGHT, INK,
    MUTED, SECOND,
};

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
    /// Points joined by a line, each point marked (a sweep's measured values).
    LineDots,
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
    /// The x axis.
    pub x: Axis,
    /// The y axis.
    pub y: Axis,
    /// The series, drawn in order (the highlighted one last, on top).
    pub series: Vec<Series>,
    /// Shaded x ranges with a label (the SNIA measurement window).
    pub bands: Vec<Band>,
    /// Vertical rules with a label (where each repeat starts).
    pub rules: Vec<Rule>,
    /// Text for screen readers: the figures in words.
    pub summary: String,
}

/// A shaded span of x values with a label (the SNIA measurement window).
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Where it starts.
    pub from: f64,
    /// Where it ends.
    pub to: f64,
    /// What it is.
    pub label: String,
}

/// A vertical rule at an x value with a label (where a repeat starts).
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Where it stands.
    pub at: f64,
    /// What starts there.
    pub label: String,
}

/// How an axis maps its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxisScale {
    /// Linear, from the smallest value.
    Linear,
    /// Linear, from zero (or the smallest value, if below zero).
    FromZero,
    /// Logarithmic, from and to powers of ten.
    Log,
    /// Logarithmic in base two, a little beyond the first and last value, ticks on powers
    /// of two: a sweep whose values double (queue depth 1 to 128, block size 512 B to 8 MiB).
    Log2,
}

/// What an axis' values are, which decides its ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxisValues {
    /// Plain figures.
    Figures,
    /// Latencies in µs: ticks read as durations (`500 µs`, `10 ms`, `1 s`).
    Latency,
    /// Counts (repeats): ticks on whole numbers only, the axis from half a step before the
    /// first to half a step after the last (a linear axis).
    Counts,
    /// Sizes in bytes: ticks read `512 B`, `4 KiB`, `1 MiB`.
    Sizes,
}

/// One axis of a line chart: its quantity and unit, its scale and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The quantity and unit (`latency, µs`).
    pub label: String,
    /// Linear or logarithmic.
    pub scale: AxisScale,
    /// What the values are.
    pub values: AxisValues,
}

impl Axis {
    /// An axis of `label` with this scale and these values.
    pub fn new(label: impl Into<String>, scale: AxisScale, values: AxisValues) -> Axis {
        Axis {
            label: label.into(),
            scale,
            values,
        }
    }

    fn log(&self) -> bool {
        matches!(self.scale, AxisScale::Log | AxisScale::Log2)
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

/// A tick of an axis of latencies (in µs), sizes or plain figures.
fn axis_tick(v: f64, values: AxisValues) -> String {
    match values {
        AxisValues::Latency => latency_tick(v),
        AxisValues::Sizes if v >= 1.0 => crate::units::SizeLabel(libm::round(v) as u64).to_string(),
        _ => tick(v),
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
fn axis_range((lo, hi): (f64, f64), scale: AxisScale) -> (f64, f64) {
    let from_zero = scale == AxisScale::FromZero;
    if scale == AxisScale::Log2 {
        return (lo / 1.2, hi * 1.2);
    }
    if scale == AxisScale::Log {
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
        let (Some(xe), Some(ye)) = (extent(xs, self.x.log()), extent(ys, self.y.log())) else {
            root.draw(&Text::new(
                "no data".to_string(),
                (380, top + plot / 2),
                font(16.0, false, MUTED, Pos::new(HPos::Center, VPos::Center)),
            ))
            .map_err(e)?;
            return Ok(());
        };
        let x = axis_range(xe, self.x.scale);
        let y = axis_range(ye, self.y.scale);
        let (w, _) = root.dim_in_pixel();
        let area = root.clone().shrink((0, top), (w, plot as u32));
        match (self.x.log(), self.y.log()) {
            (true, false) if self.x.scale == AxisScale::Log2 => {
                self.plot(&area, (x.0..x.1).log_scale().base(2.0), y.0..y.1, y, 8)?
            }
            (true, true) if self.x.scale == AxisScale::Log2 => self.plot(
                &area,
                (x.0..x.1).log_scale().base(2.0),
                (y.0..y.1).log_scale(),
                y,
                8,
            )?,
            (false, false) if self.x.values == AxisValues::Counts => {
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
                (Mark::Line | Mark::LineDots, None) => {
                    root.draw(&PathElement::new(sample, style)).map_err(e)?
                }
                (Mark::Line | Mark::LineDots, Some((on, off))) => root
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
        let x_fmt = |v: &f64| axis_tick(*v, self.x.values);
        let y_fmt = |v: &f64| axis_tick(*v, self.y.values);
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .axis_style(MUTED)
            .x_desc(self.x.label.clone())
            .y_desc(self.y.label.clone())
            .x_labels(x_ticks)
            .y_labels(6)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .label_style(label.clone())
            .axis_desc_style(font(14.0, false, INK, Pos::new(HPos::Center, VPos::Top)))
            .draw()
            .map_err(e)?;
        self.draw_marks(&mut chart, y_span)?;
        self.draw_series(&mut chart)?;
        Ok(())
    }

    /// The shaded bands and the labelled rules.
    fn draw_marks<DB: DrawingBackend, CT: CoordTranslate<From = (f64, f64)>>(
        &self,
        chart: &mut ChartContext<'_, DB, CT>,
        y_span: (f64, f64),
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("{e:?}");
        for Band {
            from: a,
            to: b,
            label: text,
        } in &self.bands
        {
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
        for Rule { at, label: text } in &self.rules {
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
        Ok(())
    }

    /// The series, the highlighted one last (on top); a line broken where a point cannot
    /// be drawn (not finite, or not above zero on a log axis).
    fn draw_series<DB: DrawingBackend, CT: CoordTranslate<From = (f64, f64)>>(
        &self,
        chart: &mut ChartContext<'_, DB, CT>,
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("{e:?}");
        let mut styled = self.styled();
        // The highlighted series on top.
        styled.sort_by_key(|(s, _, _)| s.highlight);
        for (s, color, dash) in styled {
            let inside = |p: &&(f64, f64)| {
                p.0.is_finite()
                    && p.1.is_finite()
                    && (!self.y.log() || p.1 > 0.0)
                    && (!self.x.log() || p.0 > 0.0)
            };
            // Dots (a scatter's, or a sweep's measured points on its line), then the line.
            if s.mark != Mark::Line {
                let r = match (s.mark, s.highlight) {
                    (Mark::Dots, false) => 2,
                    (Mark::Dots, true) | (_, false) => 3,
                    (_, true) => 4,
                };
                chart
                    .draw_series(
                        s.points
                            .iter()
                            .filter(inside)
                            .map(|p| Circle::new(*p, r, color.filled())),
                    )
                    .map_err(e)?;
            }
            if s.mark != Mark::Dots {
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
        Ok(())
    }
}

/// A line's dash: pixels on and off, or None for a solid line.
type Dash = Option<(u32, u32)>;

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A latency distribution of two drives (the PNG export's tests draw it too).
    pub(in crate::render::chart) fn cdf() -> LineChart {
        LineChart {
            id: "rw.cdf".into(),
            title: "4KB Random Write: latency distribution".into(),
            subtitle: "4 KiB random write, QD3".into(),
            caption: "share of I/Os · lower latency is better".into(),
            x: Axis::new("latency (log scale)", AxisScale::Log, AxisValues::Latency),
            y: Axis::new(
                "I/Os completed, %",
                AxisScale::FromZero,
                AxisValues::Figures,
            ),
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
            bands: vec![Band {
                from: 100.0,
                to: 200.0,
                label: "SNIA window".into(),
            }],
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
            chart.x = Axis::new(
                chart.x.label.clone(),
                AxisScale::FromZero,
                AxisValues::Counts,
            );
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
