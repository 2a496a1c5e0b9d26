//! The site: tera templates filled with the analysis' figures, charts as inline SVG, and the
//! reviewer's commentary, written to `site/`. Rendering is deterministic (sorted inputs, no
//! clock) and only rewrites files whose bytes change.

pub mod chart;
mod compare;
mod context;
mod draft;
mod explore;
mod fill;
mod format;
mod output;
mod pairs;
mod pts;
mod site;
mod sweeps;
mod timing;

pub use crate::error::RenderError;
pub use pairs::{pairs, Pair};
use site::Site;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::commentary::SlotPlan;
use crate::error::{Error, Result};
use crate::lab::Lab;

use context::chart_file;
pub use draft::draft;
pub use format::{csv_field, fingerprint, latency, latency_row};
use output::{put, remove_stale, templates, write_page, STATIC};

/// What a render did.
#[derive(Debug, Default)]
pub struct Report {
    /// Files written because their content changed (relative to site/).
    pub written: Vec<PathBuf>,
    /// Files already up to date.
    pub unchanged: usize,
    /// Files a render before this one wrote that this one did not (a drive, test or
    /// comparison no longer in the results or the options): removed, so that the site is
    /// what the results and commentary give, whatever was rendered before.
    pub removed: Vec<PathBuf>,
    /// Every file of this render (relative to site/).
    produced: std::collections::BTreeSet<PathBuf>,
    /// Results that could not be read (named and skipped).
    pub problems: Vec<String>,
    /// Commentary slots whose chart no longer exists, and commentary files of a page the
    /// site does not have (kept in their files, reported here).
    pub orphan_slots: Vec<String>,
    /// Commentary slots written against other figures than the current ones, as (page,
    /// slot id), in page order.
    pub stale_slots: Vec<(String, String)>,
}

/// What a render shows beyond the lab's files.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Drive pairs to compare (ids), besides those `review.yaml` names.
    pub compare: Vec<(String, String)>,
    /// Export every chart as a PNG file (1200 px, rasterized here). Without it, a chart's
    /// PNG is drawn by the reader's browser when asked for (`static/png-export.js`).
    pub png: bool,
}

/// Every page's commentary slots, by page id (`suites/NAME`, `drives/ID`, ...), from the
/// current results: what `roundup commentary init` writes.
pub fn slot_plans(lab: &Lab, opts: &Options) -> Result<BTreeMap<String, Vec<SlotPlan>>> {
    let site = Site::build(lab, opts)?;
    Ok(site
        .pages
        .into_iter()
        .filter(|p| !p.charts.is_empty())
        .map(|p| {
            let slots = p
                .charts
                .into_iter()
                .map(|c| SlotPlan {
                    id: c.id,
                    fingerprint: c.fingerprint,
                    draft: c.draft,
                })
                .collect();
            (p.id, slots)
        })
        .collect())
}

/// Renders the lab's results and commentary into `site/`: every page, each chart's SVG
/// (its PNG with [`Options::png`], and CSV for line charts) under `site/charts/`, and the
/// static files.
pub fn render(lab: &Lab, opts: &Options) -> Result<Report> {
    let tera = templates(lab)?;
    let Site {
        mut pages,
        mut report,
        explore_data,
        ..
    } = Site::build(lab, opts)?;
    let site = lab.site_dir();
    put(
        &site,
        explore::DATA_FILE,
        explore_data.as_bytes(),
        &mut report,
    )?;
    for p in &mut pages {
        p.ctx.insert("png_files", &opts.png);
        write_page(&tera, p.template, &p.ctx, &site, &p.id, &mut report)?;
    }
    // Chart files, in parallel: each chart's SVG (and CSV), and its PNG when asked for,
    // rasterized only when its SVG changed (or is missing); every file written atomically.
    use rayon::prelude::*;
    let charts: Vec<(&str, &context::ChartCtx)> = pages
        .iter()
        .flat_map(|p| p.charts.iter().map(|c| (p.id.as_str(), c)))
        .collect();
    let done: Vec<Result<Report>> = charts
        .par_iter()
        .map(|(page, c)| chart_files(&site, page, c, opts.png))
        .collect();
    for part in done {
        let part = part?;
        report.written.extend(part.written);
        report.unchanged += part.unchanged;
        report.produced.extend(part.produced);
    }
    for (rel, bytes) in STATIC {
        let custom = lab.root.join("templates/static").join(rel);
        let data = if custom.is_file() {
            fs::read(&custom).map_err(|e| Error::io(&custom, e))?
        } else {
            bytes.to_vec()
        };
        put(&site, &format!("static/{rel}"), &data, &mut report)?;
    }
    put(
        &site,
        "static/fonts.js",
        chart::fonts_js().as_bytes(),
        &mut report,
    )?;
    report.written.sort();
    report.removed = remove_stale(&site, &report.produced)?;
    // Each file was written to a temporary name and renamed; one flush for them all.
    if !report.written.is_empty() {
        crate::store::sync_dir_fs(&site)?;
    }
    Ok(report)
}

