//! The tape language's tokens, as VHS reads them: keywords and bare words, numbers, strings
//! in `"…"`, `'…'` or `` `…` `` (one line each), `/regex/` (a delimiter escaped by an odd
//! run of backslashes), `{…}` (inline JSON, up to the first `}`), punctuation, and `#`
//! comments to the end of the line.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A word VHS reserves (`Type`, `Set`, `Enter`, `FontSize`, `ms`, `true` …): its text
    /// is the word.
    Keyword,
    /// A bare word that is no keyword, or a quoted string (its text without the quotes).
    String,
    /// Digits and dots.
    Number,
    /// The body of `/…/`.
    Regex,
    /// `{…}` whole.
    Json,
    /// One of `@ = + - % ^ [ ] \`.
    Punct,
    /// A character that starts no token.
    Illegal,
    /// The end of the file.
    Eof,
}

/// A token and where it starts (line and column count from 1; columns in characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Its text (see [`TokenKind`]).
    pub text: String,
    /// Line.
    pub line: u32,
    /// Column.
    pub column: u32,
}

impl Token {
    /// Whether this is the keyword `word`.
    pub fn is_keyword(&self, word: &str) -> bool {
        self.kind == TokenKind::Keyword && self.text == word
    }

    /// Whether this is the punctuation `c`.
    pub fn is_punct(&self, c: char) -> bool {
        self.kind == TokenKind::Punct && self.text.len() == 1 && self.text.starts_with(c)
    }
}

/// Every word VHS reserves: commands, settings, key names, time units and booleans.
pub const KEYWORDS: &[&str] = &[
    "em",
    "px",
    "ms",
    "s",
    "m",
    "Set",
    "Sleep",
    "Type",
    "Enter",
    "Space",
    "Backspace",
    "Delete",
    "Insert",
    "Ctrl",
    "Alt",
    "Shift",
    "Down",
    "Left",
    "Right",
    "Up",
    "PageUp",
    "PageDown",
    "ScrollUp",
    "ScrollDown",
    "Tab",
    "Escape",
    "Home",
    "End",
    "Hide",
    "Require",
    "Show",
    "Output",
    "Shell",
    "FontFamily",
    "MarginFill",
    "Margin",
    "WindowBar",
    "WindowBarSize",
    "BorderRadius",
    "FontSize",
    "Framerate",
    "Height",
    "LetterSpacing",
    "LineHeight",
    "PlaybackSpeed",
    "TypingSpeed",
    "Padding",
    "Theme",
    "Width",
    "LoopOffset",
    "WaitTimeout",
    "WaitPattern",
    "Wait",
    "Source",
    "CursorBlink",
    "true",
    "false",
    "Screenshot",
    "Copy",
    "Paste",
    "Env",
];

/// Splits a tape into tokens, ending with one [`TokenKind::Eof`]; comments are dropped.
pub fn tokenize(source: &str) -> Vec<Token> {
    let mut lexer = Lexer {
        chars: source.chars().collect(),
        pos: 0,
        line: 1,
        column: 1,
    };
    let mut tokens = Vec::new();
    loop {
        let token = lexer.next_token();
        let end = token.kind == TokenKind::Eof;
        tokens.push(token);
        if end {
            return tokens;
        }
    }
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    line: u32,
    column: u32,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    /// Characters up to (not including) the first for which `stop` holds, or the end.
    fn take_until(&mut self, stop: impl Fn(char) -> bool) -> String {
        let mut text = String::new();
        while let Some(c) = self.peek(0) {
            if stop(c) {
                break;
            }
            text.push(c);
            self.bump();
        }
        text
    }

    fn next_token(&mut self) -> Token {
        let newline = |c: char| c == '\n' || c == '\r';
        loop {
            while self
                .peek(0)
                .is_some_and(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
            {
                self.bump();
            }
            if self.peek(0) != Some('#') {
                break;
            }
            self.take_until(newline);
        }
        let (line, column) = (self.line, self.column);
        let lexed = |kind: TokenKind, text: String| Token {
            kind,
            text,
            line,
            column,
        };
        let Some(c) = self.peek(0) else {
            return lexed(TokenKind::Eof, String::new());
        };
        match c {
            '@' | '=' | '+' | '-' | '%' | '^' | '[' | ']' | '\\' => {
                self.bump();
                lexed(TokenKind::Punct, c.to_string())
            }
            '"' | '\'' | '`' => {
                self.bump();
                let text = self.take_until(|x| x == c || newline(x));
                if self.peek(0) == Some(c) {
                    self.bump();
                }
                lexed(TokenKind::String, text)
            }
            '{' => {
                self.bump();
                let body = self.take_until(|x| x == '}');
                self.bump();
                lexed(TokenKind::Json, format!("{{{body}}}"))
            }
            '/' => {
                self.bump();
                let text = self.regex_body();
                lexed(TokenKind::Regex, text)
            }
            _ if c.is_ascii_digit()
                || (c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit())) =>
            {
                let text = self.take_until(|x| !(x.is_ascii_digit() || x == '.'));
                lexed(TokenKind::Number, text)
            }
            _ if c.is_ascii_alphabetic() || c == '.' => {
                let text = self.take_until(|x| {
                    !(x.is_ascii_alphanumeric() || matches!(x, '.' | '-' | '_' | '/' | '%'))
                });
                let kind = if KEYWORDS.contains(&text.as_str()) {
                    TokenKind::Keyword
                } else {
                    TokenKind::String
                };
                lexed(kind, text)
            }
            _ => {
                self.bump();
                lexed(TokenKind::Illegal, c.to_string())
            }
        }
    }

    /// The body of a `/…/` (the opening `/` read): up to an unescaped `/` (one after an even
    /// run of backslashes) or the end of the line, which is consumed.
    fn regex_body(&mut self) -> String {
        let mut text = String::new();
        let mut backslashes = 0usize;
        while let Some(c) = self.peek(0) {
            if c == '\n' || c == '\r' {
                break;
            }
            self.bump();
            if c == '/' && backslashes.is_multiple_of(2) {
                return text;
            }
            backslashes = if c == '\\' { backslashes + 1 } else { 0 };
            text.push(c);
        }
        text
    }
}
