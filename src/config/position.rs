//! Where a key is in a YAML text: line and column of a field path (`tests[2].duration`,
//! `ssd.page`) below a node, for errors found once a file is read, which serde reports at
//! the start of the mapping it checked. Block-style YAML, as the lab's files are written,
//! with `{flow: mappings}` on one line.

/// Whether `s` reads as a field path: keys of letters, digits and `_`, joined by `.`,
/// with `[n]` indices.
pub(super) fn is_path(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'))
        && segments(s).is_some()
}

/// A line of YAML that holds something: its 1-based number, its indentation and the text
/// after it.
#[derive(Debug, Clone, Copy)]
pub(super) struct YamlLine<'a> {
    no: usize,
    indent: usize,
    text: &'a str,
}

/// The lines of `text` that are neither blank nor comments nor document markers.
pub(super) fn yaml_lines(text: &str) -> Vec<YamlLine<'_>> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim_start_matches(' ');
            let blank = t.trim().is_empty() || t.starts_with('#') || t.trim_end() == "---";
            (!blank).then_some(YamlLine {
                no: i + 1,
                indent: l.len() - t.len(),
                text: t,
            })
        })
        .collect()
}

/// One step of a field path.
#[derive(Debug, PartialEq)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// `ssd.firmwares.original` or `tests[2].variants.align` as steps; `None` if malformed.
fn segments(path: &str) -> Option<Vec<Step<'_>>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if key.is_empty() && rest.is_empty() {
            return None;
        }
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            out.push(Step::Index(r[..end].parse().ok()?));
            rest = &r[end + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

/// The key a `key: value` line starts with (quotes removed), if it is one.
fn key_of(text: &str) -> Option<&str> {
    if let Some(q @ ('"' | '\'')) = text.chars().next() {
        let end = text[1..].find(q)? + 1;
        return text[end + 1..].starts_with(':').then(|| &text[1..end]);
    }
    let i = text.find(':')?;
    let after = &text[i + 1..];
    (after.is_empty() || after.starts_with(' ')).then(|| text[..i].trim_end())
}

/// The lines of the node that starts at `at` (1-based line and column; the whole text for
/// 1:1): from that column of its first line, then the lines indented deeper than that line.
fn node_at<'a>(lines: &[YamlLine<'a>], at: (usize, usize)) -> Option<Vec<YamlLine<'a>>> {
    // 1:1 is the whole document, unless a list item starts there.
    let item_at_top = lines
        .first()
        .is_some_and(|l| l.no == 1 && l.indent == 0 && l.text.starts_with('-'));
    if at == (1, 1) && !item_at_top {
        return Some(lines.to_vec());
    }
    let j = lines.iter().position(|l| l.no == at.0)?;
    let first = lines[j];
    let skip = (at.1.checked_sub(1)?).checked_sub(first.indent)?;
    let mut text = first.text.get(skip..)?;
    let mut indent = first.indent + skip;
    // A list item: its node begins after the dash.
    let item = text.starts_with('-');
    if let Some(rest) = text.strip_prefix('-') {
        let trimmed = rest.trim_start_matches(' ');
        indent += 1 + rest.len() - trimmed.len();
        text = trimmed;
    }
    let mut body = Vec::new();
    if !text.trim().is_empty() {
        body.push(YamlLine {
            no: first.no,
            indent,
            text,
        });
    }
    // A block mapping that starts its line goes on at that line's indentation; one that
    // starts after a dash or a key, at any deeper one.
    let own =
        |l: &&YamlLine| l.indent > first.indent || (skip == 0 && !item && l.indent == first.indent);
    body.extend(lines[j + 1..].iter().take_while(own));
    Some(body)
}

