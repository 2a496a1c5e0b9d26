//! The sentences drafted from a chart's figures for its commentary slot: who leads and by
//! how much, and what changed between two variants, firmwares or repeats.

use crate::analysis::TestFigures;
use crate::units::figure;

use super::chart;
use super::format::Scale;

/// One drive's figure before and after a change (two variants, two firmwares, the first
/// repeat and the last), for [`changes_draft`].
pub(super) struct Change<'a> {
    /// Drive id.
    pub drive: &'a str,
    /// Drive as the site names it.
    pub name: &'a str,
    /// The figure before.
    pub from: f64,
    /// The figure after.
    pub to: f64,
}

/// Up to this many drives, a change's draft names every one.
pub(super) const NAMED_CHANGES: usize = 4;
/// A change of less than this many percent is told as a count, not drive by drive.
pub(super) const STEADY_PCT: f64 = 5.0;

/// A first sentence about a change, `lead` saying from what to what (`compressible to
/// incompressible`): each drive's change in chart order when there are few; with more,
/// the drives that moved by 5% or more, the largest change first, and how many stayed
/// within 5%; on a review page (`drive`) the reviewed drive's own change first. Drives
/// without a figure to compare (none before) are left out.
pub(super) fn changes_draft(lead: &str, changes: &[Change], drive: Option<&str>) -> String {
    let moves: Vec<(&Change, f64)> = changes
        .iter()
        .filter_map(|c| Some((c, chart::percent(c.from, c.to)?)))
        .collect();
    let told = |(c, pct): &(&Change, f64)| format!("the {} {pct:+.0}%", c.name);
    if moves.len() <= NAMED_CHANGES {
        let all: Vec<String> = moves.iter().map(told).collect();
        return format!("From {lead}: {}.", all.join(", "));
    }
    let mut moved: Vec<&(&Change, f64)> = moves
        .iter()
        .filter(|(_, pct)| pct.abs() >= STEADY_PCT)
        .collect();
    // The largest first; equal ones in chart order (the sort is stable).
    moved.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let steady = moves.len() - moved.len();
    let summary = if moved.is_empty() {
        let (lo, hi) = moves.iter().fold((f64::MAX, f64::MIN), |(lo, hi), (_, p)| {
            (lo.min(*p), hi.max(*p))
        });
        format!(
            "all {} drives within {STEADY_PCT}% ({lo:+.0}% to {hi:+.0}%)",
            moves.len()
        )
    } else {
        let named: Vec<String> = moved.iter().take(NAMED_CHANGES).map(|m| told(m)).collect();
        let mut s = named.join(", ");
        if moved.len() > NAMED_CHANGES {
            s.push_str(&format!(
                ", and {} more by {STEADY_PCT}% or more",
                moved.len() - NAMED_CHANGES
            ));
        }
        if steady > 0 {
            s.push_str(&format!("; the other {steady} within {STEADY_PCT}%"));
        }
        s
    };
    match drive.and_then(|d| moves.iter().find(|(c, _)| c.drive == d)) {
        Some(own) => format!(
            "From {lead}: {}. Of the {} drives, {summary}.",
            told(own),
            moves.len()
        ),
        None => format!("From {lead}: {summary}."),
    }
}

/// A first sentence about a chart: who leads and by how much, and, on a review page, where
/// the reviewed drive stands. A ratio is always the larger figure over the smaller, so a
/// lower-is-better chart (latency) says how many times as long the others take.
pub fn draft(f: &TestFigures, drive: Option<&str>) -> String {
    let scale = Scale::of(&f.metric, f.bars.iter().map(|b| b.value));
    let unit = scale.unit;
    let Some(first) = f.bars.first() else {
        return String::new();
    };
    let last = f.bars.last().unwrap_or(first);
    let higher = f.better == "higher";
    let mut s = format!(
        "The {} leads at {} {unit}",
        first.drive_name,
        scale.show(first.value)
    );
    if f.bars.len() > 1 && last.value > 0.0 && first.value > 0.0 {
        if higher {
            s.push_str(&format!(
                ", {}× the {} ({} {unit})",
                figure(first.value / last.value),
                last.drive_name,
                scale.show(last.value)
            ));
        } else {
            s.push_str(&format!(
                "; the {} takes {} {unit}, {}× as long",
                last.drive_name,
                scale.show(last.value),
                figure(last.value / first.value)
            ));
        }
    }
    s.push('.');
    if let Some(d) = drive {
        if let Some((rank, b)) = f.bars.iter().enumerate().find(|(_, b)| b.drive == d) {
            if rank > 0 && first.value > 0.0 {
                let against = if higher {
                    format!("{}% of the leader", figure(b.value / first.value * 100.0))
                } else {
                    format!("{}× the leader's", figure(b.value / first.value))
                };
                s.push_str(&format!(
                    " The {} ranks {} of {} at {} {unit}, {against}.",
                    b.drive_name,
                    rank + 1,
                    f.bars.len(),
                    scale.show(b.value),
                ));
            }
        }
    }
    s
}
