//! How a child ended.

use std::fmt;

use rustix::process::Signal;

/// How the child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitStatus {
    pub(super) code: Option<i32>,
    pub(super) signal: Option<i32>,
}

impl ExitStatus {
    /// The exit code, when the program exited by itself.
    pub fn code(&self) -> Option<i32> {
        self.code
    }

    /// The signal number, when a signal killed it.
    pub fn signal(&self) -> Option<i32> {
        self.signal
    }

    /// The signal's name (`"SIGTERM"`), when a signal killed it.
    pub fn signal_name(&self) -> Option<String> {
        self.signal.map(signal_name)
    }

    /// Exit code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// The status of a process that was reaped by someone else (e.g. `SIGCHLD` ignored).
    pub(crate) fn unknown() -> ExitStatus {
        ExitStatus {
            code: None,
            signal: None,
        }
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal) {
            (Some(code), _) => write!(f, "exit code {code}"),
            (None, Some(sig)) => write!(f, "killed by {}", signal_name(sig)),
            (None, None) => f.write_str("unknown exit status"),
        }
    }
}

/// `"SIGTERM"` for 15, `"SIG42"` for signals without a portable name.
pub fn signal_name(sig: i32) -> String {
    const NAMES: [(Signal, &str); 28] = [
        (Signal::HUP, "SIGHUP"),
        (Signal::INT, "SIGINT"),
        (Signal::QUIT, "SIGQUIT"),
        (Signal::ILL, "SIGILL"),
        (Signal::TRAP, "SIGTRAP"),
        (Signal::ABORT, "SIGABRT"),
        (Signal::BUS, "SIGBUS"),
        (Signal::FPE, "SIGFPE"),
        (Signal::KILL, "SIGKILL"),
        (Signal::USR1, "SIGUSR1"),
        (Signal::SEGV, "SIGSEGV"),
        (Signal::USR2, "SIGUSR2"),
        (Signal::PIPE, "SIGPIPE"),
        (Signal::ALARM, "SIGALRM"),
        (Signal::TERM, "SIGTERM"),
        (Signal::CHILD, "SIGCHLD"),
        (Signal::CONT, "SIGCONT"),
        (Signal::STOP, "SIGSTOP"),
        (Signal::TSTP, "SIGTSTP"),
        (Signal::TTIN, "SIGTTIN"),
        (Signal::TTOU, "SIGTTOU"),
        (Signal::URG, "SIGURG"),
        (Signal::XCPU, "SIGXCPU"),
        (Signal::XFSZ, "SIGXFSZ"),
        (Signal::VTALARM, "SIGVTALRM"),
        (Signal::PROF, "SIGPROF"),
        (Signal::WINCH, "SIGWINCH"),
        (Signal::SYS, "SIGSYS"),
    ];
    NAMES
        .iter()
        .find(|(s, _)| s.as_raw() == sig)
        .map_or_else(|| format!("SIG{sig}"), |(_, name)| (*name).to_string())
}
