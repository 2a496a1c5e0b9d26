//! `roundup commentary`: drafting the slots of the pages (`init`), listing those written
//! against figures their charts no longer show (`stale`), and recording that the reviewer
//! has re-read them (`accept`).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;

use anyhow::{bail, Result};
use roundup::commentary::SlotPlan;
use roundup::lab::Lab;
use roundup::units::Counted;
use roundup::{commentary, store};

use super::{load, CompareArgs};

/// Every page's slots from the current results, or only `only`'s (an unknown page is an
/// error naming the pages there are).
fn pages(
    lab: &Lab,
    only: Option<&str>,
    compare: &CompareArgs,
) -> Result<BTreeMap<String, Vec<SlotPlan>>> {
    let mut plans = roundup::render::slot_plans(lab, &compare.options(lab)?)?;
    if let Some(p) = only {
        if !plans.contains_key(p) {
            let known = plans.keys().map(String::as_str);
            bail!("no page {p:?} with results{}", hint(p, known));
        }
        plans.retain(|page, _| page == p);
    }
    Ok(plans)
}

/// What `found` was probably meant to be, then every name there is.
fn hint<'a>(found: &str, names: impl Iterator<Item = &'a str>) -> String {
    let all: Vec<&str> = names.collect();
    let mean = roundup::config::suggest(found, all.iter().copied())
        .map(|h| format!(" ({h})"))
        .unwrap_or_default();
    format!("{mean}; there are: {}", all.join(", "))
}

/// The commentary file of `page`, relative to the lab.
fn file_of(page: &str) -> String {
    format!("commentary/{page}.md")
}

/// `commentary init`: adds the missing slots of the pages, each with a drafted sentence.
pub fn init(lab_dir: &Path, only: Option<&str>, compare: &CompareArgs) -> Result<()> {
    let lab = load(lab_dir)?;
    for (page, slots) in pages(&lab, only, compare)? {
        let path = lab.root.join(file_of(&page));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let existing = lab.commentary.get(&page).map(|c| &c.spec);
        let (new_text, added) = commentary::merge(existing, &text, &slots);
        if added.is_empty() {
            info!("{}: all {} slots present", file_of(&page), slots.len());
            continue;
        }
        store::write_atomic(&path, new_text.as_bytes())?;
        info!(
            "{}: added {} of {} slots",
            file_of(&page),
            added.len(),
            slots.len()
        );
    }
    Ok(())
}

/// `commentary stale`: each slot written against other figures than its chart shows now,
/// where it is in its file, and the sentence the figures now give, to re-read it against.
pub fn stale(lab_dir: &Path, only: Option<&str>, compare: &CompareArgs) -> Result<()> {
    let lab = load(lab_dir)?;
    let (mut slots, mut on_pages) = (0, 0);
    for (page, plans) in pages(&lab, only, compare)? {
        let Some(notes) = lab.commentary.get(&page) else {
            continue;
        };
        let stale = notes.spec.stale(&plans);
        for (slot, plan) in &stale {
            outln!("{}:{}: {}", file_of(&page), slot.line, slot.id);
            outln!("    now: {}", plan.draft);
        }
        slots += stale.len();
        on_pages += usize::from(!stale.is_empty());
    }
    if slots == 0 {
        outln!("no stale slots: every slot that records its figures matches its chart");
    } else {
        outln!(
            "{} on {}: re-read each against its chart, then `roundup commentary accept PAGE \
             [SLOT]...` records the figures it holds for",
            Counted(slots, "stale slot"),
            Counted(on_pages, "page")
        );
    }
    Ok(())
}

/// `commentary accept`: sets the named slots' fingerprints (else those of every stale slot
/// of the pages) to their charts' figures now; the words are left as they are.
pub fn accept(
    lab_dir: &Path,
    only: Option<&str>,
    named: &[String],
    compare: &CompareArgs,
) -> Result<()> {
    let lab = load(lab_dir)?;
    let mut total = 0;
    for (page, plans) in pages(&lab, only, compare)? {
        let notes = lab.commentary.get(&page).map(|c| &c.spec);
        let now: BTreeMap<&str, &str> = if named.is_empty() {
            notes
                .map(|n| n.stale(&plans))
                .unwrap_or_default()
                .into_iter()
                .map(|(slot, plan)| (slot.id.as_str(), plan.fingerprint.as_str()))
                .collect()
        } else {
            let mut now = BTreeMap::new();
            for id in named {
                let Some(plan) = plans.iter().find(|p| &p.id == id) else {
                    let known = plans.iter().map(|p| p.id.as_str());
                    bail!("no chart {id:?} on page {page}{}", hint(id, known));
                };
                if notes.and_then(|n| n.slot(id)).is_none() {
                    bail!(
                        "slot {id} is not in {} (`roundup commentary init {page}` adds it)",
                        file_of(&page)
                    );
                }
                now.insert(id.as_str(), plan.fingerprint.as_str());
            }
            now
        };
        if now.is_empty() {
            continue;
        }
        let path = lab.root.join(file_of(&page));
        let text = std::fs::read_to_string(&path)?;
        let (new_text, changed) = commentary::accept(&text, &now);
        if changed.is_empty() {
            info!(
                "{}: {} already recorded the figures shown now",
                file_of(&page),
                named.join(", ")
            );
            continue;
        }
        store::write_atomic(&path, new_text.as_bytes())?;
        info!(
            "{}: {} now {} the figures shown: {}",
            file_of(&page),
            Counted(changed.len(), "slot"),
            if changed.len() == 1 {
                "records"
            } else {
                "record"
            },
            changed.join(", ")
        );
        total += changed.len();
    }
    if total == 0 && named.is_empty() {
        info!("no stale slots to accept");
    }
    Ok(())
}
