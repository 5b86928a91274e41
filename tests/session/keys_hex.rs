//! The key table against a real program: a Python script in a PTY, in raw mode, prints the
//! hex of every chunk of input it reads. Its output also drives a [`Terminal`], and the keys
//! are encoded in the modes that terminal tracks, so switching DECCKM/DECKPAM from inside the
//! program really changes what is sent. Expected bytes are written out from xterm's ctlseqs.
//! Every wait is bounded.

use std::time::{Duration, Instant};

use shotty::pty::{PtyCommand, PtyEvent, PtyProcess};
use shotty::term::Terminal;
use shotty::term::keys::{KeyModes, encode_keys, paste_bytes};

/// How long any single reply may take (Python start-up included).
const STEP: Duration = Duration::from_secs(15);

/// Reads input in raw mode; a chunk (bytes arriving within 50 ms of each other) is answered
/// with `HEX:<hex>`; a few commands switch modes the way applications do.
const ECHO_HEX: &str = r#"
import os, select, tty
tty.setraw(0)
commands = {
    b"!ckm1": b"\x1b[?1h", b"!ckm0": b"\x1b[?1l",
    b"!kp1": b"\x1b=", b"!kp0": b"\x1b>",
}
os.write(1, b"READY\r\n")
while True:
    data = os.read(0, 1024)
    if not data:
        break
    while select.select([0], [], [], 0.05)[0]:
        more = os.read(0, 1024)
        if not more:
            break
        data += more
    if data == b"!quit":
        os.write(1, b"BYE\r\n")
        break
    if data in commands:
        os.write(1, commands[data] + b"OK " + data[1:] + b"\r\n")
    else:
        os.write(1, b"HEX:" + data.hex().encode() + b"\r\n")
"#;

struct Echo {
    process: PtyProcess,
    term: Terminal,
    /// Output not yet consumed as lines.
    pending: Vec<u8>,
    /// Everything the program printed, for failure messages.
    transcript: Vec<u8>,
}

impl Echo {
    fn spawn() -> Echo {
        let mut cmd = PtyCommand::new("python3");
        cmd.arg("-c").arg(ECHO_HEX).size(80, 24);
        let process = PtyProcess::spawn(&cmd).expect("python3 is needed for this test");
        let mut echo = Echo {
            process,
            term: Terminal::new(80, 24),
            pending: Vec::new(),
            transcript: Vec::new(),
        };
        echo.line_containing("READY");
        echo
    }

    /// The key modes the emulator has seen the program set.
    fn modes(&self) -> KeyModes {
        KeyModes::from(self.term.screen().modes())
    }

