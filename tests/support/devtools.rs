//! Just enough of the Chrome DevTools Protocol to drive headless Chromium from a test.
//!
//! Chromium is started with `--remote-debugging-pipe`: it reads commands from fd 3 and writes
//! replies and events to fd 4, each message one JSON object ended by a NUL byte. A reader
//! thread turns fd 4 into a channel, so every wait here has a deadline and a hung browser
//! fails the test with its own stderr instead of hanging it.
//!
//! Pages are separate targets attached in flat mode: a command for a page carries the
//! target's `sessionId`, and so does everything the page sends back.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Longest any single command (a page load, a script, a screenshot) may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// A headless Chromium and the pipe to it; the browser is killed when this is dropped.
pub struct Browser {
    child: Child,
    commands: File,
    messages: Receiver<Value>,
    /// Events that arrived while waiting for something else, oldest first.
    events: VecDeque<Value>,
    next_id: u64,
    stderr: std::path::PathBuf,
    _profile: tempfile::TempDir,
}

/// An open page (a tab) of a [`Browser`].
pub struct Page<'a> {
    browser: &'a mut Browser,
    target: Value,
    session: String,
}

/// A pipe whose two ends are close-on-exec and numbered 10 or above, so that moving them to
/// fds 3 and 4 in the child can never overwrite one with the other.
fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(rc, 0, "pipe2: {}", std::io::Error::last_os_error());
    let high = |fd: i32| {
        // SAFETY: `fd` is open (pipe2 succeeded) and owned here; it is closed once copied.
        unsafe {
            let copy = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10);
            assert!(copy >= 10, "F_DUPFD: {}", std::io::Error::last_os_error());
            libc::close(fd);
            OwnedFd::from_raw_fd(copy)
        }
    };
    (high(fds[0]), high(fds[1]))
}

impl Browser {
    /// Starts `chromium` headless with a fresh profile and `extra` flags.
    pub fn launch(chromium: &Path, extra: &[&str]) -> Browser {
        Browser::launch_with_env(chromium, extra, &[])
    }

