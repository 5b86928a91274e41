//! Output as plain text: what a program wrote, its escape sequences taken out — for logs of
//! dev servers and builds (`session output`), where the bytes matter more than the screen.

/// Keeps printed characters, line feeds and tabs; drops escape sequences (CSI, OSC, DCS …),
/// other control characters and carriage returns (a `\r\n` line end becomes `\n`; a lone
/// `\r`, a progress bar redrawing its line, joins the redraws). Malformed UTF-8 becomes U+FFFD.
/// A sequence cut at the start of `bytes` (a slice that begins inside one) leaves its tail as
/// text: callers slicing a stream should start at a boundary they know.
///
/// ```
/// assert_eq!(shotty::term::plain_text(b"\x1b[1;32mok\x1b[m\r\n\x1b]0;title\x07done\t!"), "ok\ndone\t!");
/// ```
pub fn plain_text(bytes: &[u8]) -> String {
    struct Collect(String);
    impl vte::Perform for Collect {
        fn print(&mut self, c: char) {
            self.0.push(c);
        }
        fn execute(&mut self, byte: u8) {
            if matches!(byte, b'\n' | b'\t') {
                self.0.push(byte as char);
            }
        }
    }
    let mut parser = vte::Parser::new();
    let mut out = Collect(String::with_capacity(bytes.len()));
    parser.advance(&mut out, bytes);
    out.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_and_controls_go_text_stays() {
        assert_eq!(plain_text("é\x1b[2J日本\x08\x07x".as_bytes()), "é日本x");
        assert_eq!(plain_text(b"a\x1bP1$r0m\x1b\\b"), "ab");
        assert_eq!(plain_text(b"50%\r75%\r100%\r\n"), "50%75%100%\n");
        assert_eq!(plain_text(b"bad \xff byte"), "bad \u{fffd} byte");
    }
}
