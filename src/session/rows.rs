//! Selecting rows of the screen text: all of it, the first or last N rows, or a range. Shared
//! by the host's `read` (0-based `--start/--end`) and the endpoint's `pty/read` (1-based
//! `start/end`), which differ only in how they count rows and word their errors.

/// Which rows to return. Built by [`Rows::parse`]; [`Rows::select`] clamps to the rows there
/// are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rows {
    /// Every row.
    #[default]
    All,
    /// The first N rows.
    Top(usize),
    /// The last N rows.
    Bottom(usize),
    /// Rows `first..end` (0-based, end exclusive).
    Range {
        /// First row, 0-based.
        first: usize,
        /// One past the last row.
        end: usize,
    },
}

/// Why a selection was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowsError {
    /// More than one of top, bottom and start/end.
    Several,
    /// `start` without `end` or the other way round.
    Unpaired,
    /// `start` after `end`.
    Reversed,
}

impl Rows {
    /// A selection from the optional selectors: `top`, `bottom`, or the inclusive range
    /// `start..=end` counted from `base` (0 or 1). A row number below `base` counts as the
    /// first row; numbers past the screen are clamped by [`select`](Self::select).
    pub fn parse(
        top: Option<usize>,
        bottom: Option<usize>,
        start: Option<usize>,
        end: Option<usize>,
        base: usize,
    ) -> Result<Rows, RowsError> {
        let groups = [
            top.is_some(),
            bottom.is_some(),
            start.is_some() || end.is_some(),
        ];
        if groups.iter().filter(|g| **g).count() > 1 {
            return Err(RowsError::Several);
        }
        match (top, bottom, start, end) {
            (Some(n), ..) => Ok(Rows::Top(n)),
            (_, Some(n), ..) => Ok(Rows::Bottom(n)),
            (_, _, Some(a), Some(b)) if a > b => Err(RowsError::Reversed),
            (_, _, Some(a), Some(b)) => Ok(Rows::Range {
                first: a.saturating_sub(base),
                end: b.saturating_add(1).saturating_sub(base),
            }),
            (_, _, Some(_), None) | (_, _, None, Some(_)) => Err(RowsError::Unpaired),
            _ => Ok(Rows::All),
        }
    }

    /// The selected rows of `text` (rows joined by `\n`), joined by `\n` again.
    pub fn select(self, text: &str) -> String {
        if self == Rows::All {
            return text.to_owned();
        }
        let rows: Vec<&str> = text.split('\n').collect();
        let h = rows.len();
        let range = match self {
            Rows::All => 0..h,
            Rows::Top(n) => 0..n.min(h),
            Rows::Bottom(n) => h.saturating_sub(n)..h,
            Rows::Range { first, end } => first.min(h)..end.min(h),
        };
        rows[range].join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCREEN: &str = "one\ntwo\nthree\nfour\n";

    #[test]
    fn selections() {
        let pick = |top, bottom, start, end, base| {
            Rows::parse(top, bottom, start, end, base).map(|r| r.select(SCREEN))
        };
        assert_eq!(pick(None, None, None, None, 1).unwrap(), SCREEN);
        assert_eq!(pick(Some(2), None, None, None, 1).unwrap(), "one\ntwo");
        assert_eq!(pick(Some(99), None, None, None, 1).unwrap(), SCREEN);
        assert_eq!(pick(None, Some(2), None, None, 1).unwrap(), "four\n");
        assert_eq!(pick(None, None, Some(2), Some(3), 1).unwrap(), "two\nthree");
        assert_eq!(
            pick(None, None, Some(2), Some(3), 0).unwrap(),
            "three\nfour"
        );
        assert_eq!(pick(None, None, Some(0), Some(1), 1).unwrap(), "one");
        assert_eq!(pick(None, None, Some(0), Some(0), 1).unwrap(), "");
        assert_eq!(pick(None, None, Some(4), Some(99), 1).unwrap(), "four\n");
        assert_eq!(pick(None, None, Some(50), Some(99), 1).unwrap(), "");
        assert_eq!(pick(Some(0), None, None, None, 1).unwrap(), "");
    }

    #[test]
    fn refusals() {
        assert_eq!(
            Rows::parse(Some(1), Some(1), None, None, 1),
            Err(RowsError::Several)
        );
        assert_eq!(
            Rows::parse(Some(1), None, Some(1), Some(2), 1),
            Err(RowsError::Several)
        );
        assert_eq!(
            Rows::parse(None, None, Some(1), None, 1),
            Err(RowsError::Unpaired)
        );
        assert_eq!(
            Rows::parse(None, None, None, Some(1), 0),
            Err(RowsError::Unpaired)
        );
        assert_eq!(
            Rows::parse(None, None, Some(3), Some(2), 1),
            Err(RowsError::Reversed)
        );
    }
}
