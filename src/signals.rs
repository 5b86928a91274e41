//! The signals that end a shotty process — SIGINT (Ctrl+C), SIGTERM, SIGHUP — and the two ways
//! a process can take them over instead of dying at once.

use std::io;
use std::os::unix::net::UnixStream;

/// The terminating signals every front end handles the same way.
pub const TERMINATING: [i32; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];

/// Runs `on_signal` on its own thread when the first terminating signal arrives (for long-lived
/// processes that clean up and exit: the session host, `shotty serve`).
pub fn on_termination(on_signal: impl FnOnce() + Send + 'static) -> io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new(TERMINATING)?;
    std::thread::Builder::new()
        .name("shotty-signals".into())
        .spawn(move || {
            if signals.forever().next().is_some() {
                on_signal();
            }
        })?;
    Ok(())
}

/// A socket that becomes readable once a terminating signal has arrived, for a process that
/// waits in `poll` anyway (a CLI client waiting for a reply): no thread needed.
pub fn termination_pipe() -> io::Result<UnixStream> {
    let (read_end, write_end) = UnixStream::pair()?;
    for signal in TERMINATING {
        signal_hook::low_level::pipe::register(signal, write_end.try_clone()?)?;
    }
    Ok(read_end)
}
