//! The site in a real browser: headless Chromium (Debian's `chromium`) opens every page
//! from the file system with no network; no console errors, no failed loads, no broken
//! links or missing images, every chart's text inside its chart as Chromium lays it out in
//! the bundled fonts, and a screenshot of a review page. Skipped, with a message, where
//! Chromium is not installed (.ci/run installs it).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{files, stderr, TestLab, TINY_SUITE};

/// Every relative `href` and `src` of a page, as paths on disk (anchors and query strings cut).
fn links(page: &Path, html: &str) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        for part in html.split(attr).skip(1) {
            let target = &part[..part.find('"').unwrap_or(0)];
            if target.is_empty()
                || target.starts_with('#')
                || target.contains("://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            // Attribute values are HTML: decode the entities a template may have escaped.
            let target = target.replace("&#x2F;", "/").replace("&amp;", "&");
            let file = target
                .split(['#', '?'])
                .next()
                .unwrap_or(&target)
                .to_string();
            out.push((target.clone(), page.parent().unwrap().join(file)));
        }
    }
    out
}

fn site() -> TestLab {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    // A name longer than a chart's label column: the charts must fit it, not clip it.
    lab.sim_drive(
        "sim-b",
        "Beta <i>b</i> Enterprise Performance Series with a very long name 2 TB",
        "B2",
        2,
    );
    lab.write("commentary/suites/tiny.md", "Intro with a [link](../index.html) and <script>alert(1)</script>.\n\n## random-write-4k.data-compressible\nAlpha leads.\n");
    lab.write("review.yaml", "compare:\n  - [sim-b, sim-a]\n");
    assert!(lab.roundup(&["run"]).status.success());
    // As a reviewer publishing renders: the PNG exports as files too.
    let out = lab.roundup(&["render", "--png"]);
    assert!(out.status.success(), "{}", stderr(&out));
    lab
}

#[test]
fn without_png_files_each_chart_offers_a_png_the_browser_draws() {
    let lab = site();
    // Rendered again without `--png`: the files go, each chart gets a button instead.
    let out = lab.roundup(&["render"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let root = lab.path().join("site");
    let all = files(&root);
    assert!(
        !all.iter()
            .any(|f| f.extension().is_some_and(|e| e == "png")),
        "PNG exports left behind"
    );
    let page = fs::read_to_string(root.join("drives/sim-a.html")).unwrap();
    let sections = page.matches("<section class=\"test\"").count();
    assert!(sections > 3);
    assert_eq!(
        page.matches("<button type=\"button\" class=\"png-export\" data-file=\"sim-a.tiny.")
            .count(),
        sections
    );
    assert!(!page.contains(">PNG, 1200 px</a>"));
    assert!(page.contains("<script src=\"../static/png-export.js\" defer></script>"));
    // The fonts the browser draws the chart with: the bundled ones, as data URLs.
    let fonts = fs::read_to_string(root.join("static/fonts.js")).unwrap();
    assert_eq!(fonts.matches("data:font/ttf;base64,AAEAAA").count(), 2);
    assert!(fonts.contains("family: \"roundup-sans\""));
}

#[test]
fn every_link_and_resource_resolves() {
    let lab = site();
    let root = lab.path().join("site");
    let pages: Vec<PathBuf> = files(&root)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    for want in [
        "index.html",
        "suites/tiny.html",
        "drives/sim-a.html",
        "drives/sim-b.html",
        "compare/sim-b-vs-sim-a.html",
        "leaderboards/tiny/random-write-4k.html",
    ] {
        assert!(pages.contains(&PathBuf::from(want)), "{want}: {pages:?}");
    }
    // Every chart links its SVG and its PNG at publication size.
    let mut pngs = 0;
    for rel in &pages {
        let html = fs::read_to_string(root.join(rel)).unwrap();
        let sections = html.matches("<section class=\"test\"").count();
        assert_eq!(
            html.matches(">PNG, 1200 px</a>").count(),
            sections,
            "{rel:?}"
        );
        for (target, file) in links(&root.join(rel), &html) {
            if target.ends_with(".png") {
                let png = fs::read(&file).unwrap();
                assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{target}");
                assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 1200);
                pngs += 1;
            }
        }
    }
    assert!(pngs > 20, "{pngs} PNGs");
    for rel in &pages {
        let page = root.join(rel);
        let html = fs::read_to_string(&page).unwrap();
        assert!(
            !html.contains("<script>"),
            "{rel:?}: raw script reached the page"
        );
        for (target, file) in links(&page, &html) {
            assert!(
                file.is_file(),
                "{rel:?}: broken link or missing resource {target:?}"
            );
        }
    }
    // Stylesheets: every url(...) (the bundled fonts) resolves.
    for rel in files(&root)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "css"))
    {
        let css = fs::read_to_string(root.join(&rel)).unwrap();
        let urls: Vec<&str> = css
            .split("url(\"")
            .skip(1)
            .map(|p| &p[..p.find('"').unwrap()])
            .collect();
        assert!(!urls.is_empty());
        for u in urls {
            assert!(
                root.join(&rel).parent().unwrap().join(u).is_file(),
                "{rel:?}: missing {u}"
            );
        }
    }
}

