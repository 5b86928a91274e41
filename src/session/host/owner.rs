//! Sessions tied to a client's process (`start`'s `ownerPid`): once that process has ended,
//! however it ended (a test run's Ctrl+C, a crash, SIGKILL), the housekeeper stops them as a
//! `stop` would, so the programs a test run started do not outlive it.

use std::os::fd::OwnedFd;

use rustix::event::{PollFd, PollFlags, poll};
use rustix::io::Errno;
use rustix::process::{Pid, PidfdFlags, pidfd_open};

use crate::pty::timespec;
use crate::session::error::SessionError;

/// A process whose end is watched through a pidfd, which, unlike its pid, never comes to name
/// another process.
pub(super) struct Owner {
    pidfd: OwnedFd,
}

impl Owner {
    /// Watches the process `pid`; an error when there is none.
    pub fn watch(pid: u32) -> Result<Owner, SessionError> {
        let none = || SessionError::invalid_request(format!("ownerPid {pid}: no such process"));
        let pid = i32::try_from(pid)
            .ok()
            .and_then(Pid::from_raw)
            .ok_or_else(none)?;
        match pidfd_open(pid, PidfdFlags::empty()) {
            Ok(pidfd) => Ok(Owner { pidfd }),
            Err(Errno::SRCH) => Err(none()),
            Err(e) => Err(SessionError::io(
                "cannot watch the ownerPid process",
                e.into(),
            )),
        }
    }

    /// Whether the process has ended: its pidfd is readable from then on.
    pub fn has_ended(&self) -> bool {
        let mut fds = [PollFd::new(&self.pidfd, PollFlags::IN)];
        let now = timespec(std::time::Duration::ZERO);
        matches!(poll(&mut fds, Some(&now)), Ok(ready) if ready > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_watched_until_it_ends() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep starts");
        let owner = Owner::watch(child.id()).expect("a live process is watched");
        assert!(!owner.has_ended());
        child.kill().expect("sleep is killed");
        // Ended once it is a zombie, before anyone reaps it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !owner.has_ended() {
            assert!(std::time::Instant::now() < deadline, "never seen ended");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        child.wait().expect("sleep is reaped");
        assert!(owner.has_ended());
        let gone = Owner::watch(child.id());
        assert!(
            gone.is_err_and(|e| e.message.contains("no such process")),
            "a reaped process cannot be watched"
        );
        assert!(Owner::watch(u32::MAX).is_err());
    }
}