    /// [`Browser::launch`] with environment variables set for the browser (a fontconfig file of
    /// its own, say).
    pub fn launch_with_env(chromium: &Path, extra: &[&str], env: &[(&str, &Path)]) -> Browser {
        let profile = tempfile::tempdir().expect("profile dir");
        let stderr = profile.path().join("chromium.stderr");
        let (their_commands, commands) = pipe();
        let (messages_out, their_messages) = pipe();
        let (read_fd, write_fd) = (their_commands.as_raw_fd(), their_messages.as_raw_fd());
        let mut command = Command::new(chromium);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                "--force-device-scale-factor=1",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra)
            .envs(env.iter().copied())
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(File::create(&stderr).expect("stderr file"));
        // SAFETY: only dup2 runs between fork and exec; it is async-signal-safe. The
        // descriptors are open in the parent until spawn returns. dup2 clears FD_CLOEXEC on
        // the copies, so fds 3 and 4 survive the exec while the originals do not.
        unsafe {
            command.pre_exec(move || {
                if libc::dup2(read_fd, 3) < 0 || libc::dup2(write_fd, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromium.display()));
        drop((their_commands, their_messages));
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(File::from(messages_out));
            loop {
                let mut message = Vec::new();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                message.pop_if(|b| *b == 0);
                let Ok(value) = serde_json::from_slice::<Value>(&message) else {
                    continue;
                };
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        Browser {
            child,
            commands: File::from(commands),
            messages,
            events: VecDeque::new(),
            next_id: 0,
            stderr,
            _profile: profile,
        }
    }

    /// The end of the browser's stderr, for failure messages.
    fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(20).collect();
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    }

    fn next_message(&mut self, deadline: Instant, waiting_for: &str) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.messages.recv_timeout(left) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => panic!(
                "chromium did not answer {waiting_for} within {COMMAND_TIMEOUT:?}; stderr ends \
                 with:\n{}",
                self.stderr_tail()
            ),
            Err(RecvTimeoutError::Disconnected) => panic!(
                "chromium closed the DevTools pipe while {waiting_for} was pending; stderr ends \
                 with:\n{}",
                self.stderr_tail()
            ),
        }
    }

    /// Sends a command (to the browser, or to a page's session) and returns its `result`.
    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).expect("command JSON");
        bytes.push(0);
        if let Err(e) = self.commands.write_all(&bytes) {
            panic!(
                "cannot send {method} to chromium ({e}); stderr ends with:\n{}",
                self.stderr_tail()
            );
        }
        let deadline = Instant::now() + COMMAND_TIMEOUT;
        loop {
            let message = self.next_message(deadline, method);
            if message["id"] == id {
                if let Some(error) = message.get("error") {
                    panic!("{method} failed: {error}");
                }
                return message["result"].clone();
            }
            if message.get("method").is_some() {
                self.events.push_back(message);
            }
        }
    }

    /// Waits for an event of `session` called `method`, including one that came earlier.
    fn event(&mut self, session: &str, method: &str) -> Value {
        let matches = |m: &Value| m["method"] == method && m["sessionId"] == session;
        if let Some(i) = self.events.iter().position(matches) {
            return self.events.remove(i).expect("the event just found");
        }
        let deadline = Instant::now() + COMMAND_TIMEOUT;
        loop {
            let message = self.next_message(deadline, method);
            if matches(&message) {
                return message;
            }
            if message.get("method").is_some() {
                self.events.push_back(message);
            }
        }
    }

    /// Opens `url` in a new page of `width`×`height` CSS pixels (scale 1) and waits for its
    /// `load` event.
    pub fn open(&mut self, url: &str, width: u32, height: u32) -> Page<'_> {
        self.open_with_scheme(url, width, height, None)
    }

    /// [`Browser::open`] with the page's `prefers-color-scheme` media feature emulated as
    /// `scheme` (`"dark"` or `"light"`; `None` leaves the browser's own). It is set
    /// (`Emulation.setEmulatedMedia`) before the page is navigated, so the page never paints
    /// in the other scheme.
    pub fn open_with_scheme(
        &mut self,
        url: &str,
        width: u32,
        height: u32,
        scheme: Option<&str>,
    ) -> Page<'_> {
        let target = self.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let target_id = target["targetId"].clone();
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
        );
        let session = attached["sessionId"]
            .as_str()
            .expect("attachToTarget gives a sessionId")
            .to_owned();
        let s = Some(session.as_str());
        self.call(s, "Page.enable", json!({}));
        self.call(
            s,
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        if let Some(scheme) = scheme {
            self.call(
                s,
                "Emulation.setEmulatedMedia",
                json!({ "features": [{ "name": "prefers-color-scheme", "value": scheme }] }),
            );
        }
        self.call(s, "Page.navigate", json!({ "url": url }));
        self.event(&session, "Page.loadEventFired");
        Page {
            browser: self,
            target: target_id,
            session,
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Page<'_> {
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.browser.call(Some(&self.session), method, params)
    }

    /// Evaluates `expression` in the page, awaiting it if it is a promise, and returns its
    /// value as JSON. A thrown exception fails the test with the page's message.
    pub fn evaluate(&mut self, expression: &str) -> Value {
        let reply = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
        );
        if let Some(exception) = reply.get("exceptionDetails") {
            panic!("the page script threw: {exception}");
        }
        reply["result"]["value"].clone()
    }

    /// The platform fonts that drew the text of every element matching `selector`, in
    /// document order: one list of `{familyName, postScriptName, isCustomFont, glyphCount}`
    /// per element (`CSS.getPlatformFontsForNode`).
    pub fn platform_fonts(&mut self, selector: &str) -> Vec<Vec<Value>> {
        self.call("DOM.enable", json!({}));
        self.call("CSS.enable", json!({}));
        let root = self.call("DOM.getDocument", json!({ "depth": 0 }));
        let nodes = self.call(
            "DOM.querySelectorAll",
            json!({ "nodeId": root["root"]["nodeId"], "selector": selector }),
        );
        let ids = nodes["nodeIds"].as_array().cloned().unwrap_or_default();
        ids.into_iter()
            .map(|id| {
                let fonts = self.call("CSS.getPlatformFontsForNode", json!({ "nodeId": id }));
                fonts["fonts"].as_array().cloned().unwrap_or_default()
            })
            .collect()
    }

    /// Presses `key` as a keyboard would (`Input.dispatchKeyEvent`): a DOM key name
    /// (`"Enter"`, `"ArrowUp"`) or one character, which it also types.
    pub fn press(&mut self, key: &str) {
        let text = match key {
            "Enter" => "\r",
            _ if key.chars().count() == 1 => key,
            _ => "",
        };
        self.call(
            "Input.dispatchKeyEvent",
            json!({ "type": "keyDown", "key": key, "text": text }),
        );
        self.call(
            "Input.dispatchKeyEvent",
            json!({ "type": "keyUp", "key": key }),
        );
    }

    /// A PNG of the top-left `width`×`height` CSS pixels of the page.
    pub fn screenshot(&mut self, width: u32, height: u32) -> Vec<u8> {
        use base64::Engine;
        let shot = self.call(
            "Page.captureScreenshot",
            json!({
                "format": "png",
                "clip": { "x": 0, "y": 0, "width": width, "height": height, "scale": 1 },
                "captureBeyondViewport": true,
            }),
        );
        let data = shot["data"].as_str().expect("screenshot data");
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .expect("screenshot base64")
    }
}

impl Drop for Page<'_> {
    /// Closes the tab, so a browser used for many pages does not keep them all.
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let target = self.target.clone();
        self.browser
            .call(None, "Target.closeTarget", json!({ "targetId": target }));
    }
}
