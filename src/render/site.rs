//! Every page of the site (suites, drive reviews, firmware histories, drive-vs-drive,
//! leaderboards and the index), built from the lab's results and commentary before any is
//! written.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::{self, TestFigures};
use crate::commentary::Commentary;
use crate::error::Result;
use crate::lab::Lab;
use crate::store;
use crate::target::TargetKind;

use super::context::{
    chart_ctx, drive_slots, page_context, suite_order, suite_slots, ChartCtx, DriveRow, SuiteLink,
};
use super::fill::{fill_chart, has_fill};
use super::pairs::{pair_ctx, pairs, Pair};
use super::pts::{grid, round_major};
use super::sweeps::{sweep_chart, sweeps};
use super::{compare, timing, Options, Report};

/// A page before it is written: its template, its context and its charts.
pub(super) struct PageOut {
    pub(super) id: String,
    pub(super) template: &'static str,
    pub(super) ctx: tera::Context,
    pub(super) charts: Vec<ChartCtx>,
}

/// Every page of the site, built from the lab's results and commentary.
pub(super) struct Site<'a> {
    lab: &'a Lab,
    summaries: Vec<(store::StoredJob, analysis::JobSummary)>,
    /// Each suite's test ids in the suite's order.
    order: BTreeMap<String, Vec<String>>,
    /// Each drive's firmwares with results, the current one last.
    history: BTreeMap<String, Vec<String>>,
    /// Each drive's current firmware (the last of its history).
    current: BTreeMap<String, String>,
    /// The current results, a chart's figures each.
    figures: Vec<TestFigures>,
    pub(super) report: Report,
    pub(super) pages: Vec<PageOut>,
    /// The explorer's data (`explore-data.js`).
    pub(super) explore_data: String,
}

impl<'a> Site<'a> {
    pub(super) fn build(lab: &'a Lab, opts: &Options) -> Result<Site<'a>> {
        let (jobs, mut problems) = store::scan(&lab.results_dir());
        let (summaries, mut more) = analysis::summarize(&jobs);
        problems.append(&mut more);
        let order = suite_order(lab);
        let history = analysis::firmware_history(&summaries, &lab.named_firmwares());
        let current = analysis::current_firmware(&history);
        let figures = analysis::figures(&summaries, &order, &current);
        let mut site = Site {
            lab,
            summaries,
            order,
            history,
            current,
            figures,
            report: Report {
                problems,
                ..Report::default()
            },
            pages: vec![],
            explore_data: String::new(),
        };
        let suites = site.suites();
        let drives = site.drives();
        site.suite_pages(&suites)?;
        site.review_pages(&suites, &drives)?;
        site.history_pages(&drives)?;
        let compared = site.compare_pages(&drives, opts)?;
        // Every result, a bar per drive and firmware: the leaderboards' and the explorer's.
        let all = analysis::leaderboard(&site.summaries, &site.order);
        let boards = site.leaderboards(&suites, &all)?;
        let mut ctx = site.context("index");
        let links: Vec<&SuiteLink> = suites.values().collect();
        ctx.insert("suites", &links);
        ctx.insert("drives", &drives.values().collect::<Vec<_>>());
        ctx.insert("compared", &compared);
        ctx.insert("leaderboards", &boards);
        ctx.insert("runs", &site.latest_runs(&drives));
        ctx.insert("problems", &site.report.problems);
        site.page("index".into(), "index.html", ctx, vec![]);
        site.explore_page(&suites, &all);
        site.report_orphans();
        Ok(site)
    }

    /// Adds page `id`, drawn with `template` from `ctx`, holding `charts`.
    fn page(
        &mut self,
        id: String,
        template: &'static str,
        ctx: tera::Context,
        charts: Vec<ChartCtx>,
    ) {
        self.pages.push(PageOut {
            id,
            template,
            ctx,
            charts,
        });
    }

    fn notes(&self, page: &str) -> Option<&'a Commentary> {
        self.lab.commentary.get(page).map(|c| &c.spec)
    }

    fn context(&self, page: &str) -> tera::Context {
        page_context(page, self.notes(page))
    }

    /// Suites: those of the lab, and any others found in the results.
    fn suites(&self) -> BTreeMap<String, SuiteLink> {
        let mut suites: BTreeMap<String, SuiteLink> = self
            .lab
            .suites
            .iter()
            .map(|(n, s)| {
                (
                    n.clone(),
                    SuiteLink {
                        name: n.clone(),
                        title: s.spec.title.clone(),
                        description: s.spec.description.clone(),
                        tests: s.spec.tests.len(),
                        charts: 0,
                    },
                )
            })
            .collect();
        for f in &self.figures {
            let link = suites.entry(f.suite.clone()).or_insert_with(|| SuiteLink {
                name: f.suite.clone(),
                title: f.suite_title.clone(),
                description: None,
                tests: 0,
                charts: 0,
            });
            link.charts += 1;
        }
        suites
    }

