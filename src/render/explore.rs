//! The results explorer's data: every drive under every firmware with results, and every
//! test's per-job figures (the leaderboards' bars: means over repeats, latency in µs), as
//! one script the explorer page loads (`explore-data.js`: a `<script>` loads from `file://`
//! where a fetch of JSON does not). Sorted and free of clocks, so it is byte-identical from
//! render to render; no raw samples.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::TestFigures;
use crate::lab::Lab;

/// The file the explorer page loads, at the site's root.
pub(super) const DATA_FILE: &str = "explore-data.js";

/// A drive under one firmware, as the picker lists it.
#[derive(Serialize)]
struct Drive {
    /// `drive` under its current firmware, `drive@firmware` under an earlier one: what the
    /// explorer's links name.
    key: String,
    drive: String,
    name: String,
    firmware: String,
    current: bool,
    controller: String,
    interface: String,
    /// The NAND, where the drive file says it.
    nand: String,
    /// Capacity in decimal GB.
    capacity_gb: f64,
    /// The capacity class the picker filters by.
    class: &'static str,
}

/// A test of a suite, with its variants.
#[derive(Serialize)]
struct Test {
    /// `suite/test`.
    key: String,
    suite: String,
    suite_title: String,
    test: String,
    title: String,
    variants: Vec<Variant>,
}

#[derive(Serialize)]
struct Variant {
    variant: String,
    label: String,
    workload: String,
    metric: String,
    better: String,
    /// `, best of 5 runs` where the figures are each drive's best run (as the site's
    /// charts say), else empty.
    of_runs: String,
    bars: Vec<Bar>,
}

/// One drive's figures in a variant: the headline figure and the latencies (µs).
#[derive(Serialize)]
struct Bar {
    key: String,
    value: f64,
    mean: f64,
    p50: f64,
    p99: f64,
    p999: f64,
    max: f64,
    repeats: u32,
}

/// The capacity classes of the picker's filter.
fn class(gb: f64) -> &'static str {
    match gb {
        g if g < 100.0 => "under 100 GB",
        g if g < 200.0 => "100 to 199 GB",
        g if g < 500.0 => "200 to 499 GB",
        g if g < 1000.0 => "500 to 999 GB",
        _ => "1 TB and more",
    }
}

/// The explorer's data from the leaderboard figures (a bar per drive and firmware).
pub(super) fn data(
    lab: &Lab,
    boards: &[TestFigures],
    current: &BTreeMap<String, String>,
    suite_titles: &BTreeMap<String, String>,
) -> String {
    let key = |drive: &str, fw: &str| {
        if current.get(drive).map(String::as_str) == Some(fw) {
            drive.to_string()
        } else {
            format!("{drive}@{fw}")
        }
    };
    let mut drives: BTreeMap<String, Drive> = BTreeMap::new();
    let mut tests: Vec<Test> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for f in boards {
        for b in &f.bars {
            let k = key(&b.drive, &b.firmware);
            drives.entry(k.clone()).or_insert_with(|| {
                let spec = lab.drives.get(&b.drive).map(|d| &d.spec);
                let gb = spec.map_or(0.0, |s| s.capacity as f64 / 1e9);
                Drive {
                    key: k,
                    drive: b.drive.clone(),
                    name: spec.map_or_else(|| b.drive.clone(), |s| s.display_name()),
                    firmware: b.firmware.clone(),
                    current: current.get(&b.drive) == Some(&b.firmware),
                    controller: spec.and_then(|s| s.controller.clone()).unwrap_or_default(),
                    interface: spec.and_then(|s| s.interface.clone()).unwrap_or_default(),
                    nand: spec.and_then(|s| s.nand.clone()).unwrap_or_default(),
                    capacity_gb: gb,
                    class: class(gb),
                }
            });
        }
        let test_key = format!("{}/{}", f.suite, f.test);
        let at = *index.entry(test_key.clone()).or_insert_with(|| {
            tests.push(Test {
                key: test_key,
                suite: f.suite.clone(),
                suite_title: suite_titles.get(&f.suite).cloned().unwrap_or_default(),
                test: f.test.clone(),
                title: f.title.clone(),
                variants: Vec::new(),
            });
            tests.len() - 1
        });
        let mut bars: Vec<Bar> = f
            .bars
            .iter()
            .map(|b| Bar {
                key: key(&b.drive, &b.firmware),
                value: b.value,
                mean: b.lat_mean_us,
                p50: b.lat_p50_us,
                p99: b.lat_p99_us,
                p999: b.lat_p999_us,
                max: b.lat_max_us,
                repeats: b.repeats,
            })
            .collect();
        bars.sort_by(|a, b| a.key.cmp(&b.key));
        tests[at].variants.push(Variant {
            variant: f.variant.clone(),
            label: f.variant_label.clone(),
            workload: f.workload.clone(),
            metric: f.metric.clone(),
            better: f.better.clone(),
            of_runs: super::context::of_runs(f),
            bars,
        });
    }
    let mut data = serde_json::json!({
        "drives": drives.into_values().collect::<Vec<_>>(),
        "tests": tests,
    });
    // The advance of every character a chart may draw: those of the data, and the ASCII
    // and signs of figures and captions.
    let mut chars: std::collections::BTreeSet<char> = (' '..='~').chain("…·µ–%×".chars()).collect();
    chars.extend(data.to_string().chars().filter(|c| !c.is_control()));
    let [regular, bold] = super::chart::advances(&chars);
    data["advances"] = serde_json::json!({"regular": regular, "bold": bold});
    // `</` never appears inside the script: a drive name cannot end it.
    let json = data.to_string().replace("</", "<\\/");
    format!("// The results explorer's data, written by `roundup render`.\nwindow.ROUNDUP_DATA = {json};\n")
}

#[cfg(test)]
mod tests {
    use super::class;

    #[test]
    fn capacity_classes_meet_at_their_edges() {
        assert_eq!(class(64.0), "under 100 GB");
        assert_eq!(class(100.0), "100 to 199 GB");
        assert_eq!(class(256.0), "200 to 499 GB");
        assert_eq!(class(1000.0), "1 TB and more");
    }
}