    /// Waits for the next output line containing `needle` and returns it (without CR LF);
    /// earlier lines are skipped.
    #[track_caller]
    fn line_containing(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + STEP;
        loop {
            while let Some(end) = self.pending.windows(2).position(|w| w == b"\r\n") {
                let line: Vec<u8> = self.pending.drain(..end + 2).take(end).collect();
                let line = String::from_utf8_lossy(&line).into_owned();
                if line.contains(needle) {
                    return line;
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let event = self.process.events().recv_timeout(left);
            match event {
                Ok(PtyEvent::Output(bytes)) => {
                    self.term.advance(&bytes);
                    self.term.take_replies();
                    self.pending.extend_from_slice(&bytes);
                    self.transcript.extend_from_slice(&bytes);
                }
                other => panic!(
                    "waiting for {needle:?}: {other:?}; output so far: {:?}",
                    String::from_utf8_lossy(&self.transcript)
                ),
            }
        }
    }

    /// Sends raw bytes and returns the hex the program read.
    #[track_caller]
    fn send(&mut self, bytes: &[u8]) -> String {
        self.process.write(bytes).expect("write");
        let line = self.line_containing("HEX:");
        line[line.find("HEX:").unwrap() + 4..].to_string()
    }

    /// Encodes `key` in the current modes, sends it and checks what arrived.
    #[track_caller]
    fn key(&mut self, key: &str, expected_hex: &str) {
        let bytes = encode_keys(key, self.modes()).unwrap_or_else(|e| panic!("{e}"));
        let got = self.send(&bytes);
        assert_eq!(got, expected_hex, "{key} in {:?}", self.modes());
    }

    /// Has the program switch a mode and waits until the emulator has seen it.
    #[track_caller]
    fn command(&mut self, command: &str) {
        self.process.write(command.as_bytes()).expect("write");
        self.line_containing(&format!("OK {}", &command[1..]));
    }

    fn quit(mut self) {
        self.process.write(b"!quit").expect("write");
        self.line_containing("BYE");
        let status = self.process.wait_timeout(STEP).expect("the script exits");
        assert!(status.success(), "{status}");
    }
}

#[test]
fn keys_arrive_as_xterm_sends_them() {
    let mut echo = Echo::spawn();
    assert_eq!(echo.modes(), KeyModes::default());

    // Normal cursor and numeric keypad modes.
    echo.key("Up", "1b5b41");
    echo.key("ArrowDown", "1b5b42");
    echo.key("Right", "1b5b43");
    echo.key("Left", "1b5b44");
    echo.key("Home", "1b5b48");
    echo.key("End", "1b5b46");
    echo.key("Shift+Up", "1b5b313b3241");
    echo.key("Ctrl+Alt+Left", "1b5b313b3744");
    echo.key("Meta+Home", "1b5b313b3948");
    echo.key("F1", "1b4f50");
    echo.key("F4", "1b4f53");
    echo.key("Shift+F1", "1b5b313b3250");
    echo.key("F5", "1b5b31357e");
    echo.key("F12", "1b5b32347e");
    echo.key("Ctrl+F5", "1b5b31353b357e");
    echo.key("Delete", "1b5b337e");
    echo.key("Ctrl+PageDown", "1b5b363b357e");
    // Raw mode: no signal, no CR translation, NUL passes.
    echo.key("Ctrl+C", "03");
    echo.key("ctrl+z", "1a");
    echo.key("Ctrl+Space", "00");
    echo.key("Enter", "0d");
    echo.key("Tab", "09");
    echo.key("Shift+Tab", "1b5b5a");
    echo.key("Backspace", "7f");
    echo.key("Escape", "1b");
    echo.key("Alt+x", "1b78");
    echo.key("Ctrl+Alt+a", "1b01");
    echo.key("é", "c3a9");
    echo.key("KP5", "35");
    echo.key("KPEnter", "0d");

    // The program turns on application cursor keys (DECCKM).
    echo.command("!ckm1");
    assert!(echo.modes().cursor_keys_application);
    echo.key("Up", "1b4f41");
    echo.key("Down", "1b4f42");
    echo.key("Right", "1b4f43");
    echo.key("Left", "1b4f44");
    echo.key("Home", "1b4f48");
    echo.key("End", "1b4f46");
    echo.key("Shift+Up", "1b5b313b3241");
    echo.key("F1", "1b4f50");
    echo.key("KP5", "35");

    echo.command("!ckm0");
    assert!(!echo.modes().cursor_keys_application);
    echo.key("Up", "1b5b41");

    // Application keypad (DECKPAM).
    echo.command("!kp1");
    assert!(echo.modes().keypad_application);
    echo.key("KP0", "1b4f70");
    echo.key("KP9", "1b4f79");
    echo.key("KPEnter", "1b4f4d");
    echo.key("KPDivide", "1b4f6f");
    echo.key("KPSeparator", "1b4f6c");
    echo.key("Up", "1b5b41");

    echo.command("!kp0");
    assert!(!echo.modes().keypad_application);
    echo.key("KP0", "30");
    echo.key("KPAdd", "2b");

    // A bracketed paste with an embedded end marker arrives with the marker removed.
    let got = echo.send(&paste_bytes("a\x1b[201~b\n", true));
    assert_eq!(got, "1b5b3230307e61620d1b5b3230317e");

    echo.quit();
}

/// Every name of the key table, alone and with Ctrl and Alt, in normal and in application
/// cursor/keypad modes, reaches the program byte for byte as encoded (the encodings
/// themselves are checked against ctlseqs in the unit tests of `term::keys`).
#[test]
fn the_whole_key_table_arrives_intact_in_both_modes() {
    let mut echo = Echo::spawn();
    let mut checked = 0;
    for (ckm, kp) in [("!ckm0", "!kp0"), ("!ckm1", "!kp1")] {
        echo.command(ckm);
        echo.command(kp);
        for name in shotty::term::keys::key_names() {
            for combo in [
                name.to_string(),
                format!("Ctrl+{name}"),
                format!("Alt+{name}"),
            ] {
                // Some modifier combinations have no encoding (rejected as unsupported_key).
                let Ok(bytes) = encode_keys(&combo, echo.modes()) else {
                    assert_ne!(&combo, name, "plain key {name} must encode");
                    continue;
                };
                let got = echo.send(&bytes);
                let expected: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                assert_eq!(got, expected, "{combo} in {:?}", echo.modes());
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "only {checked} combinations checked");
    echo.quit();
}