    /// The lab's drives and any others with results, with their current firmware.
    fn drives(&self) -> BTreeMap<String, DriveRow> {
        let current = |drive: &str| self.current.get(drive).map(String::as_str);
        let mut drives: BTreeMap<String, DriveRow> = self
            .lab
            .drives
            .iter()
            .map(|(id, d)| {
                let s = &d.spec;
                (
                    id.clone(),
                    DriveRow {
                        id: id.clone(),
                        page: false,
                        history: false,
                        name: s.display_name(),
                        controller: s.controller.clone().unwrap_or_default(),
                        firmware: current(id)
                            .map(str::to_string)
                            .or_else(|| s.firmware.clone())
                            .unwrap_or_else(|| "–".into()),
                        results: 0,
                    },
                )
            })
            .collect();
        for (j, _) in &self.summaries {
            let m = &j.manifest;
            let row = drives.entry(m.drive.clone()).or_insert_with(|| DriveRow {
                id: m.drive.clone(),
                page: false,
                history: false,
                name: m.drive_name.clone(),
                controller: String::new(),
                firmware: current(&m.drive).unwrap_or_default().to_string(),
                results: 0,
            });
            if current(&m.drive) == Some(m.firmware.as_str()) {
                row.results += 1;
                row.page = true;
            }
        }
        for row in drives.values_mut() {
            row.history = self.history.get(&row.id).is_some_and(|fws| fws.len() > 1);
        }
        drives
    }

    /// A page per suite: each test's sweeps and paired variants, its bar chart with the latency
    /// table, its latency CDF and, where it was repeated, its figures over repeats.
    fn suite_pages(&mut self, suites: &BTreeMap<String, SuiteLink>) -> Result<()> {
        for (name, link) in suites {
            let page = format!("suites/{name}");
            let notes = self.notes(&page);
            let report = &mut self.report;
            let mut charts = Vec::new();
            let suite_pairs = pairs(&self.figures, name);
            let suite_sweeps = sweeps(&self.figures, name);
            let mut shown_pairs = BTreeSet::new();
            let rounds = round_major(self.lab, name);
            for (slot, f) in suite_slots(&self.figures, name) {
                // A round-major test: a heat map per drive at its tracked variant, whose
                // charts follow; its other variants are in the grid.
                if let Some(tracked) = rounds.get(&f.test) {
                    if &f.variant != tracked {
                        continue;
                    }
                    if let Some(g) = grid(&self.figures, &f.suite, &f.test, tracked) {
                        for (drive, drive_name) in g.drives() {
                            let id = format!("{}.heatmap.{drive}", g.test);
                            let fig = g.figure(&drive, &drive_name, &id)?;
                            charts.push(fig.into_ctx(notes, report, &page));
                        }
                    }
                }
                // A round-major test's grid stands for its sweeps and pairs.
                let gridded = rounds.contains_key(&f.test);
                for s in suite_sweeps
                    .iter()
                    .filter(|s| !gridded && s.points[0].figures.test == f.test)
                {
                    if shown_pairs.insert(s.id.clone()) {
                        charts.push(sweep_chart(s, &s.id, None).into_ctx(notes, report, &page)?);
                    }
                }
                for p in suite_pairs
                    .iter()
                    .filter(|p| !gridded && p.a.test == f.test)
                {
                    if shown_pairs.insert(p.id.clone()) {
                        charts.push(pair_ctx(p, None, notes, report, &page)?);
                    }
                }
                charts.push(chart_ctx(f, &slot, None, notes, report, &page)?);
                if has_fill(f) {
                    charts.push(
                        fill_chart(f, &format!("{slot}.fill"), None)
                            .into_ctx(notes, report, &page)?,
                    );
                }
                charts.push(
                    timing::cdf(f, &format!("{slot}.cdf"), None).into_ctx(notes, report, &page)?,
                );
                if f.bars.iter().any(|b| b.repeats > 1) {
                    charts.push(
                        timing::over_repeats(f, &format!("{slot}.repeats"), None)
                            .into_ctx(notes, report, &page)?,
                    );
                }
            }
            let mut ctx = self.context(&page);
            ctx.insert(
                "suite",
                &serde_json::json!({"name": name, "title": link.title, "description": link.description}),
            );
            ctx.insert("charts", &charts);
            self.page(page, "suite.html", ctx, charts);
        }
        Ok(())
    }

