//! Commentary that survives new firmware: drafted slots with fingerprints, text kept as
//! written, stale slots flagged on the page and by render, nothing dropped.

mod common;

use std::fs;

use common::{stderr, stdout, TestLab, TINY_SUITE};

#[test]
fn new_firmware_keeps_commentary_and_flags_stale_slots() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    lab.sim_drive("sim-b", "Beta", "B1", 2);
    assert!(lab.roundup(&["run"]).status.success());

    let out = lab.roundup(&["commentary", "init", "suites/tiny"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("added 7 of 7 slots"),
        "{}",
        stdout(&out)
    );
    let path = lab.path().join("commentary/suites/tiny.md");
    let text = fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("## random-write-4k.data-compressible\n<!-- figures: "),
        "{text}"
    );
    assert!(
        text.contains("The Acme Alpha 16 GB leads at"),
        "a drafted sentence: {text}"
    );
    assert!(
        text.contains("## random-write-4k.data.all\n<!-- figures: "),
        "the compressible/incompressible pair has a slot: {text}"
    );
    assert!(
        text.contains("From compressible to incompressible: the Acme Alpha 16 GB"),
        "{text}"
    );

    // The reviewer rewrites one slot; init again adds nothing and keeps the words.
    let mine = "Alpha's eight units keep every write busy: **four times** Beta.";
    let edited = text.replacen(
        "The Acme Alpha 16 GB leads at",
        &format!("{mine}\n\nThe Acme Alpha 16 GB leads at"),
        1,
    );
    fs::write(&path, &edited).unwrap();
    let out = lab.roundup(&["commentary", "init"]);
    assert!(
        stdout(&out).contains("commentary/suites/tiny.md: all 7 slots present"),
        "{}",
        stdout(&out)
    );
    let out = lab.roundup(&["commentary", "init", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "--quiet lists no files");
    assert_eq!(fs::read_to_string(&path).unwrap(), edited);
    let out = lab.roundup(&["render"]);
    assert!(
        !stderr(&out).contains("stale"),
        "fresh commentary is not stale: {}",
        stderr(&out)
    );

    // New firmware for Beta: twice the units. Until it has results, B1's stay current.
    lab.sim_drive("sim-b", "Beta", "B2", 4);
    // Publishing: the charts exported as PNG files too (`--png`), redrawn only when their
    // figures change.
    let out = lab.roundup(&["render", "--png"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("stale"),
        "the figures have not changed: {}",
        stderr(&out)
    );
    // Re-run only Beta.
    let out = lab.roundup(&["run", "--drive", "sim-b"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        lab.path().join("results/drive=sim-b/firmware=B1").is_dir(),
        "the old firmware's results stay"
    );
    let out = lab.roundup(&["render", "--verbose", "--png"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    // One line a page, naming its stale slots (with --verbose).
    assert!(
        err.lines().any(|l| l.starts_with(
            "stale: suites/tiny: 7 slots written against other figures: random-write-4k.data.all, random-write-4k.data-compressible,"
        )),
        "{err}"
    );
    assert_eq!(err.matches("stale: suites/tiny").count(), 1, "{err}");
    // Only the pages that show Beta are rewritten (here every page shows it), and render
    // says which; the static files stay as they were.
    let written = stdout(&out);
    for page in [
        "index.html",
        "suites/tiny.html",
        "drives/sim-a.html",
        "drives/sim-b.html",
        "drives/sim-b-firmware.html",
    ] {
        assert!(
            written.contains(&format!("wrote site/{page}")),
            "{page}: {written}"
        );
    }
    assert!(!written.contains("site/static/"), "{written}");
    assert!(
        written
            .contains("wrote site/charts/drives/sim-b/tiny.sequential-read-128k.base.latency.png")
            && written
                .contains("wrote site/charts/drives/sim-a/tiny.sequential-read-128k.base.cdf.svg"),
        "charts showing Beta are redrawn: {written}"
    );
    assert!(
        !written.contains("charts/drives/sim-a/tiny.sequential-read-128k.base.latency"),
        "Alpha's own latency-over-time chart does not show Beta and is not rewritten: {written}"
    );
    assert!(
        written.contains("89 files written, 26 unchanged"),
        "{written}"
    );
    let page = fs::read_to_string(lab.path().join("site/suites/tiny.html")).unwrap();
    assert!(
        page.contains("<strong>four times</strong>"),
        "the reviewer's words are still shown"
    );
    assert!(
        page.contains("class=\"commentary stale\""),
        "and marked stale"
    );
    assert!(
        page.replace("&#x2F;", "/").contains(
            "<code>roundup commentary accept suites/tiny random-write-4k.data-compressible</code>"
        ),
        "with how to clear it"
    );
    assert!(page.contains("B2"), "the new firmware is shown");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        edited,
        "the commentary file is untouched"
    );

    // The reviewer asks where the stale slots are, re-reads their own and accepts it: only
    // its fingerprint line changes. Then the rest.
    let out = lab.roundup(&["commentary", "stale", "suites/tiny"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = stdout(&out);
    let line = 1 + edited
        .lines()
        .position(|l| l == "## random-write-4k.data-compressible")
        .unwrap();
    assert!(
        listed.contains(&format!(
            "commentary/suites/tiny.md:{line}: random-write-4k.data-compressible\n    now: The Acme "
        )),
        "where it is and what the figures say now: {listed}"
    );
    assert!(listed.contains("7 stale slots on 1 page"), "{listed}");
    let out = lab.roundup(&[
        "commentary",
        "accept",
        "suites/tiny",
        "random-write-4k.data-compressible",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "commentary/suites/tiny.md: 1 slot now records the figures shown: \
             random-write-4k.data-compressible"
        ),
        "{}",
        stdout(&out)
    );
    let accepted = fs::read_to_string(&path).unwrap();
    let changed: Vec<(&str, &str)> = edited
        .lines()
        .zip(accepted.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(edited.lines().count(), accepted.lines().count());
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(
        edited.lines().nth(line),
        Some(changed[0].0),
        "the line under the heading"
    );
    assert!(changed[0].1.starts_with("<!-- figures: "), "{changed:?}");
    let err = stderr(&lab.roundup(&["render"]));
    assert!(
        err.contains("stale: suites/tiny: 6 slots written against other figures\n")
            && err.contains("`roundup commentary stale` lists them"),
        "{err}"
    );
    // `--quiet`: what was written is not listed; the files change all the same.
    let out = lab.roundup(&["commentary", "accept", "suites/tiny", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert!(fs::read_to_string(&path).unwrap() != accepted);
    let out = lab.roundup(&["commentary", "accept", "suites/tiny"]);
    assert!(
        stdout(&out).contains("no stale slots to accept"),
        "{}",
        stdout(&out)
    );
    let out = lab.roundup(&["render"]);
    assert!(
        !stderr(&out).contains("stale: suites/tiny"),
        "{}",
        stderr(&out)
    );
    let page = fs::read_to_string(lab.path().join("site/suites/tiny.html")).unwrap();
    assert!(page.contains("<strong>four times</strong>") && !page.contains("commentary stale"));
    let out = lab.roundup(&["commentary", "stale", "suites/tiny"]);
    assert!(
        stdout(&out).starts_with("no stale slots"),
        "{}",
        stdout(&out)
    );

    // Beta's firmware history: each test under B1 and under B2, side by side.
    let history = fs::read_to_string(lab.path().join("site/drives/sim-b-firmware.html")).unwrap();
    assert_eq!(
        history.matches("<section class=\"test\"").count(),
        3,
        "one chart per test variant"
    );
    assert!(history.contains("firmware B1 vs firmware B2"), "{history}");
    assert!(
        history.contains("<td>B1 → B2</td>"),
        "the table names both firmwares: {history}"
    );
    assert!(history.contains("Firmwares with results, the current one last: B1, B2"));
    assert!(
        !lab.path().join("site/drives/sim-a-firmware.html").exists(),
        "Alpha has one firmware"
    );
    let index = fs::read_to_string(lab.path().join("site/index.html")).unwrap();
    assert!(
        index.contains("drives/sim-b-firmware.html"),
        "the index links the history"
    );

    // The leaderboard ranks Beta under both firmwares; the old one is marked.
    let board = fs::read_to_string(
        lab.path()
            .join("site/leaderboards/tiny/random-write-4k.html"),
    )
    .unwrap();
    assert!(board.contains("Acme Beta 16 GB (fw B1)"), "{board}");
    assert!(board.contains("B2 (current)"), "{board}");
    // Rank, drive and firmware read as text (aligned left), the figures as numbers.
    assert!(
        board.contains("<td>B2 (current)</td><td class=\"num\">"),
        "{board}"
    );
    // Its table has the latency columns of the chart's own table: the distribution, not
    // only the mean and the maximum.
    for head in [
        "Mean latency",
        "Median",
        "99th percentile",
        "99.9th percentile",
    ] {
        assert!(board.contains(&format!(">{head}</th>")), "{head}: {board}");
    }
    assert!(index
        .replace("&#x2F;", "/")
        .contains("leaderboards/tiny/random-write-4k.html"));

    // commentary init drafts the history page's slots too, and a comparison's.
    let out = lab.roundup(&["commentary", "init", "drives/sim-b-firmware"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let history_notes =
        fs::read_to_string(lab.path().join("commentary/drives/sim-b-firmware.md")).unwrap();
    assert!(
        history_notes.contains("## tiny.random-write-4k.data-compressible\n<!-- figures: ")
            && history_notes.contains("From firmware B1 to firmware B2: the Acme Beta 16 GB +"),
        "{history_notes}"
    );
    let out = lab.roundup(&[
        "commentary",
        "init",
        "compare/sim-b-vs-sim-a",
        "--compare",
        "sim-b,sim-a",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let compare_notes =
        fs::read_to_string(lab.path().join("commentary/compare/sim-b-vs-sim-a.md")).unwrap();
    assert!(
        compare_notes.contains("the Acme Beta 16 GB delivers ")
            && compare_notes.contains("% of the Acme Alpha 16 GB's"),
        "{compare_notes}"
    );
    let out = lab.roundup(&["render", "--compare", "sim-b,sim-a"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let compare = fs::read_to_string(lab.path().join("site/compare/sim-b-vs-sim-a.html")).unwrap();
    assert!(
        compare.contains("Acme Beta 16 GB as % of Acme Alpha 16 GB"),
        "{compare}"
    );
    assert!(
        !stderr(&out).contains("stale: compare/"),
        "{}",
        stderr(&out)
    );

    // A slot whose chart disappears is reported, not dropped; one whose heading is
    // mistyped is told the chart it was probably meant for.
    fs::write(
        &path,
        format!("{edited}\n## gone.base\nOld words.\n\n## sequential-read-128k.bsae\nFast.\n"),
    )
    .unwrap();
    let out = lab.roundup(&["render"]);
    assert!(
        stderr(&out).contains(
            "slot gone.base has no chart on page suites/tiny (kept in the file, not shown)"
        ),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains(
            "slot sequential-read-128k.bsae has no chart on page suites/tiny (kept in the file, \
             not shown; did you mean sequential-read-128k.base?)"
        ),
        "{}",
        stderr(&out)
    );
    // So is a file for a page the site does not have (its name mistyped): its words,
    // introduction and slots alike, are not shown.
    fs::write(
        lab.path().join("commentary/suites/tinny.md"),
        "An introduction.\n",
    )
    .unwrap();
    let out = lab.roundup(&["render"]);
    assert!(
        stderr(&out).contains(
            "warning: commentary/suites/tinny.md: no page suites/tinny on the site (kept in \
             the file, not shown; did you mean suites/tiny?)"
        ),
        "{}",
        stderr(&out)
    );
    fs::remove_file(lab.path().join("commentary/suites/tinny.md")).unwrap();

    // Back to B1 (a firmware withdrawn): the firmware the drive file names is current,
    // whatever the names' order, and the history lists it last.
    lab.sim_drive("sim-b", "Beta", "B1", 2);
    for args in [&["run", "--drive", "sim-b"][..], &["render"]] {
        let out = lab.roundup(args);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let board = fs::read_to_string(
        lab.path()
            .join("site/leaderboards/tiny/random-write-4k.html"),
    )
    .unwrap();
    assert!(board.contains("B1 (current)"), "{board}");
    let history = fs::read_to_string(lab.path().join("site/drives/sim-b-firmware.html")).unwrap();
    assert!(history.contains("Firmwares with results, the current one last: B2, B1"));
}

/// The repository's own lab as a reader clones it: `roundup demo` runs the demo suites on
/// its drives and renders the site, and every shipped commentary slot still holds the
/// figures its chart shows (a model change that moves them must have its slots re-read and
/// accepted: `roundup commentary stale`, then `accept`).
#[test]
fn the_shipped_demo_runs_and_its_commentary_holds_its_figures() {
    let lab = TestLab::new();
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["drives", "suites", "commentary", "templates"] {
        for rel in common::files(&repo.join(dir)) {
            let to = lab.path().join(dir).join(&rel);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(repo.join(dir).join(&rel), to).unwrap();
        }
    }
    lab.write(
        "review.yaml",
        &fs::read_to_string(repo.join("review.yaml")).unwrap(),
    );
    let out = lab.roundup(&["demo", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("stale"), "{}", stderr(&out));
    assert!(lab.path().join("site/suites/demo.html").exists());
    assert!(lab.path().join("site/suites/demo-fill.html").exists());
}
