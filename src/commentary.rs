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

use crate::error::InputError;
use crate::lab::{sha256_hex, Loaded};

/// One page's commentary.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Commentary {
    /// Markdown before the first slot.
    pub intro: String,
    /// The slots in file order.
    pub slots: Vec<Slot>,
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
    slots: &[crate::render::SlotPlan],
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