/// Where the list item starting at `at` stands in its list (0 for the first), if a list
/// item starts there.
pub(super) fn item_index(lines: &[YamlLine<'_>], at: (usize, usize)) -> Option<usize> {
    let j = lines.iter().position(|l| l.no == at.0)?;
    let dash = lines[j];
    if dash.indent + 1 != at.1 || !dash.text.starts_with('-') {
        return None;
    }
    let before = lines[..j]
        .iter()
        .rev()
        .take_while(|l| {
            l.indent > dash.indent || (l.indent == dash.indent && l.text.starts_with('-'))
        })
        .filter(|l| l.indent == dash.indent)
        .count();
    Some(before)
}

/// The 1-based line and column of the key or item at `path` below the node starting at
/// `at` (see [`node_at`]), in block-style YAML; within a `{flow: mapping}` written on one
/// line, of the key on that line. A key that is not there gives the deepest one that is
/// on its path (`None` if none is).
pub(super) fn locate(
    lines: &[YamlLine<'_>],
    at: (usize, usize),
    path: &str,
) -> Option<(usize, usize)> {
    let mut body = node_at(lines, at)?;
    let mut found = None;
    // The text after a key whose value is written on its line, and that text's column.
    let mut inline: Option<(usize, usize, &str)> = None;
    for step in segments(path)? {
        // A node written as a `{flow: mapping}` (a list item, a key's value).
        if let (None, [first, ..]) = (inline, &body[..]) {
            if first.text.starts_with('{') {
                inline = Some((first.no, first.indent, first.text));
            }
        }
        if let Some((no, col, text)) = inline {
            let Step::Key(k) = step else {
                return found;
            };
            let Some(i) = text.match_indices(k).map(|(i, _)| i).find(|&i| {
                let before = text[..i].trim_end_matches(' ');
                let keyed = text[i + k.len()..].trim_start_matches(['"', '\'']);
                (before.is_empty() || before.ends_with(['{', ',', '"', '\'']))
                    && keyed.starts_with(':')
            }) else {
                return found;
            };
            let start = i - usize::from(text[..i].ends_with(['"', '\'']));
            found = Some((no, col + start + 1));
            inline = Some((no, col + i, &text[i..]));
            continue;
        }
        let Some(base) = body.first().map(|l| l.indent) else {
            return found;
        };
        let at_base = |l: &YamlLine| l.indent == base;
        let hit = match step {
            Step::Key(k) => body
                .iter()
                .enumerate()
                .find(|(_, l)| at_base(l) && key_of(l.text) == Some(k)),
            Step::Index(n) => body
                .iter()
                .enumerate()
                .filter(|(_, l)| at_base(l) && l.text.starts_with('-'))
                .nth(n),
        };
        // A key left out (a required one, or one whose default is wrong): its mapping.
        let Some((i, l)) = hit else {
            return found;
        };
        let l = *l;
        found = Some((l.no, l.indent + 1));
        let rest = &body[i + 1..];
        let child: Vec<YamlLine> = match step {
            Step::Key(_) => {
                let deeper: Vec<_> = rest
                    .iter()
                    .take_while(|m| m.indent > base)
                    .copied()
                    .collect();
                if deeper.is_empty() {
                    // A list may sit at its key's own indentation.
                    rest.iter()
                        .take_while(|m| {
                            m.indent > base || (m.indent == base && m.text.starts_with('-'))
                        })
                        .copied()
                        .collect()
                } else {
                    deeper
                }
            }
            // The item's node: from after its dash, with its deeper lines.
            Step::Index(_) => node_at(lines, (l.no, l.indent + 1)).unwrap_or_default(),
        };
        if child.is_empty() && matches!(step, Step::Key(_)) {
            let value = l.text.find(':').map_or("", |c| &l.text[c + 1..]);
            inline = Some((l.no, l.indent + l.text.len() - value.len(), value));
        }
        body = child;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_below_a_node() {
        let text = "# a drive\nid: x\nssd:\n  page: 3KiB\n  firmwares:\n    \"1\": {gc_policy: fifo}\n    two:\n      gc: foreground\n\ntests:\n- id: a\n  count: 5\n- id: b\n  span: full\n  variants: {align: [512B, 4KiB]}\n";
        let lines = yaml_lines(text);
        let top = (1, 1);
        assert_eq!(locate(&lines, top, "ssd.page"), Some((4, 3)));
        assert_eq!(
            locate(&lines, top, "ssd.firmwares.1.gc_policy"),
            Some((6, 11))
        );
        assert_eq!(locate(&lines, top, "ssd.firmwares.two.gc"), Some((8, 7)));
        assert_eq!(locate(&lines, top, "tests[1].span"), Some((14, 3)));
        assert_eq!(
            locate(&lines, top, "tests[1].variants.align"),
            Some((15, 14))
        );
        // A key left out: the mapping it belongs in.
        assert_eq!(locate(&lines, top, "ssd.log_blocks"), Some((3, 1)));
        assert_eq!(locate(&lines, top, "nothing"), None);
        // From a mapping's first key, as serde reports a check of a mapping value.
        assert_eq!(locate(&lines, (4, 3), "firmwares.two"), Some((7, 5)));
        let flow = "tests:\n  - {id: a, trace: {generate: {profile: x}}}\n";
        assert_eq!(
            locate(&yaml_lines(flow), top, "tests[0].trace.generate.profile"),
            Some((2, 32))
        );
        // Within a flow mapping that starts the node.
        assert_eq!(locate(&lines, (15, 13), "align"), Some((15, 14)));
        // From a list item, as serde reports a check of the item.
        assert_eq!(item_index(&lines, (13, 1)), Some(1));
        assert_eq!(locate(&lines, (13, 1), "span"), Some((14, 3)));
    }

    #[test]
    fn no_position_or_path_panics() {
        let text = "a: {b: 1, \"c\": [1, 2]}\n- x\n  - y: é\n\tz: 1\nq:\n- r: 's'\n  t: \"u: v\"\n";
        let lines = yaml_lines(text);
        for line in 0..10 {
            for column in 0..30 {
                for path in [
                    "a",
                    "a.b",
                    "a.c",
                    "q[0].t",
                    "q[3]",
                    "x[0][1].y",
                    "r.s.t",
                    "[0]",
                ] {
                    let _ = locate(&lines, (line, column), path);
                    let _ = item_index(&lines, (line, column));
                }
            }
        }
    }
}
