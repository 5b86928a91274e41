//! The user's terminal: its size, and raw mode for as long as a guard lives.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::termios::{OptionalActions, Termios, tcgetattr, tcgetwinsize, tcsetattr};

/// The size of the terminal `fd` is, as (columns, rows); `None` when it is not a terminal or
/// reports no size (some serial consoles say 0×0).
pub fn terminal_size(fd: BorrowedFd<'_>) -> Option<(u16, u16)> {
    let size = tcgetwinsize(fd).ok()?;
    (size.ws_col > 0 && size.ws_row > 0).then_some((size.ws_col, size.ws_row))
}

/// A terminal in raw mode: keys reach the reader byte by byte, unechoed, with no signals
/// from Ctrl+C or Ctrl+Z and no output processing. Dropping the guard puts the modes back
/// as they were, on every way out — a return, an error, a panic that unwinds.
#[derive(Debug)]
pub struct RawMode {
    /// Its own descriptor of the terminal, so the guard does not depend on the caller's
    /// staying open.
    fd: OwnedFd,
    saved: Termios,
    restored: bool,
}

impl RawMode {
    /// Puts the terminal `fd` into raw mode.
    pub fn enter(fd: BorrowedFd<'_>) -> io::Result<RawMode> {
        let saved = tcgetattr(fd)?;
        let fd = fd.try_clone_to_owned()?;
        let mut raw = saved.clone();
        raw.make_raw();
        // `Now`, not `Flush`: keys typed before the recording began still reach the program.
        tcsetattr(&fd, OptionalActions::Now, &raw)?;
        Ok(RawMode {
            fd,
            saved,
            restored: false,
        })
    }

    /// Puts the saved modes back now (dropping the guard does it too).
    pub fn restore(&mut self) -> io::Result<()> {
        if self.restored {
            return Ok(());
        }
        tcsetattr(self.fd.as_fd(), OptionalActions::Now, &self.saved)?;
        self.restored = true;
        Ok(())
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        // Nothing better to do with a failure here: the terminal may be gone already.
        let _ = self.restore();
    }
}
