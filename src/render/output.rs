//! The templates (built in, or the lab's own), and the files of the site: a page written
//! from its template, any file put only when its bytes change, and the files no render
//! produces any more removed.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, RenderError, Result};
use crate::lab::Lab;
use crate::store;

use super::Report;

/// The templates built into roundup; a lab's `templates/` overrides any of them by name.
pub(super) const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/base.html")),
    ("macros.html", include_str!("../../templates/macros.html")),
    ("index.html", include_str!("../../templates/index.html")),
    ("suite.html", include_str!("../../templates/suite.html")),
    ("drive.html", include_str!("../../templates/drive.html")),
    (
        "firmware.html",
        include_str!("../../templates/firmware.html"),
    ),
    ("compare.html", include_str!("../../templates/compare.html")),
    ("explore.html", include_str!("../../templates/explore.html")),
    (
        "leaderboard.html",
        include_str!("../../templates/leaderboard.html"),
    ),
];

/// Static files copied into `site/static/`.
pub(super) const STATIC: &[(&str, &[u8])] = &[
    (
        "style.css",
        include_bytes!("../../templates/static/style.css"),
    ),
    (
        "explore.js",
        include_bytes!("../../templates/static/explore.js"),
    ),
    (
        "png-export.js",
        include_bytes!("../../templates/static/png-export.js"),
    ),
    (
        "fonts/DejaVuSans.ttf",
        include_bytes!("../../templates/static/fonts/DejaVuSans.ttf"),
    ),
    (
        "fonts/DejaVuSans-Bold.ttf",
        include_bytes!("../../templates/static/fonts/DejaVuSans-Bold.ttf"),
    ),
    (
        "fonts/LICENSE.txt",
        include_bytes!("../../templates/static/fonts/LICENSE.txt"),
    ),
];

pub(super) fn templates(lab: &Lab) -> Result<tera::Tera> {
    let mut t = tera::Tera::default();
    let mut sources: Vec<(String, String)> = Vec::new();
    for (name, builtin) in TEMPLATES {
        let custom = lab.root.join("templates").join(name);
        let text = if custom.is_file() {
            let bytes = fs::read(&custom).map_err(|e| Error::io(&custom, e))?;
            let rel = custom.strip_prefix(&lab.root).unwrap_or(&custom);
            crate::config::utf8_text(rel, &bytes)?.to_string()
        } else {
            builtin.to_string()
        };
        sources.push((name.to_string(), text));
    }
    t.add_raw_templates(sources)
        .map_err(|e| RenderError::Templates(tera_chain(&e)))?;
    t.autoescape_on(vec![".html"]);
    t.register_filter("sentence", sentence);
    Ok(t)
}

/// `text` as the start of a sentence: a first lower-case ASCII letter in capitals and the
/// rest as it is (tera's `capitalize` would write `MB/s` as `Mb/s`; a unit such as `µs`
/// stays).
pub(super) fn sentence_case(text: &str) -> String {
    let mut text = text.to_string();
    if let Some(first) = text.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    text
}

/// Tera filter `sentence`: [`sentence_case`], for a phrase that starts a sentence.
pub(super) fn sentence(
    value: &tera::Value,
    _: &std::collections::HashMap<String, tera::Value>,
) -> tera::Result<tera::Value> {
    let text = tera::try_get_value!("sentence", "value", String, value);
    Ok(tera::Value::String(sentence_case(&text)))
}

pub(super) fn tera_chain(e: &tera::Error) -> String {
    let mut s = e.to_string();
    let mut cur: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// Renders `template` for `page` and writes it to `site/PAGE.html` if it changed.
pub(super) fn write_page(
    tera: &tera::Tera,
    template: &str,
    ctx: &tera::Context,
    site: &Path,
    page: &str,
    report: &mut Report,
) -> Result<()> {
    let html = tera.render(template, ctx).map_err(|e| RenderError::Page {
        page: page.to_string(),
        message: tera_chain(&e),
    })?;
    put(site, &format!("{page}.html"), html.as_bytes(), report)
}

/// Writes `bytes` to `site/rel` unless it already holds exactly them.
pub(super) fn put(site: &Path, rel: &str, bytes: &[u8], report: &mut Report) -> Result<()> {
    report.produced.insert(PathBuf::from(rel));
    let path = site.join(rel);
    if fs::read(&path).is_ok_and(|old| old == bytes) {
        report.unchanged += 1;
        return Ok(());
    }
    store::write_replaced(&path, bytes)?;
    report.written.push(PathBuf::from(rel));
    Ok(())
}

/// Removes the pages and chart files (`.html`, `.svg`, `.png`, `.csv`) under `site` that
/// are not in `produced` (relative paths), and the temporary files of renders killed before
/// they could clean up (`store::is_stale_temp`), then the folders left empty; returns the
/// files removed, sorted. Other files (a `CNAME` for the host, say) are left alone, and
/// links are not followed.
pub(super) fn remove_stale(
    site: &Path,
    produced: &std::collections::BTreeSet<PathBuf>,
) -> Result<Vec<PathBuf>> {
    pub(super) fn walk(
        dir: &Path,
        files: &mut Vec<PathBuf>,
        dirs: &mut Vec<PathBuf>,
    ) -> Result<()> {
        let entries = fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(dir, e))?;
            let path = entry.path();
            if entry.file_type().map_err(|e| Error::io(&path, e))?.is_dir() {
                walk(&path, files, dirs)?;
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
        Ok(())
    }
    let rendered = |p: &Path| {
        p.extension()
            .is_some_and(|x| ["html", "svg", "png", "csv"].iter().any(|e| x == *e))
            || p.file_name()
                .is_some_and(|n| crate::store::is_stale_temp(&n.to_string_lossy()))
    };
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    if site.is_dir() {
        walk(site, &mut files, &mut dirs)?;
    }
    files.sort();
    let mut removed = Vec::new();
    for path in files {
        let rel = path.strip_prefix(site).unwrap_or(&path).to_path_buf();
        if rendered(&rel) && !produced.contains(&rel) {
            fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            removed.push(rel);
        }
    }
    // Deepest first, so that a folder whose sub-folders were emptied goes too.
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    for d in dirs {
        if fs::read_dir(&d).is_ok_and(|mut e| e.next().is_none()) {
            fs::remove_dir(&d).map_err(|e| Error::io(&d, e))?;
        }
    }
    Ok(removed)
}
