//! Commentary: the reviewer's prose, one Markdown file per page under `commentary/`, one
//! `## slot-id` section per chart. Text before the first slot introduces the page.
//!
//! A slot may carry the fingerprint of the figures it was written against on the line
//! after its heading (`<!-- figures: HEX -->`); the site marks a slot stale when its
//! chart's figures no longer match.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag};

use crate::config::{sha256_hex, Loaded};
use crate::error::InputError;

/// One page's commentary.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Commentary {
    /// Markdown before the first slot.
    pub intro: String,
    /// The slots in file order.
    pub slots: Vec<Slot>,
}

/// A commentary slot as `commentary init` writes it: what the render plans for a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotPlan {
    /// The slot (chart) id.
    pub id: String,
    /// The fingerprint of the chart's current figures.
    pub fingerprint: String,
    /// A sentence drafted from the figures, for the reviewer to keep or rewrite.
    pub draft: String,
}

/// One chart's commentary.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    /// The chart id (`test.variant`).
    pub id: String,
    /// Line of its heading.
    pub line: usize,
    /// Fingerprint of the figures it was written against, if recorded.
    pub fingerprint: Option<String>,
    /// The Markdown text.
    pub text: String,
}

impl Commentary {
    /// The slot with id `id`.
    pub fn slot(&self, id: &str) -> Option<&Slot> {
        self.slots.iter().find(|s| s.id == id)
    }

    /// The slots written against other figures than their charts show now (`plans`, the
    /// page's charts), in file order, each with its chart's plan.
    pub fn stale<'a>(&'a self, plans: &'a [SlotPlan]) -> Vec<(&'a Slot, &'a SlotPlan)> {
        self.slots
            .iter()
            .filter_map(|s| {
                let plan = plans.iter().find(|p| p.id == s.id)?;
                s.is_stale(&plan.fingerprint).then_some((s, plan))
            })
            .collect()
    }
}

impl Slot {
    /// Whether the slot was written against other figures than those of `fingerprint`
    /// (a slot that records none is never stale: nothing says what it was written for).
    pub fn is_stale(&self, fingerprint: &str) -> bool {
        self.fingerprint.as_ref().is_some_and(|f| f != fingerprint)
    }
}

/// Parses a commentary file.
pub fn parse(file: &Path, text: &str) -> Result<Commentary, Vec<InputError>> {
    let mut c = Commentary::default();
    let mut errors = Vec::new();
    let mut seen = BTreeSet::new();
    let mut current: Option<Slot> = None;
    let mut body = String::new();
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            in_fence = !in_fence;
        }
        if !in_fence {
            if let Some(rest) = line.strip_prefix("## ") {
                let id = rest.trim();
                let valid = !id.is_empty()
                    && id.chars().all(|ch| {
                        ch.is_ascii_lowercase() || ch.is_ascii_digit() || "-_.".contains(ch)
                    });
                if !valid {
                    errors.push(InputError::new(file, "slot", format!("expected a slot id (lowercase letters, digits, '-', '_', '.') after '## ', found {id:?}")).at(n, 4));
                }
                if !seen.insert(id.to_string()) {
                    errors.push(
                        InputError::new(file, "slot", format!("slot {id:?} appears twice"))
                            .at(n, 4),
                    );
                }
                match current.take() {
                    Some(mut s) => {
                        s.text = body.trim().to_string();
                        c.slots.push(s);
                    }
                    None => c.intro = body.trim().to_string(),
                }
                body.clear();
                current = Some(Slot {
                    id: id.to_string(),
                    line: n,
                    fingerprint: None,
                    text: String::new(),
                });
                continue;
            }
            if let Some(s) = current.as_mut() {
                let t = line.trim();
                if s.fingerprint.is_none() && body.trim().is_empty() {
                    if let Some(fp) = t
                        .strip_prefix("<!-- figures:")
                        .and_then(|r| r.strip_suffix("-->"))
                    {
                        let fp = fp.trim();
                        if fp.is_empty() || !fp.chars().all(|ch| ch.is_ascii_hexdigit()) {
                            errors.push(
                                InputError::new(
                                    file,
                                    "figures",
                                    format!("expected a hexadecimal fingerprint, found {fp:?}"),
                                )
                                .at(n, 1),
                            );
                        }
                        s.fingerprint = Some(fp.to_string());
                        continue;
                    }
                }
            }
        }
        body.push_str(line);
        body.push('\n');
    }
    match current.take() {
        Some(mut s) => {
            s.text = body.trim().to_string();
            c.slots.push(s);
        }
        None => c.intro = body.trim().to_string(),
    }
    if errors.is_empty() {
        Ok(c)
    } else {
        Err(errors)
    }
}

