//! Secret masking (`--mask REGEX`, `--mask-auto`): what matches is replaced by `*` in the
//! snapshot every output is drawn or written from — SVG text and its metadata, PNG, JSON,
//! text — so the secret is written nowhere; the masked cells are marked
//! ([`CellSnapshot::m`](crate::term::CellSnapshot::m)) and drawn hatched. Cells keep their
//! widths, so the columns stay where they were.
//!
//! A pattern is matched against each line as the screen shows it (rows joined where a long
//! line wrapped), so a secret split by the terminal's width is still found. A pattern with a
//! group named `secret` masks only that group (`password=(?P<secret>\S+)` keeps
//! `password=`). Titles and link targets are masked too. Without the `mask` feature (no regex
//! engine) only an empty mask can be made.

use crate::term::{CellSnapshot, Snapshot};

/// What `--mask-auto` looks for: common credentials, by what they are.
pub const AUTO_PATTERNS: &[(&str, &str)] = &[
    (
        "AWS access key id",
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b",
    ),
    (
        "AWS secret access key",
        r#"(?i)aws_?secret_?access_?key\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40})"#,
    ),
    (
        "GitHub token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b",
    ),
    ("GitLab token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    ("Slack token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    (
        "OpenAI-style key",
        r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}",
    ),
    ("Stripe key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("Google API key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    (
        "JSON Web Token",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    ),
    (
        "private key header",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----",
    ),
    (
        "password assignment",
        r#"(?i)\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)\b\s*[:=]\s*(?P<secret>"[^"\s]+"|'[^'\s]+'|[^\s"',;]+)"#,
    ),
];

/// Secret patterns to mask; [`Mask::default`] masks nothing.
#[derive(Clone, Debug, Default)]
pub struct Mask {
    #[cfg(feature = "mask")]
    patterns: Vec<regex::Regex>,
    /// Mask the body of PEM private-key blocks (`--mask-auto`): its lines match no pattern.
    private_keys: bool,
}

impl PartialEq for Mask {
    fn eq(&self, other: &Mask) -> bool {
        #[cfg(feature = "mask")]
        let same = self
            .patterns
            .iter()
            .map(regex::Regex::as_str)
            .eq(other.patterns.iter().map(regex::Regex::as_str));
        #[cfg(not(feature = "mask"))]
        let same = true;
        same && self.private_keys == other.private_keys
    }
}

/// The longest pattern accepted.
pub const MAX_PATTERN_LEN: usize = 4096;

impl Mask {
    /// A mask of `patterns` (regular expressions) and, with `auto`, [`AUTO_PATTERNS`] and
    /// private-key blocks. A bad pattern is an error naming it.
    pub fn new(patterns: &[String], auto: bool) -> Result<Mask, String> {
        #[cfg(feature = "mask")]
        {
            let auto_patterns = AUTO_PATTERNS.iter().map(|(_, p)| *p).filter(|_| auto);
            let compiled = patterns
                .iter()
                .map(String::as_str)
                .chain(auto_patterns)
                .map(|p| {
                    if p.len() > MAX_PATTERN_LEN {
                        return Err(format!("a --mask pattern is longer than {MAX_PATTERN_LEN}"));
                    }
                    regex::RegexBuilder::new(p)
                        .size_limit(1 << 20)
                        .build()
                        .map_err(|e| format!("bad --mask pattern {p:?}: {e}"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Mask {
                patterns: compiled,
                private_keys: auto,
            })
        }
        #[cfg(not(feature = "mask"))]
        {
            if patterns.is_empty() && !auto {
                Ok(Mask::default())
            } else {
                Err("masking needs shotty's `mask` feature".into())
            }
        }
    }

    /// Whether it masks nothing.
    pub fn is_empty(&self) -> bool {
        #[cfg(feature = "mask")]
        let none = self.patterns.is_empty();
        #[cfg(not(feature = "mask"))]
        let none = true;
        none && !self.private_keys
    }

    /// Masks `snapshot` in place; returns how many cells were masked.
    pub fn apply(&self, snapshot: &mut Snapshot) -> usize {
        if self.is_empty() {
            return 0;
        }
        snapshot.title = self.mask_text(&snapshot.title);
        for link in &mut snapshot.links {
            link.uri = self.mask_text(&link.uri);
            if let Some(id) = &link.id {
                link.id = Some(self.mask_text(id));
            }
        }
        let mut masked = 0;
        let mut in_key_block = false;
        let mut start = 0;
        while start < snapshot.rows.len() {
            // One line as the screen shows it: rows joined while a row wrapped.
            let mut end = start + 1;
            while end < snapshot.rows.len() && snapshot.rows[end - 1].wrapped {
                end += 1;
            }
            let line = Line::of(&snapshot.rows[start..end], start);
            let mut hits = self.secret_ranges(&line.text);
            if self.private_keys {
                let begins = line.text.contains("-----BEGIN") && line.text.contains("PRIVATE KEY");
                let ends = line.text.contains("-----END") && line.text.contains("PRIVATE KEY");
                if in_key_block || begins {
                    hits.push(0..line.text.len());
                }
                in_key_block = (in_key_block || begins) && !ends;
            }
            for range in hits {
                masked += line.mask(snapshot, range);
            }
            start = end;
        }
        masked
    }

    /// Byte ranges of `text` to mask.
    fn secret_ranges(&self, text: &str) -> Vec<std::ops::Range<usize>> {
        #[cfg(feature = "mask")]
        {
            let mut ranges = Vec::new();
            for pattern in &self.patterns {
                for caps in pattern.captures_iter(text) {
                    let m = caps.name("secret").or_else(|| caps.get(0));
                    if let Some(m) = m.filter(|m| !m.is_empty()) {
                        ranges.push(m.range());
                    }
                }
            }
            ranges
        }
        #[cfg(not(feature = "mask"))]
        {
            let _ = text;
            Vec::new()
        }
    }

    /// `text` with every secret's characters replaced by `*` (titles, link targets, the
    /// caption of typed keys).
    pub fn mask_text(&self, text: &str) -> String {
        let ranges = self.secret_ranges(text);
        text.char_indices()
            .map(|(i, c)| {
                if ranges.iter().any(|r| r.contains(&i)) {
                    '*'
                } else {
                    c
                }
            })
            .collect()
    }
}

/// `snapshot` masked by `mask`, borrowed as it is when there is nothing to mask.
pub(crate) fn masked<'a>(snapshot: &'a Snapshot, mask: &Mask) -> std::borrow::Cow<'a, Snapshot> {
    if mask.is_empty() {
        return std::borrow::Cow::Borrowed(snapshot);
    }
    let mut copy = snapshot.clone();
    mask.apply(&mut copy);
    std::borrow::Cow::Owned(copy)
}

/// A line's text and, for each cell with text, where it starts in it.
struct Line {
    text: String,
    /// (byte offset, row, column) of each cell that has text, in order.
    cells: Vec<(usize, usize, usize)>,
}

impl Line {
    /// The line of `rows`, the first being the snapshot's row `first`.
    fn of(rows: &[crate::term::RowSnapshot], first: usize) -> Line {
        let mut text = String::new();
        let mut cells = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.cells.iter().enumerate() {
                if cell.w == 0 {
                    continue;
                }
                cells.push((text.len(), first + r, c));
                text.push_str(if cell.t.is_empty() { " " } else { &cell.t });
            }
        }
        Line { text, cells }
    }

    /// Masks the cells whose text overlaps `range`; returns how many.
    fn mask(&self, snapshot: &mut Snapshot, range: std::ops::Range<usize>) -> usize {
        let mut count = 0;
        for (i, &(at, row, col)) in self.cells.iter().enumerate() {
            let next = self.cells.get(i + 1).map_or(self.text.len(), |c| c.0);
            if next <= range.start || at >= range.end || self.text[at..next].trim().is_empty() {
                continue;
            }
            let cells = &mut snapshot.rows[row].cells;
            let wide = usize::from(cells[col].w.max(1));
            for cell in cells.iter_mut().skip(col).take(wide) {
                mask_cell(cell);
            }
            count += 1;
        }
        count
    }
}

/// A cell as masked: `*` in place of its text (a wide character's right half stays empty, so
/// the columns do not move).
fn mask_cell(cell: &mut CellSnapshot) {
    if cell.w != 0 {
        cell.t = "*".into();
    }
    cell.m = true;
}

#[cfg(all(test, feature = "mask"))]
mod tests {
    use super::*;
    use crate::term::Terminal;

    fn masked(width: usize, bytes: &str, patterns: &[&str], auto: bool) -> Snapshot {
        let mut t = Terminal::new(width, 6);
        t.advance(bytes.as_bytes());
        let mut snap = t.snapshot();
        let patterns: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
        Mask::new(&patterns, auto).unwrap().apply(&mut snap);
        snap
    }

    /// The screen's text without the blank rows below it.
    fn shown(snap: &Snapshot) -> String {
        snap.text().trim_end().to_owned()
    }

    #[test]
    fn a_pattern_masks_its_cells_and_keeps_the_columns() {
        let snap = masked(30, "key: hunter2 日本 ok", &[r"hunter\d|日本"], false);
        // A wide character becomes one `*` in its two cells: "ok" stays in column 18.
        assert_eq!(shown(&snap), "key: ******* ** ok");
        let row = &snap.rows[0];
        assert_eq!((&*row.cells[18].t, row.cells[13].w), ("o", 2));
        let marked: Vec<usize> = (0..20).filter(|&c| row.cells[c].m).collect();
        assert_eq!(marked, [5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16]);
    }

    #[test]
    fn a_secret_the_width_wrapped_is_found_and_a_group_keeps_its_label() {
        let snap = masked(10, "token=abcdefghijklmnop done", &[], true);
        let text = shown(&snap);
        assert!(
            !text.contains("abcdef") && !text.contains("klmnop"),
            "{text}"
        );
        assert!(text.starts_with("token=****"), "{text}");
        assert!(text.contains("done"), "{text}");
    }

    #[test]
    fn auto_finds_common_credentials_and_private_key_blocks() {
        let secrets = [
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
            "glpat-abcdefghij0123456789",
            "xoxb-1234567890-abcdef",
            "sk-proj-abcdefghijklmnopqrstuvwx",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ];
        for secret in secrets {
            let snap = masked(120, &format!("value {secret} end"), &[], true);
            let text = shown(&snap);
            assert!(!text.contains(secret), "{secret} in {text}");
            assert!(text.contains("value") && text.contains("end"), "{text}");
        }
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\r\nb3BlbnNzaC1rZXktdjEAAAA\r\n-----END OPENSSH PRIVATE KEY-----\r\nafter";
        let text = shown(&masked(60, key, &[], true));
        assert!(
            !text.contains("b3BlbnNz") && !text.contains("PRIVATE KEY"),
            "{text}"
        );
        assert!(text.ends_with("after"), "{text}");
        // Nothing that looks like a secret is touched.
        assert_eq!(
            shown(&masked(40, "just words: passing", &[], true)),
            "just words: passing"
        );
    }

    #[test]
    fn titles_and_links_are_masked_too() {
        let snap = masked(
            40,
            "\x1b]2;deploy hunter2\x07\x1b]8;;https://x.example/?t=hunter2\x07link\x1b]8;;\x07",
            &["hunter2"],
            false,
        );
        assert_eq!(snap.title, "deploy *******");
        assert_eq!(snap.links[0].uri, "https://x.example/?t=*******");
        assert!(Mask::new(&["(".into()], false).is_err());
    }
}