/// Writes one chart's files under `site/charts/`: what [`render`] does for each chart.
fn chart_files(site: &Path, page: &str, c: &context::ChartCtx, png: bool) -> Result<Report> {
    let mut report = Report::default();
    let svg_rel = chart_file(page, &c.id, "svg");
    let same = fs::read(site.join(&svg_rel)).is_ok_and(|old| old == c.svg.as_bytes());
    if same {
        report.unchanged += 1;
        report.produced.insert(PathBuf::from(&svg_rel));
    } else {
        put(site, &svg_rel, c.svg.as_bytes(), &mut report)?;
    }
    if let Some(csv) = &c.csv {
        put(
            site,
            &chart_file(page, &c.id, "csv"),
            csv.as_bytes(),
            &mut report,
        )?;
    }
    if png {
        let png_rel = chart_file(page, &c.id, "png");
        if same && site.join(&png_rel).is_file() {
            report.unchanged += 1;
            report.produced.insert(PathBuf::from(&png_rel));
        } else {
            let bytes = chart::to_png(&c.svg).map_err(|message| RenderError::Png {
                file: png_rel.clone(),
                message,
            })?;
            put(site, &png_rel, &bytes, &mut report)?;
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::context::chart_ctx;
    use super::draft::{changes_draft, draft, Change};
    use super::format::{latency, latency_row, Scale};
    use super::output::sentence;
    use super::Report;
    use crate::analysis::{Bar, TestFigures};

    /// A drive's bar with only its headline figure.
    fn bar(drive: &str, value: f64) -> Bar {
        Bar {
            drive: drive.into(),
            drive_name: drive.into(),
            value,
            ..Bar::default()
        }
    }

    #[test]
    fn a_bar_tables_figure_column_names_its_quantity() {
        let bar = |drive: &str, us: f64| Bar {
            lat_mean_us: us,
            ..bar(drive, us)
        };
        let f = TestFigures {
            test: "latency-write-4k".into(),
            title: "4K Random Write latency".into(),
            metric: "lat_mean_us".into(),
            better: "lower".into(),
            bars: vec![bar("fast", 426.0), bar("jmf602", 380_505.0)],
            ..TestFigures::default()
        };
        let ctx = chart_ctx(&f, "slot", None, None, &mut Report::default(), "suites/s").unwrap();
        // Not `ms` alone: which latency the column holds, in the chart's unit.
        assert_eq!(ctx.value_head, "mean latency, ms");
        assert_eq!(ctx.rows[0].value, "0.43");
        // The mean is the figure column; it is not repeated among the latencies.
        assert_eq!(
            ctx.latency_heads,
            ["Median", "99th percentile", "99.9th percentile", "Maximum"]
        );
        assert_eq!(ctx.rows[0].latencies.len(), 4);
        let f = TestFigures {
            metric: "mb_per_s".into(),
            better: "higher".into(),
            ..f
        };
        let ctx = chart_ctx(&f, "slot", None, None, &mut Report::default(), "suites/s").unwrap();
        assert_eq!(ctx.value_head, "MB/s");
        assert_eq!(ctx.latency_heads.len(), 5);
        assert_eq!(ctx.rows[1].latencies[0], "381 ms");
    }

    #[test]
    fn a_drafted_sentence_reads_the_right_way_round_for_either_direction() {
        let latency = TestFigures {
            metric: "lat_mean_us".into(),
            better: "lower".into(),
            bars: vec![bar("ram", 26.0), bar("x25m", 430.0), bar("core", 381_000.0)],
            ..TestFigures::default()
        };
        // The slowest takes many times as long; never "the leader is 14,654 times the slowest".
        assert_eq!(
            draft(&latency, Some("x25m")),
            "The ram leads at 0.026 ms; the core takes 381 ms, 14654× as long. \
             The x25m ranks 2 of 3 at 0.43 ms, 16.5× the leader's."
        );
        let throughput = TestFigures {
            metric: "mb_per_s".into(),
            better: "higher".into(),
            bars: vec![bar("vertex3", 241.0), bar("x25m", 28.8), bar("core", 0.03)],
            ..TestFigures::default()
        };
        assert_eq!(
            draft(&throughput, Some("x25m")),
            "The vertex3 leads at 241 MB/s, 8033× the core (0.030 MB/s). \
             The x25m ranks 2 of 3 at 28.8 MB/s, 12.0% of the leader."
        );
    }

    #[test]
    fn a_change_draft_names_few_drives_and_sums_up_many() {
        let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let changes = |to: &[f64]| -> Vec<Change<'static>> {
            names
                .iter()
                .zip(to)
                .map(|(n, &to)| Change {
                    drive: n,
                    name: n,
                    from: 100.0,
                    to,
                })
                .collect()
        };
        let few = changes(&[150.0, 99.0, 0.0]);
        assert_eq!(
            changes_draft("x to y", &few, None),
            "From x to y: the a +50%, the b -1%, the c -100%."
        );
        // Past four drives: the moves of 5% or more, largest first, and a count of the rest.
        let many = changes(&[101.0, 40.0, 97.0, 120.0, 100.0, 95.0, 180.0, 103.0]);
        assert_eq!(
            changes_draft("x to y", &many, None),
            "From x to y: the g +80%, the b -60%, the d +20%, the f -5%; the other 4 within 5%."
        );
        assert_eq!(
            changes_draft("x to y", &many, Some("h")),
            "From x to y: the h +3%. Of the 8 drives, the g +80%, the b -60%, the d +20%, \
             the f -5%; the other 4 within 5%."
        );
        let more = changes(&[110.0, 120.0, 130.0, 140.0, 150.0, 160.0, 101.0, 100.0]);
        assert_eq!(
            changes_draft("x to y", &more, None),
            "From x to y: the f +60%, the e +50%, the d +40%, the c +30%, and 2 more by 5% or \
             more; the other 2 within 5%."
        );
        let steady = changes(&[101.0, 98.0, 100.0, 104.0, 100.0]);
        assert_eq!(
            changes_draft("x to y", &steady, None),
            "From x to y: all 5 drives within 5% (-2% to +4%)."
        );
        // A drive with nothing before has no change to tell.
        let mut none = changes(&[101.0, 98.0]);
        none[0].from = 0.0;
        assert_eq!(
            changes_draft("x to y", &none, Some("a")),
            "From x to y: the b -2%."
        );
    }

    #[test]
    fn a_phrase_starts_a_sentence_with_its_units_kept() {
        let s = |t: &str| {
            sentence(&tera::Value::String(t.into()), &Default::default())
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(
            s("mean latency, ms, lower is better"),
            "Mean latency, ms, lower is better"
        );
        assert_eq!(s("MB/s, higher is better"), "MB/s, higher is better");
        assert_eq!(s("µs"), "µs");
        assert_eq!(s(""), "");
    }

    #[test]
    fn a_rows_latencies_that_one_decimal_more_parts_do_not_read_alike() {
        // A JMF602's merges: its tail 778,999 / 779,073 / 779,282 µs reads 779 three times
        // at three digits; the row takes one more decimal, every figure in it.
        let merges = [
            Some(163.884),
            Some(778_998.65),
            Some(779_072.71),
            None,
            Some(779_282.4),
        ];
        assert_eq!(
            latency_row(&merges),
            ["163.9 µs", "779.0 ms", "779.1 ms", "–", "779.3 ms"]
        );
        // Figures that are equal stay alike, and a row whose figures read apart is as
        // `latency` writes it.
        let levels = [Some(1800.0), Some(2196.0), Some(2394.0), Some(2394.0)];
        assert_eq!(
            latency_row(&levels),
            ["1.80 ms", "2.20 ms", "2.39 ms", "2.39 ms"]
        );
        // Two that one decimal more does not part stay as they are: a mean 0.01 µs from
        // the median is not a tail.
        assert_eq!(
            latency_row(&[Some(1799.99), Some(1800.0), Some(426.0), Some(426.04)]),
            ["1.80 ms", "1.80 ms", "426 µs", "426 µs"]
        );
    }

    #[test]
    fn a_latency_that_rounds_to_a_millisecond_reads_in_ms() {
        assert_eq!(latency(426.0), "426 µs");
        assert_eq!(latency(999.4), "999 µs");
        assert_eq!(latency(999.7), "1.00 ms");
        assert_eq!(latency(2090.0), "2.09 ms");
        assert_eq!(latency(f64::NAN), "–");
        let s = Scale::of("lat_p99_us", [426.0, 999.7]);
        assert_eq!((s.unit, s.show(999.7)), ("ms", "1.00".into()));
    }

    #[test]
    fn latency_is_shown_in_ms_once_a_figure_reaches_a_millisecond() {
        let s = Scale::of("lat_mean_us", [426.0, 380_505.0]);
        assert_eq!((s.unit, s.caption), ("ms", "mean latency, ms"));
        assert_eq!(
            (s.show(426.0), s.show(380_505.0)),
            ("0.43".into(), "381".into())
        );
        let s = Scale::of("lat_max_us", [426.0, 999.0, f64::NAN]);
        assert_eq!((s.unit, s.show(426.0)), ("µs", "426".into()));
        // Throughput keeps its unit however large it is.
        let s = Scale::of("mb_per_s", [2500.0]);
        assert_eq!((s.unit, s.show(2500.0)), ("MB/s", "2500".into()));
    }
}