    /// A review page per drive with current results, in the order a review reads: each
    /// suite's charts (variants paired) with the drive highlighted, then latency (CDF and
    /// latency over time), then throughput over time and over repeats.
    fn review_pages(
        &mut self,
        suites: &BTreeMap<String, SuiteLink>,
        drives: &BTreeMap<String, DriveRow>,
    ) -> Result<()> {
        for row in drives.values().filter(|r| r.page) {
            let page = format!("drives/{}", row.id);
            let notes = self.notes(&page);
            let report = &mut self.report;
            let drive = Some(row.id.as_str());
            let mut sections: Vec<serde_json::Value> = Vec::new();
            let mut all = Vec::new();
            for (suite, link) in suites {
                let mut results = Vec::new();
                let mut latencies = Vec::new();
                let mut over_time = Vec::new();
                let suite_pairs = pairs(&self.figures, suite);
                let suite_sweeps = sweeps(&self.figures, suite);
                let mut shown_pairs = BTreeSet::new();
                let rounds = round_major(self.lab, suite);
                for (slot, f) in drive_slots(&self.figures, suite, &row.id) {
                    if let Some(tracked) = rounds.get(&f.test) {
                        if &f.variant != tracked {
                            continue;
                        }
                        if let Some(g) = grid(&self.figures, &f.suite, &f.test, tracked) {
                            let id = format!("{suite}.{}.heatmap", g.test);
                            let fig = g.figure(&row.id, &row.name, &id)?;
                            results.push(fig.into_ctx(notes, report, &page));
                        }
                    }
                    let gridded = rounds.contains_key(&f.test);
                    for s in suite_sweeps.iter().filter(|s| {
                        !gridded
                            && s.points[0].figures.test == f.test
                            && s.points
                                .iter()
                                .any(|p| p.figures.bars.iter().any(|b| b.drive == row.id))
                    }) {
                        if shown_pairs.insert(s.id.clone()) {
                            results.push(
                                sweep_chart(s, &format!("{suite}.{}", s.id), drive)
                                    .into_ctx(notes, report, &page)?,
                            );
                        }
                    }
                    for p in suite_pairs.iter().filter(|p| {
                        !gridded
                            && p.a.test == f.test
                            && p.matched().iter().any(|(b, _)| b.drive == row.id)
                    }) {
                        if shown_pairs.insert(p.id.clone()) {
                            let p = Pair {
                                id: format!("{suite}.{}", p.id),
                                dimension: p.dimension.clone(),
                                labels: p.labels.clone(),
                                context: p.context.clone(),
                                a: p.a,
                                b: p.b,
                            };
                            results.push(pair_ctx(&p, drive, notes, report, &page)?);
                        }
                    }
                    results.push(chart_ctx(f, &slot, drive, notes, report, &page)?);
                    if has_fill(f) {
                        results.push(
                            fill_chart(f, &format!("{slot}.fill"), drive)
                                .into_ctx(notes, report, &page)?,
                        );
                    }
                    let Some(bar) = f.bars.iter().find(|b| b.drive == row.id) else {
                        continue;
                    };
                    latencies.push(
                        timing::cdf(f, &format!("{slot}.cdf"), drive)
                            .into_ctx(notes, report, &page)?,
                    );
                    latencies.push(
                        timing::latency_over_time(f, bar, &format!("{slot}.latency"))
                            .into_ctx(notes, report, &page)?,
                    );
                    over_time.push(
                        timing::throughput_over_time(f, bar, &format!("{slot}.throughput"))
                            .into_ctx(notes, report, &page)?,
                    );
                    if bar.repeats > 1 {
                        over_time.push(
                            timing::over_repeats(f, &format!("{slot}.repeats"), drive)
                                .into_ctx(notes, report, &page)?,
                        );
                    }
                }
                for (what, charts) in [
                    ("", results),
                    ("latency", latencies),
                    ("over time and over repeats", over_time),
                ] {
                    if charts.is_empty() {
                        continue;
                    }
                    let title = if what.is_empty() {
                        link.title.clone()
                    } else {
                        format!("{}: {what}", link.title)
                    };
                    sections
                        .push(serde_json::json!({"name": suite, "title": title, "charts": charts}));
                    all.extend(charts);
                }
            }
            let mut ctx = self.context(&page);
            ctx.insert("drive", row);
            ctx.insert("sections", &sections);
            self.page(page, "drive.html", ctx, all);
        }
        Ok(())
    }

