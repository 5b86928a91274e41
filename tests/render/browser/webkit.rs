//! Just enough W3C WebDriver to take screenshots in WebKit, Safari's engine, from a test.
//!
//! Safari itself runs only on Apple's systems; WebKitGTK shares its WebCore (the SVG, CSS and
//! animation code that decides what an animated SVG shows) and is packaged for Debian with a
//! WebDriver server (`webkit2gtk-driver`: `WebKitWebDriver` and the `MiniBrowser` it drives).
//! MiniBrowser needs an X display, so the harness starts its own `Xvfb` (24-bit: at the
//! default depth screenshots come back black), then the driver on a free loopback port, and
//! talks HTTP/1.1 to it with one request per connection. Everything is killed on drop.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::support::needs;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

/// Longest any single request (a page load, a script, a screenshot) may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The WebDriver server and the browser it drives; `None` when they or Xvfb are missing (the
/// test is then skipped, outside CI).
pub fn find() -> Option<(PathBuf, PathBuf)> {
    let driver = needs::program("WebKitWebDriver")?;
    needs::program("Xvfb")?;
    // Debian puts MiniBrowser, which the driver package brings, in the multiarch library
    // directory.
    let browser = std::fs::read_dir("/usr/lib")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("webkit2gtk-4.1/MiniBrowser"))
        .find(|p| p.is_file());
    let browser = browser.unwrap_or_else(|| {
        panic!("WebKitWebDriver is installed, but not the MiniBrowser of webkit2gtk-4.1 it drives")
    });
    Some((driver, browser))
}

/// A running display, driver and browser session.
pub struct WebKit {
    xvfb: Child,
    driver: Child,
    port: u16,
    session: String,
}

impl WebKit {
    /// Starts Xvfb, the driver and a browser session.
    pub fn launch(driver: &Path, browser: &Path) -> WebKit {
        let mut xvfb = Command::new("Xvfb")
            .args(["-displayfd", "1", "-nolisten", "tcp", "-screen", "0"])
            .arg("1920x1200x24")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        // Xvfb writes the display number it took once it accepts clients.
        let mut display = String::new();
        let stdout = xvfb.stdout.take().expect("Xvfb's stdout");
        BufReader::new(stdout)
            .read_line(&mut display)
            .expect("Xvfb's display number");
        let display = format!(":{}", display.trim());
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new(driver)
            .arg(format!("--port={port}"))
            .env("DISPLAY", &display)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("WebKitWebDriver starts");
        let mut webkit = WebKit {
            xvfb,
            driver,
            port,
            session: String::new(),
        };
        let deadline = Instant::now() + REQUEST_TIMEOUT;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "WebKitWebDriver never listened");
            std::thread::sleep(Duration::from_millis(50));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {"webkitgtk:browserOptions": {
            "binary": browser, "args": ["--automation"]
        }}}});
        let reply = webkit.request("POST", "/session", Some(caps));
        webkit.session = reply["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {reply}"))
            .to_owned();
        webkit
    }

    /// One WebDriver command; its `value`.
    fn request(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.send(method, path, body)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }

    /// One WebDriver command, without panicking (for [`Drop`]).
    fn send(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut stream =
            TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| format!("connect: {e}"))?;
        stream
            .set_read_timeout(Some(REQUEST_TIMEOUT))
            .map_err(|e| e.to_string())?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        )
        .map_err(|e| format!("send: {e}"))?;
        let mut reply = Vec::new();
        stream
            .read_to_end(&mut reply)
            .map_err(|e| format!("no reply: {e}"))?;
        let reply = String::from_utf8_lossy(&reply);
        let (head, json) = reply
            .split_once("\r\n\r\n")
            .ok_or_else(|| format!("not HTTP: {reply}"))?;
        let value: Value =
            serde_json::from_str(json).map_err(|e| format!("{e}: {head}\n{json}"))?;
        if !head.starts_with("HTTP/1.1 200") {
            return Err(format!("{head}\n{value}"));
        }
        Ok(value["value"].clone())
    }

    /// A screenshot of `url`'s top-left `width` × `height` pixels, as PNG bytes, once the
    /// page has loaded and painted twice.
    pub fn screenshot(&mut self, url: &str, width: u32, height: u32) -> Vec<u8> {
        let session = format!("/session/{}", self.session);
        // The window is larger than the page: its viewport is what the screenshot holds.
        let rect = json!({"width": width + 100, "height": height + 200});
        self.request("POST", &format!("{session}/window/rect"), Some(rect));
        self.request("POST", &format!("{session}/url"), Some(json!({"url": url})));
        let painted = "const done = arguments[0]; \
                       requestAnimationFrame(() => requestAnimationFrame(() => done(innerWidth)));";
        let viewport = self.request(
            "POST",
            &format!("{session}/execute/async"),
            Some(json!({"script": painted, "args": []})),
        );
        assert!(
            viewport.as_u64().is_some_and(|w| w >= u64::from(width)),
            "the viewport ({viewport}) is narrower than the page ({width})"
        );
        let shot = self.request("GET", &format!("{session}/screenshot"), None);
        base64::engine::general_purpose::STANDARD
            .decode(shot.as_str().expect("screenshot data"))
            .expect("screenshot base64")
    }
}

impl Drop for WebKit {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            // Best effort: the browser also goes when its display does.
            let _ = self.send("DELETE", &format!("/session/{}", self.session), None);
        }
        for child in [&mut self.driver, &mut self.xvfb] {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