#[test]
fn chromium_opens_every_page_without_errors() {
    let Some(chromium) = ["chromium", "chromium-browser"].iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }) else {
        common::skip_without_tool("Chromium is not installed (apt-get install chromium)");
        return;
    };
    let lab = site();
    let root = lab.path().join("site");
    let profile = tempfile::tempdir().unwrap();
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    fs::create_dir_all(&shots).unwrap();
    for rel in files(&root)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
    {
        let shot = shots.join(
            rel.to_string_lossy()
                .replace('/', "_")
                .replace(".html", ".png"),
        );
        let _ = fs::remove_file(&shot);
        let out = Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--enable-logging=stderr",
                "--v=0",
                "--window-size=1000,1400",
                "--virtual-time-budget=3000",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("file://{}", root.join(&rel).display()))
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{rel:?}: chromium failed: {log}");
        let console: Vec<&str> = log
            .lines()
            .filter(|l| {
                l.contains("CONSOLE")
                    || l.contains("Failed to load resource")
                    || l.contains("ERR_FILE_NOT_FOUND")
                    || l.contains("Uncaught")
            })
            .collect();
        assert!(console.is_empty(), "{rel:?}: console errors: {console:#?}");
        let png = fs::read(&shot).unwrap_or_default();
        assert!(
            png.len() > 10_000 && png.starts_with(b"\x89PNG"),
            "{rel:?}: no screenshot"
        );
        charts_fit(chromium, profile.path(), &root.join(&rel));
    }
    assert!(
        shots.join("drives_sim-a.png").is_file(),
        "a review page was captured"
    );
}

/// Opens a copy of `page` with a script that waits for the bundled fonts, then measures
/// every text of every chart as Chromium lays it out; fails if one reaches past its chart's
/// left or right edge (a title or drive name cut off), or if the fonts did not load.
fn charts_fit(chromium: &str, profile: &Path, page: &Path) {
    const PROBE: &str = r#"<script>
document.fonts.ready.then(() => {
  const outside = [];
  let texts = 0;
  for (const svg of document.querySelectorAll('svg.chart')) {
    // On screen, so that rotated labels count as drawn; in the chart's own pixels.
    const box = svg.getBoundingClientRect();
    const width = svg.viewBox.baseVal.width;
    const scale = width / box.width;
    for (const t of svg.querySelectorAll('text')) {
      texts++;
      const r = t.getBoundingClientRect();
      const left = (r.left - box.left) * scale, right = (r.right - box.left) * scale;
      if (left < -0.5 || right > width + 0.5) {
        outside.push(t.textContent.trim() + ' (' + Math.round(left) + ' to ' + Math.round(right) + ' of ' + width + ')');
      }
    }
  }
  const loaded = [...document.fonts].filter(f => f.status === 'loaded').length;
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify({texts, loaded, outside});
  document.body.appendChild(out);
});
</script>"#;
    let html = fs::read_to_string(page).unwrap();
    if !html.contains("class=\"chart\"") {
        return;
    }
    // Beside the page, so that its relative links (the stylesheet and fonts) resolve.
    let probe = page.with_file_name("probe-charts-fit.html");
    fs::write(&probe, html.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", probe.display()))
        .output()
        .unwrap();
    fs::remove_file(&probe).unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let json = dom
        .split("<pre id=\"probe\">")
        .nth(1)
        .and_then(|r| r.split("</pre>").next())
        .unwrap_or_else(|| panic!("{page:?}: the probe did not report"));
    let report: serde_json::Value = serde_json::from_str(&json.replace("&quot;", "\"")).unwrap();
    assert!(report["texts"].as_u64() > Some(0), "{page:?}: {report}");
    assert!(
        report["loaded"].as_u64() > Some(0),
        "{page:?}: the bundled fonts did not load: {report}"
    );
    assert_eq!(
        report["outside"],
        serde_json::json!([]),
        "{page:?}: chart text past the chart's edge"
    );
}

#[test]
fn serve_gives_the_site_on_localhost() {
    use std::io::{BufRead, BufReader, Read, Write};
    let lab = site();
    let mut child = Command::new(env!("CARGO_BIN_EXE_roundup"))
        .args([
            "--lab",
            lab.path().to_str().unwrap(),
            "serve",
            "--port",
            "0",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split(" at ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let get = |path: &str| {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    let index = get("/");
    let css = get("/static/style.css");
    let outside = get("/../Cargo.toml");
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        index.starts_with("HTTP/1.1 200 OK")
            && index.contains("text/html")
            && index.contains("suites/tiny.html"),
        "{index}"
    );
    assert!(css.contains("Content-Type: text/css"), "{css}");
    assert!(outside.starts_with("HTTP/1.1 404"), "{outside}");
}