    /// Firmware history: each test of a drive under its previous and its current firmware.
    fn history_pages(&mut self, drives: &BTreeMap<String, DriveRow>) -> Result<()> {
        for row in drives.values().filter(|r| r.history) {
            let Some(fws) = self.history.get(&row.id) else {
                continue;
            };
            let [.., old, new] = fws.as_slice() else {
                continue;
            };
            let under = |fw: &str| {
                analysis::figures_where(&self.summaries, &self.order, |m| {
                    m.drive == row.id && m.firmware == fw
                })
            };
            let (before, after) = (under(old), under(new));
            let page = format!("drives/{}-firmware", row.id);
            let notes = self.notes(&page);
            let mut charts = Vec::new();
            for b in &before {
                let Some(a) = after
                    .iter()
                    .find(|a| a.suite == b.suite && a.test == b.test && a.variant == b.variant)
                else {
                    continue;
                };
                let pair = Pair {
                    id: format!("{}.{}", b.suite, b.slot_id()),
                    dimension: "firmware".into(),
                    labels: (format!("firmware {old}"), format!("firmware {new}")),
                    context: b.variant_label.clone(),
                    a: b,
                    b: a,
                };
                charts.push(pair_ctx(&pair, None, notes, &mut self.report, &page)?);
            }
            let mut ctx = self.context(&page);
            ctx.insert("drive", row);
            ctx.insert("firmwares", &fws);
            ctx.insert("charts", &charts);
            self.page(page, "firmware.html", ctx, charts);
        }
        Ok(())
    }

    /// A page for each pair of drives `review.yaml` or `--compare` names: per suite, every
    /// test both ran, side by side, with the first drive's figure as a share of the second's.
    fn compare_pages(
        &mut self,
        drives: &BTreeMap<String, DriveRow>,
        opts: &Options,
    ) -> Result<Vec<serde_json::Value>> {
        let mut wanted: Vec<(String, String)> = self
            .lab
            .review
            .as_ref()
            .map(|r| {
                r.spec
                    .compare
                    .iter()
                    .map(|[a, b]| (a.clone(), b.clone()))
                    .collect()
            })
            .unwrap_or_default();
        wanted.extend(opts.compare.iter().cloned());
        let mut seen = BTreeSet::new();
        wanted.retain(|p| seen.insert(p.clone()));
        let mut links = Vec::new();
        for (a, b) in wanted {
            let (Some(ra), Some(rb)) = (
                drives.get(&a).filter(|r| r.page),
                drives.get(&b).filter(|r| r.page),
            ) else {
                self.report.problems.push(format!(
                    "comparison {a} vs {b}: {} has no results; no page written",
                    if drives.get(&a).is_some_and(|r| r.page) {
                        &b
                    } else {
                        &a
                    }
                ));
                continue;
            };
            let page = format!("compare/{a}-vs-{b}");
            let notes = self.notes(&page);
            let mut charts = Vec::new();
            let mut sections = Vec::new();
            let suites: BTreeSet<&str> = self.figures.iter().map(|f| f.suite.as_str()).collect();
            for suite in suites {
                let Some(c) = compare::ratio(&self.figures, suite, ra, rb) else {
                    continue;
                };
                let ctx = c.into_ctx(notes, &mut self.report, &page)?;
                sections.push(serde_json::json!({"suite": suite, "chart": ctx}));
                charts.push(ctx);
            }
            let mut ctx = self.context(&page);
            ctx.insert("a", ra);
            ctx.insert("b", rb);
            ctx.insert("sections", &sections);
            links.push(serde_json::json!({"page": page, "a": ra.name, "b": rb.name}));
            self.page(page, "compare.html", ctx, charts);
        }
        Ok(links)
    }

    /// A leaderboard per test: every drive under every firmware with results, ranked.
    fn leaderboards(
        &mut self,
        suites: &BTreeMap<String, SuiteLink>,
        all: &[TestFigures],
    ) -> Result<Vec<serde_json::Value>> {
        let mut links = Vec::new();
        let mut tests: Vec<(String, String)> = Vec::new();
        for f in all {
            let key = (f.suite.clone(), f.test.clone());
            if !tests.contains(&key) {
                tests.push(key);
            }
        }
        for (suite, test) in tests {
            let page = format!("leaderboards/{suite}/{test}");
            let notes = self.notes(&page);
            let mut charts = Vec::new();
            let mut title = String::new();
            for f in all.iter().filter(|f| f.suite == suite && f.test == test) {
                title = f.title.clone();
                charts.push(compare::board(f, &self.current).into_ctx(
                    notes,
                    &mut self.report,
                    &page,
                )?);
            }
            let suite_title = suites
                .get(&suite)
                .map(|s| s.title.clone())
                .unwrap_or_default();
            let mut ctx = self.context(&page);
            ctx.insert(
                "suite",
                &serde_json::json!({"name": suite, "title": suite_title}),
            );
            ctx.insert("title", &title);
            ctx.insert("charts", &charts);
            links.push(serde_json::json!({"page": page, "suite": suite_title, "title": title}));
            self.page(page, "leaderboard.html", ctx, charts);
        }
        Ok(links)
    }

