//! `history`'s selection of lines, made as the lines go by: what it holds is bounded by what it
//! returns (`limit`, or `tail`), not by the length of the history it reads.

use std::borrow::Cow;
use std::collections::VecDeque;

use regex::Regex;

use crate::session::protocol::HistoryLine;

/// Which lines a `history` request asks for.
pub(super) struct LineQuery<'a> {
    /// The first global index wanted.
    pub from: u64,
    /// Only lines this matches.
    pub grep: Option<&'a Regex>,
    /// Only the last N of the lines selected so far.
    pub tail: Option<usize>,
    /// Lines returned at most.
    pub limit: usize,
}

/// The lines a query picked: at most its limit, and whether (from where) more matched.
pub(super) struct Picked {
    pub lines: Vec<HistoryLine>,
    pub truncated: bool,
    /// The index of the first line past the limit.
    pub next: Option<u64>,
}

impl LineQuery<'_> {
    /// Picks from `rows` (global index and row, in order), whose text `text` gives; rows
    /// past `last_written` (the blank ones below the last line of text) are not lines. Text
    /// is made only for rows at or after `from`, and reading stops once the reply is full.
    pub fn pick<'r, R>(
        &self,
        rows: impl Iterator<Item = (u64, R)>,
        last_written: Option<u64>,
        text: impl Fn(&R) -> Cow<'r, str>,
    ) -> Picked {
        let Some(last) = last_written else {
            return Picked {
                lines: Vec::new(),
                truncated: false,
                next: None,
            };
        };
        let selected = rows
            .take_while(|(index, _)| *index <= last)
            .filter(|(index, _)| *index >= self.from)
            .map(|(index, row)| (index, text(&row)))
            .filter(|(_, text)| self.grep.is_none_or(|g| g.is_match(text)));
        // One past the limit tells whether the reply is cut, and where the next one starts.
        let kept: VecDeque<(u64, Cow<str>)> = match self.tail {
            None => selected.take(self.limit.saturating_add(1)).collect(),
            Some(n) => {
                let mut last_n = VecDeque::new();
                for line in selected {
                    if last_n.len() == n {
                        last_n.pop_front();
                    }
                    if n > 0 {
                        last_n.push_back(line);
                    }
                }
                last_n
            }
        };
        Picked {
            truncated: kept.len() > self.limit,
            next: kept.get(self.limit).map(|(index, _)| *index),
            lines: kept
                .into_iter()
                .take(self.limit)
                .map(|(index, text)| HistoryLine {
                    index,
                    text: text.into_owned(),
                })
                .collect(),
        }
    }
}

/// The global index of the last line of `lines` (a retained session's history) with text.
pub(super) fn last_written(lines: &[(u64, String)]) -> Option<u64> {
    lines
        .iter()
        .rposition(|(_, text)| !text.is_empty())
        .map(|i| lines[i].0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(texts: &[&str]) -> Vec<(u64, String)> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| (10 + i as u64, (*t).to_owned()))
            .collect()
    }

    fn pick(query: &LineQuery<'_>, lines: &[(u64, String)]) -> (Vec<u64>, bool, Option<u64>) {
        let picked = query.pick(
            lines.iter().map(|(i, t)| (*i, t.as_str())),
            last_written(lines),
            |t| Cow::Borrowed(*t),
        );
        (
            picked.lines.iter().map(|l| l.index).collect(),
            picked.truncated,
            picked.next,
        )
    }

    #[test]
    fn trailing_blank_rows_are_not_lines_but_inner_ones_are() {
        let rows = lines(&["a", "", "b", "", ""]);
        let all = LineQuery {
            from: 0,
            grep: None,
            tail: None,
            limit: 100,
        };
        assert_eq!(pick(&all, &rows), (vec![10, 11, 12], false, None));
        assert_eq!(pick(&all, &lines(&["", ""])), (vec![], false, None));
    }

    #[test]
    fn limit_from_grep_and_tail_compose() {
        let rows = lines(&["x1", "y", "x2", "x3", "y", "x4"]);
        let x = Regex::new("x").expect("regex");
        let query = |from, tail, limit| LineQuery {
            from,
            grep: Some(&x),
            tail,
            limit,
        };
        assert_eq!(
            pick(&query(0, None, 2), &rows),
            (vec![10, 12], true, Some(13))
        );
        assert_eq!(
            pick(&query(13, None, 10), &rows),
            (vec![13, 15], false, None)
        );
        assert_eq!(
            pick(&query(0, Some(2), 10), &rows),
            (vec![13, 15], false, None)
        );
        assert_eq!(
            pick(&query(0, Some(3), 2), &rows),
            (vec![12, 13], true, Some(15))
        );
        assert_eq!(pick(&query(0, Some(0), 2), &rows), (vec![], false, None));
    }
}
