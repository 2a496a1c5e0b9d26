//! The results explorer (`site/explore.html`) in a real browser: Debian's Chromium driven by
//! playwright-core (tests/explorer/check.js, installed by `.ci/run` with `npm ci`), with
//! axe-core on every page of the site and the explorer in three states. Skipped, with a
//! message, where Chromium, node or the npm packages are missing.

mod common;

use std::path::Path;
use std::process::Command;

use common::{stderr, stdout, TestLab, SIM_DRIVE, TINY_SUITE};

fn drive(lab: &TestLab, id: &str, model: &str, controller: &str) {
    let nand = if id == "gamma" {
        "nand: 25 nm MLC\n"
    } else {
        ""
    };
    let text = nand.to_string()
        + &SIM_DRIVE
            .replace("{id}", id)
            .replace("{model}", model)
            .replace("{fw}", "F1")
            .replace("{units}", "4")
            .replace("controller: Acme C1", &format!("controller: {controller}"));
    lab.write(&format!("drives/{id}.yaml"), &text);
}

fn ready() -> bool {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/explorer");
    let found = |cmd: &str| {
        Command::new(cmd)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !found("chromium") || !found("node") || !here.join("node_modules/playwright-core").is_dir() {
        common::skip_without_tool("needs chromium, node and `npm ci --prefix tests/explorer`");
        return false;
    }
    true
}

#[test]
fn the_explorer_compares_any_drives_on_any_test_in_a_real_browser() {
    if !ready() {
        return;
    }
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    drive(&lab, "alpha", "Alpha", "Acme C1");
    drive(&lab, "beta", "Beta", "Acme C1");
    drive(&lab, "gamma", "Gamma", "Other C2");
    // A name with markup and quotes, from a drive file: text wherever it shows.
    drive(
        &lab,
        "evil",
        "\"Evil <script>alert(1)</script> 'Drive'\"",
        "Acme C1",
    );
    // Every kind of page: a comparison (review.yaml) and a firmware history (alpha re-run
    // under F2; its F1 results stay, as `alpha@F1` in the explorer).
    lab.write("review.yaml", "compare:\n  - [beta, alpha]\n");
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let f2 = std::fs::read_to_string(lab.path().join("drives/alpha.yaml"))
        .unwrap()
        .replace("firmware: \"F1\"", "firmware: \"F2\"");
    lab.write("drives/alpha.yaml", &f2);
    let out = lab.roundup(&["run", "-q", "--drive", "alpha"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = lab.roundup(&["render", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = lab.roundup(&["summary", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    let name = |id: &str| match id {
        "evil" => "Acme Evil <script>alert(1)</script> 'Drive' 16 GB".to_string(),
        other => {
            let mut m = other.to_string();
            m[..1].make_ascii_uppercase();
            format!("Acme {m} 16 GB")
        }
    };
    // What the explorer must show for alpha and beta on the 4 KiB random write: the figures
    // `summary --json` gives (MB/s and the median latency, one repeat), printed as the site
    // prints them.
    let charts: Vec<serde_json::Value> = ["data-compressible", "data-incompressible"]
        .iter()
        .map(|variant| {
            let mut figures = serde_json::Map::new();
            let mut medians = serde_json::Map::new();
            for id in ["alpha", "beta"] {
                let r = rows
                    .iter()
                    .find(|r| {
                        r["drive"] == id
                            && (id != "alpha" || r["firmware"] == "F2")
                            && r["test"] == "random-write-4k"
                            && r["variant"] == *variant
                    })
                    .unwrap();
                figures.insert(
                    name(id),
                    roundup::units::figure(r["mb_per_s"].as_f64().unwrap()).into(),
                );
                let median = roundup::render::latency(r["lat_p50_us"].as_f64().unwrap());
                medians.insert(name(id), median.into());
            }
            serde_json::json!({"variant": variant, "figures": figures, "medians": medians})
        })
        .collect();
    let drives: Vec<serde_json::Value> = [
        ("alpha", "Acme C1"),
        ("beta", "Acme C1"),
        ("gamma", "Other C2"),
        ("evil", "Acme C1"),
    ]
    .iter()
    .map(|(id, c)| serde_json::json!({"key": id, "name": name(id), "controller": c}))
    .collect();
    // Rows of latencies as the site's tables print them (`latency_row`), for the explorer's
    // own to be checked against: a merge's tail that reads alike at three digits, levels
    // that are alike, a mean a hair from its median, figures missing between.
    let latency_rows: Vec<serde_json::Value> = [
        vec![Some(163.884), Some(778_998.65), Some(779_072.71), Some(779_282.4)],
        vec![Some(1799.99), Some(1800.0), Some(2196.0), Some(2394.0), Some(2394.0)],
        vec![Some(1179.4), Some(1086.2), Some(9585.0), None, Some(9967.2), Some(9969.1)],
        vec![Some(25.5), Some(25.5), None, Some(28.6)],
        vec![Some(0.4271), Some(999.4), Some(999.7)],
    ]
    .into_iter()
    .map(|values| {
        serde_json::json!({"values": values, "text": roundup::render::latency_row(&values)})
    })
    .collect();
    let expected = serde_json::json!({
        "latency_rows": latency_rows,
        "test": "tiny/random-write-4k",
        "charts": charts,
        "drives": drives,
        "controller": "Acme C1",
        "nand": "25 nm MLC",
        "first_key": "alpha",
        "current": ["alpha", "beta", "evil", "gamma"],
        "static_chart": "charts/suites/tiny/random-write-4k.data-compressible.svg",
        "static_variant": "data-compressible",
    });
    lab.write("expected.json", &expected.to_string());
    let shots = std::env::var("ROUNDUP_SHOTS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| lab.path().to_path_buf());
    let out = Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/explorer/check.js"))
        .arg(lab.path().join("site"))
        .arg(lab.path().join("expected.json"))
        .arg(&shots)
        .output()
        .unwrap();
    eprintln!("{}", stdout(&out));
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let site = std::fs::read_to_string(lab.path().join("site/explore-data.js")).unwrap();
    assert!(
        site.contains("\"key\":\"alpha@F1\""),
        "an earlier firmware is a drive to pick"
    );
    assert!(lab.path().join("site/drives/alpha-firmware.html").is_file());
    let data = std::fs::metadata(lab.path().join("site/explore-data.js")).unwrap();
    eprintln!("explore-data.js: {} bytes", data.len());
}