    /// The results explorer: its page, and its data (every drive and firmware on every
    /// test, the leaderboards' figures).
    fn explore_page(&mut self, suites: &BTreeMap<String, SuiteLink>, boards: &[TestFigures]) {
        let titles = suites
            .iter()
            .map(|(n, s)| (n.clone(), s.title.clone()))
            .collect();
        self.explore_data = super::explore::data(self.lab, boards, &self.current, &titles);
        let mut ctx = self.context("explore");
        ctx.insert("data_file", super::explore::DATA_FILE);
        self.page("explore".into(), "explore.html", ctx, vec![]);
    }

    /// The latest runs on real drives: each drive, firmware and suite with results, the day
    /// its last job finished (as the manifests record it) and its number of jobs, newest
    /// first, the last twelve. A simulated drive's results do not depend on when it ran, so
    /// it has no place here (the drives table lists it with its results).
    fn latest_runs(&self, drives: &BTreeMap<String, DriveRow>) -> Vec<serde_json::Value> {
        let mut runs: BTreeMap<(&str, &str, &str), (&str, usize)> = BTreeMap::new();
        for (j, _) in &self.summaries {
            let m = &j.manifest;
            let Some(day) = m
                .finished_at
                .as_deref()
                .filter(|_| m.target.kind != TargetKind::Simulated)
                .map(|t| t.get(..10).unwrap_or(t))
            else {
                continue;
            };
            let e = runs
                .entry((&m.drive, &m.firmware, &m.suite))
                .or_insert((day, 0));
            e.0 = e.0.max(day);
            e.1 += 1;
        }
        let mut runs: Vec<_> = runs.into_iter().collect();
        // Newest day first; within a day by drive, firmware and suite, so that the order
        // does not depend on which of two parallel jobs finished first.
        runs.sort_by(|a, b| b.1 .0.cmp(a.1 .0).then(a.0.cmp(&b.0)));
        runs.into_iter()
            .take(12)
            .map(|((drive, firmware, suite), (day, jobs))| {
                let row = drives.get(drive);
                serde_json::json!({
                    "drive": drive,
                    "name": row.map_or(drive, |r| r.name.as_str()),
                    "page": row.is_some_and(|r| r.page && r.firmware == firmware),
                    "firmware": firmware,
                    "suite": suite,
                    "day": day,
                    "jobs": jobs,
                })
            })
            .collect()
    }

    /// Commentary slots with no chart on their page, and commentary files of a page the
    /// site does not have: kept in their files, reported here.
    fn report_orphans(&mut self) {
        let pages: BTreeMap<&str, BTreeSet<&str>> = self
            .pages
            .iter()
            .map(|p| {
                (
                    p.id.as_str(),
                    p.charts.iter().map(|c| c.id.as_str()).collect(),
                )
            })
            .collect();
        // The names a mistyped one was likely meant to be: "; did you mean …?".
        let hint = |likely: Vec<&str>| {
            crate::config::did_you_mean(&likely, str::to_string)
                .map(|hint| format!("; {hint}"))
                .unwrap_or_default()
        };
        for (page, c) in &self.lab.commentary {
            let Some(ids) = pages.get(page.as_str()) else {
                // A page the site does not have (none of its results, or the file's name
                // mistyped): its introduction and every slot are not shown.
                let hint = hint(crate::config::likely(page, pages.keys().copied()));
                self.report.orphan_slots.push(format!(
                    "{}: no page {page} on the site (kept in the file, not shown{hint})",
                    c.file.display()
                ));
                continue;
            };
            for s in c.spec.slots.iter().filter(|s| !ids.contains(s.id.as_str())) {
                // A slot whose heading was mistyped is told the chart it was meant for.
                let hint = hint(crate::config::likely(&s.id, ids.iter().copied()));
                self.report.orphan_slots.push(format!(
                    "{}:{}: slot {} has no chart on page {page} (kept in the file, not \
                     shown{hint})",
                    c.file.display(),
                    s.line,
                    s.id
                ));
            }
        }
    }
}