/// Loads every `commentary/**/*.md` of the lab, keyed by page id (path without `.md`).
pub fn load_all(root: &Path, errors: &mut Vec<InputError>) -> BTreeMap<String, Loaded<Commentary>> {
    let mut out = BTreeMap::new();
    let base = root.join("commentary");
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![base.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                files.push(p);
            }
        }
    }
    files.sort();
    for p in files {
        let rel = p.strip_prefix(root).unwrap_or(&p).to_path_buf();
        let page = p
            .strip_prefix(&base)
            .unwrap_or(&p)
            .with_extension("")
            .to_string_lossy()
            .replace('\\', "/");
        match fs::read(&p) {
            Ok(bytes) => match crate::config::utf8_text(&rel, &bytes) {
                Ok(text) => match parse(&rel, text) {
                    Ok(c) => {
                        out.insert(
                            page,
                            Loaded {
                                spec: c,
                                file: rel,
                                sha256: sha256_hex(&bytes),
                            },
                        );
                    }
                    Err(mut e) => errors.append(&mut e),
                },
                Err(e) => errors.push(e),
            },
            Err(e) => errors.push(InputError::new(&rel, "", format!("cannot read: {e}"))),
        }
    }
    out
}

/// Renders Markdown to HTML safely: raw HTML in the text is shown as text, not interpreted,
/// and links and images keep only http(s), mailto and relative destinations.
pub fn to_html(markdown: &str) -> String {
    let parser = Parser::new_ext(
        markdown,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH,
    )
    .map(|ev| match ev {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Image {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, parser);
    out
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    let scheme = lower
        .split_once(':')
        .map(|(s, _)| s)
        .filter(|s| !s.contains('/'));
    match scheme {
        None | Some("http") | Some("https") | Some("mailto") => url,
        Some(_) => CowStr::Borrowed("#"),
    }
}

/// The text of a commentary file with `slots` added: what is there is kept as written;
/// each missing slot is appended with the fingerprint of its figures and a drafted sentence.
/// Returns the new text and the ids added.
pub fn merge(
    existing: Option<&Commentary>,
    text: &str,
    slots: &[SlotPlan],
) -> (String, Vec<String>) {
    let mut out = text.trim_end().to_string();
    let mut added = Vec::new();
    for s in slots {
        if existing.is_some_and(|c| c.slot(&s.id).is_some()) {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&format!(
            "## {}\n<!-- figures: {} -->\n{}",
            s.id, s.fingerprint, s.draft
        ));
        added.push(s.id.clone());
    }
    out.push('\n');
    (out, added)
}

/// The text of a commentary file with the fingerprint of each slot named in `now` (slot id
/// → the fingerprint of its chart's figures) set to it: the reviewer has re-read the slot
/// and its words hold for the figures the chart shows now. The `<!-- figures: -->` line
/// after the slot's heading is replaced, or added under the heading where there is none;
/// every other byte stays as it is. Returns the new text and the ids whose fingerprint
/// changed.
pub fn accept(text: &str, now: &BTreeMap<&str, &str>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len() + 64);
    let mut changed = Vec::new();
    let mut in_fence = false;
    // After the heading of a slot in `now`: its fingerprint, the line ending to write it
    // with, and the blank lines seen since the heading (where parse still takes one).
    let mut pending: Option<(&str, &str, String)> = None;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if let Some((fp, eol, blanks)) = pending.as_mut() {
            if body.trim().is_empty() {
                blanks.push_str(line);
                continue;
            }
            let (fp, eol, blanks) = (*fp, *eol, std::mem::take(blanks));
            pending = None;
            let old = body
                .trim()
                .strip_prefix("<!-- figures:")
                .and_then(|r| r.strip_suffix("-->"))
                .map(str::trim);
            match old {
                Some(old) => {
                    out.push_str(&blanks);
                    out.push_str(&format!("<!-- figures: {fp} -->"));
                    out.push_str(&line[body.len()..]);
                    if old == fp {
                        changed.pop();
                    }
                    continue;
                }
                None => {
                    out.push_str(&format!("<!-- figures: {fp} -->{eol}"));
                    out.push_str(&blanks);
                }
            }
        }
        if body.trim_start().starts_with("```") || body.trim_start().starts_with("~~~") {
            in_fence = !in_fence;
        }
        out.push_str(line);
        let heading = (!in_fence).then(|| body.strip_prefix("## ")).flatten();
        if let Some((id, fp)) = heading.and_then(|h| now.get_key_value(h.trim())) {
            let eol = if line.ends_with("\r\n") { "\r\n" } else { "\n" };
            if !line.ends_with('\n') {
                out.push_str(eol);
            }
            changed.push(id.to_string());
            pending = Some((fp, eol, String::new()));
        }
    }
    if let Some((fp, eol, blanks)) = pending {
        out.push_str(&format!("<!-- figures: {fp} -->{eol}"));
        out.push_str(&blanks);
    }
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_and_intro() {
        let text = "Intro words.\n\n## rw.base\n<!-- figures: ab12 -->\nThe X25-M leads.\n\n### detail\nmore\n## sr.base\nSequential.\n";
        let c = parse(Path::new("c.md"), text).unwrap();
        assert_eq!(c.intro, "Intro words.");
        assert_eq!(c.slots.len(), 2);
        assert_eq!(c.slots[0].id, "rw.base");
        assert_eq!(c.slots[0].fingerprint.as_deref(), Some("ab12"));
        assert!(c.slots[0].text.contains("### detail"));
        assert_eq!(c.slots[1].line, 9);
    }

    #[test]
    fn bad_slots_are_errors_with_lines() {
        let e = parse(Path::new("c.md"), "## Bad Id\nx\n## ok\n## ok\n").unwrap_err();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].to_string(), "c.md:1:4: slot: expected a slot id (lowercase letters, digits, '-', '_', '.') after '## ', found \"Bad Id\"");
        assert_eq!(e[1].line, 4);
    }

    #[test]
    fn accepting_changes_only_the_fingerprint_lines() {
        // CRLF lines, a blank line before a fingerprint, a slot without one, a heading
        // inside a code block, a last heading without a line end.
        let text = "Intro.\r\n\r\n## a.base\r\n\r\n<!-- figures: 0011 -->\r\nWords **kept**.\r\n\
                    ## b.base\nNo fingerprint yet.\n```\n## a.base\n```\n\
                    ## c.base\n<!-- figures: 99 -->\nSame.\n## d.base";
        let now = BTreeMap::from([
            ("a.base", "aaaa"),
            ("b.base", "bbbb"),
            ("c.base", "99"),
            ("d.base", "dd"),
        ]);
        let (out, changed) = accept(text, &now);
        assert_eq!(
            out,
            "Intro.\r\n\r\n## a.base\r\n\r\n<!-- figures: aaaa -->\r\nWords **kept**.\r\n\
             ## b.base\n<!-- figures: bbbb -->\nNo fingerprint yet.\n```\n## a.base\n```\n\
             ## c.base\n<!-- figures: 99 -->\nSame.\n## d.base\n<!-- figures: dd -->\n"
        );
        assert_eq!(
            changed,
            ["a.base", "b.base", "d.base"],
            "c.base had these figures"
        );
        let (before, after) = (
            parse(Path::new("c.md"), text).unwrap(),
            parse(Path::new("c.md"), &out).unwrap(),
        );
        for (b, a) in before.slots.iter().zip(&after.slots) {
            assert_eq!((&b.id, &b.text), (&a.id, &a.text));
            assert_eq!(a.fingerprint.as_deref(), now.get(a.id.as_str()).copied());
        }
        // Slots not named are left alone, stale or not.
        let (same, none) = accept(text, &BTreeMap::from([("z.base", "00")]));
        assert_eq!((same.as_str(), none.len()), (text, 0));
    }

    #[test]
    fn markdown_is_rendered_safely() {
        let h = to_html(
            "**bold** <script>alert(1)</script> [x](javascript:alert(1)) [y](https://example.org)",
        );
        assert!(h.contains("<strong>bold</strong>"));
        assert!(!h.contains("<script>"), "{h}");
        assert!(h.contains("&lt;script&gt;"));
        assert!(!h.contains("javascript:"), "{h}");
        assert!(h.contains("https://example.org"));
    }
}
