//! Tokens → commands, by VHS's grammar: every command on its line with its options, `Source`
//! read in place, and every problem found (not just the first), each with its file, line and
//! column.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::lexer::{Token, TokenKind, tokenize};

/// The largest tape file read (VHS tapes are a few kilobytes).
pub const MAX_TAPE_BYTES: u64 = 1 << 20;

/// The longest duration a tape may give (`Sleep`, `@TIME`, `TypingSpeed`, `WaitTimeout`): a
/// day, in seconds. VHS takes any Go duration; a longer one would record for more than a day.
pub const MAX_DURATION_SECS: f64 = 86_400.0;

/// A problem in a tape, where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TapeError {
    /// The file.
    pub path: PathBuf,
    /// Line, from 1 (0: the file as a whole).
    pub line: u32,
    /// Column in characters, from 1 (0: the line as a whole).
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: {}", self.path.display(), self.message),
            (line, 0) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            (line, column) => {
                write!(
                    f,
                    "{}:{line}:{column}: {}",
                    self.path.display(),
                    self.message
                )
            }
        }
    }
}

impl std::error::Error for TapeError {}

/// Where a command was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The tape file (a `Source`d file for its commands).
    pub path: PathBuf,
    /// Line, from 1.
    pub line: u32,
}

impl Location {
    /// The file as a whole (line 0), for what no line of it asks for.
    pub fn whole(path: &Path) -> Location {
        Location {
            path: path.to_owned(),
            line: 0,
        }
    }

    /// A problem at this command.
    pub fn error(&self, message: impl Into<String>) -> TapeError {
        TapeError {
            path: self.path.clone(),
            line: self.line,
            column: 0,
            message: message.into(),
        }
    }
}

/// A key VHS types by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedKey {
    /// `Backspace`.
    Backspace,
    /// `Delete`.
    Delete,
    /// `Insert`.
    Insert,
    /// `Enter`.
    Enter,
    /// `Space`.
    Space,
    /// `Tab`.
    Tab,
    /// `Escape`.
    Escape,
    /// `Up`.
    Up,
    /// `Down`.
    Down,
    /// `Left`.
    Left,
    /// `Right`.
    Right,
    /// `PageUp`.
    PageUp,
    /// `PageDown`.
    PageDown,
    /// `Home`.
    Home,
    /// `End`.
    End,
}

impl NamedKey {
    /// Every key with its tape keyword.
    pub const ALL: [(&'static str, NamedKey); 15] = [
        ("Backspace", NamedKey::Backspace),
        ("Delete", NamedKey::Delete),
        ("Insert", NamedKey::Insert),
        ("Enter", NamedKey::Enter),
        ("Space", NamedKey::Space),
        ("Tab", NamedKey::Tab),
        ("Escape", NamedKey::Escape),
        ("Up", NamedKey::Up),
        ("Down", NamedKey::Down),
        ("Left", NamedKey::Left),
        ("Right", NamedKey::Right),
        ("PageUp", NamedKey::PageUp),
        ("PageDown", NamedKey::PageDown),
        ("Home", NamedKey::Home),
        ("End", NamedKey::End),
    ];

    fn from_keyword(word: &str) -> Option<NamedKey> {
        NamedKey::ALL
            .iter()
            .find(|(name, _)| *name == word)
            .map(|(_, key)| *key)
    }

    /// The tape keyword, which is also the key's name for shotty's key encoder.
    pub fn name(self) -> &'static str {
        NamedKey::ALL
            .iter()
            .find(|(_, key)| *key == self)
            .map_or("", |(name, _)| name)
    }
}

/// What `Wait` matches its pattern against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitScope {
    /// The cursor's line (`Wait` and `Wait+Line`).
    Line,
    /// The whole screen (`Wait+Screen`).
    Screen,
}

/// A `Set` command's setting and value, checked for its type (ranges are checked when the
/// tape is loaded, with the other settings).
#[derive(Clone, Debug, PartialEq)]
pub enum Setting {
    /// `Shell NAME`.
    Shell(String),
    /// `FontFamily "…"`.
    FontFamily(String),
    /// `FontSize N` (px).
    FontSize(f64),
    /// `Framerate N` (frames a second).
    Framerate(u32),
    /// `Height N` (px).
    Height(u32),
    /// `Width N` (px).
    Width(u32),
    /// `LetterSpacing N` (px between characters).
    LetterSpacing(f64),
    /// `LineHeight N` (× the font's height).
    LineHeight(f64),
    /// `PlaybackSpeed N`.
    PlaybackSpeed(f64),
    /// `Padding N` (px).
    Padding(u32),
    /// `Theme "Name"` or `Theme {json}`.
    Theme(String),
    /// `TypingSpeed TIME`.
    TypingSpeed(Duration),
    /// `LoopOffset N[%]`.
    LoopOffset(f64),
    /// `MarginFill "#rrggbb"` or an image file.
    MarginFill(String),
    /// `Margin N` (px).
    Margin(u32),
    /// `WindowBar STYLE`.
    WindowBar(String),
    /// `WindowBarSize N` (px).
    WindowBarSize(u32),
    /// `BorderRadius N` (px).
    BorderRadius(u32),
    /// `WaitTimeout TIME`.
    WaitTimeout(Duration),
    /// `WaitPattern REGEX`.
    WaitPattern(String),
    /// `CursorBlink BOOL`.
    CursorBlink(bool),
}

/// The window bar styles VHS draws.
pub const WINDOW_BARS: [&str; 4] = ["Colorful", "ColorfulRight", "Rings", "RingsRight"];

/// One command of a tape.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandKind {
    /// `Output PATH` (a path ending in `/` is a directory of frames).
    Output(PathBuf),
    /// `Require PROGRAM`.
    Require(String),
    /// `Set SETTING VALUE`.
    Set(Setting),
    /// `Sleep TIME`.
    Sleep(Duration),
    /// `Type[@TIME] "text"…`.
    Type {
        /// The text.
        text: String,
        /// The pause after each character, if not the typing speed.
        speed: Option<Duration>,
    },
    /// A named key, `Key[@TIME] [COUNT]`.
    Key {
        /// The key.
        key: NamedKey,
        /// The pause after each press, if not the typing speed.
        speed: Option<Duration>,
        /// How many times.
        repeat: u32,
    },
    /// `ScrollUp`/`ScrollDown[@TIME] [COUNT]`: the view moves through the scrollback.
    Scroll {
        /// Lines up (negative) or down (positive) per press.
        lines: i32,
        /// The pause after each, if not the typing speed.
        speed: Option<Duration>,
        /// How many times.
        repeat: u32,
    },
    /// `Ctrl+…`, `Alt+…`, `Shift+…`: a chord, as shotty's key encoder names it
    /// (`Ctrl+Alt+x`), or for `Alt`/`Shift` with a word, each character with the modifier.
    Chord(Vec<String>),
    /// `Hide`.
    Hide,
    /// `Show`.
    Show,
    /// `Wait[+Line|+Screen][@TIME] [/REGEX/]`.
    Wait {
        /// What is matched.
        scope: WaitScope,
        /// How long at most, if not the wait timeout.
        timeout: Option<Duration>,
        /// The pattern, if not the wait pattern.
        pattern: Option<String>,
    },
    /// `Screenshot PATH.png`.
    Screenshot(PathBuf),
    /// `Copy "text"`.
    Copy(String),
    /// `Paste`.
    Paste,
    /// `Env NAME "value"`.
    Env {
        /// The variable.
        name: String,
        /// Its value.
        value: String,
    },
}

/// A command and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    /// What it does.
    pub kind: CommandKind,
    /// Where.
    pub at: Location,
}

/// Reads and parses a tape file (and the files it `Source`s); every problem is reported.
pub fn parse_file(path: &Path) -> Result<Vec<Command>, Vec<TapeError>> {
    let source = read_tape(path).map_err(|e| vec![e])?;
    let mut parser = Parser::new(path, &source, true);
    let commands = parser.parse();
    if !parser.errors.is_empty() {
        return Err(parser.errors);
    }
    if commands.is_empty() {
        return Err(vec![TapeError {
            path: path.to_owned(),
            line: 0,
            column: 0,
            message: "the tape has no commands".into(),
        }]);
    }
    Ok(commands)
}

/// Parses tape source text (`path` names it in errors; a `Source` inside reads files).
pub fn parse_str(path: &Path, source: &str) -> Result<Vec<Command>, Vec<TapeError>> {
    let mut parser = Parser::new(path, source, true);
    let commands = parser.parse();
    if parser.errors.is_empty() {
        Ok(commands)
    } else {
        Err(parser.errors)
    }
}

fn read_tape(path: &Path) -> Result<String, TapeError> {
    let whole = |message: String| TapeError {
        path: path.to_owned(),
        line: 0,
        column: 0,
        message,
    };
    let meta = std::fs::metadata(path).map_err(|e| whole(format!("cannot read it: {e}")))?;
    if meta.len() > MAX_TAPE_BYTES {
        return Err(whole(format!(
            "it is {} bytes; a tape has at most {MAX_TAPE_BYTES}",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| whole(format!("cannot read it: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        whole(format!(
            "it is not UTF-8 text (byte {} is not)",
            e.utf8_error().valid_up_to()
        ))
    })
}

struct Parser<'a> {
    path: &'a Path,
    tokens: Vec<Token>,
    /// The current token's index.
    pos: usize,
    /// Whether `Source` may be used (not inside a sourced tape: VHS refuses nesting).
    may_source: bool,
    errors: Vec<TapeError>,
}

impl<'a> Parser<'a> {
    fn new(path: &'a Path, source: &str, may_source: bool) -> Parser<'a> {
        Parser {
            path,
            tokens: tokenize(source),
            pos: 0,
            may_source,
            errors: Vec::new(),
        }
    }

    fn cur(&self) -> &Token {
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek(&self) -> &Token {
        &self.tokens[(self.pos + 1).min(self.tokens.len() - 1)]
    }

    fn advance(&mut self) {
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
    }

    fn error_at(&mut self, token: &Token, message: impl Into<String>) {
        self.errors.push(TapeError {
            path: self.path.to_owned(),
            line: token.line,
            column: token.column,
            message: message.into(),
        });
    }

    /// A problem with what follows the current token: at the next token if it is on the
    /// same line, else (it is missing) at the current one.
    fn error_after(&mut self, message: impl Into<String>) {
        let (cur, next) = (self.cur(), self.peek());
        let token = if next.line == cur.line && next.kind != TokenKind::Eof {
            next.clone()
        } else {
            cur.clone()
        };
        self.error_at(&token, message);
    }

    /// `command` has no path after it: said (a path that starts with `/` reads as a pattern
    /// unless quoted, as in VHS), and the rest of the line skipped.
    fn path_missing(&mut self, command: &str) {
        let hint = if self.peek().kind == TokenKind::Regex && self.peek().line == self.cur().line {
            " (quote a path that starts with /: \"/tmp/demo.gif\")"
        } else {
            ""
        };
        self.error_after(format!("{command} takes a file path{hint}"));
        self.skip_line();
    }

    /// Skips the rest of the current token's line (after a word that is no command, so its
    /// arguments are not taken for commands too).
    fn skip_line(&mut self) {
        let line = self.cur().line;
        while self.peek().line == line && self.peek().kind != TokenKind::Eof {
            self.advance();
        }
    }

    fn parse(&mut self) -> Vec<Command> {
        let mut commands = Vec::new();
        while self.cur().kind != TokenKind::Eof {
            let at = Location {
                path: self.path.to_owned(),
                line: self.cur().line,
            };
            match self.command() {
                Parsed::One(kind) => commands.push(Command { kind, at }),
                Parsed::Many(sourced) => commands.extend(sourced),
                Parsed::Nothing => {}
            }
            self.advance();
        }
        commands
    }

    /// The command at the current token; leaves the current token at its last one.
    fn command(&mut self) -> Parsed {
        let token = self.cur().clone();
        if token.kind != TokenKind::Keyword {
            return self.not_a_command(&token);
        }
        if let Some(key) = NamedKey::from_keyword(&token.text) {
            let speed = self.speed();
            let repeat = self.repeat();
            return Parsed::One(CommandKind::Key { key, speed, repeat });
        }
        let kind = match token.text.as_str() {
            "ScrollUp" | "ScrollDown" => {
                let lines = if token.text == "ScrollUp" { -1 } else { 1 };
                let speed = self.speed();
                let repeat = self.repeat();
                CommandKind::Scroll {
                    lines,
                    speed,
                    repeat,
                }
            }
            "Set" => match self.setting() {
                Some(setting) => CommandKind::Set(setting),
                None => return Parsed::Nothing,
            },
            "Output" => match self.output() {
                Some(path) => CommandKind::Output(path),
                None => return Parsed::Nothing,
            },
            "Sleep" => match self.time() {
                Some(time) => CommandKind::Sleep(time),
                None => return Parsed::Nothing,
            },
            "Type" => {
                let speed = self.speed();
                let Some(text) = self.strings("Type") else {
                    return Parsed::Nothing;
                };
                CommandKind::Type { text, speed }
            }
            "Ctrl" => CommandKind::Chord(self.ctrl()),
            "Alt" | "Shift" => CommandKind::Chord(self.modified(&token.text)),
            "Hide" => CommandKind::Hide,
            "Show" => CommandKind::Show,
            "Require" => {
                if self.peek().kind != TokenKind::String {
                    self.error_after("Require takes the name of a program");
                    return Parsed::Nothing;
                }
                self.advance();
                CommandKind::Require(self.cur().text.clone())
            }
            "Wait" => self.wait(),
            "Source" => return self.source(),
            "Screenshot" => match self.path_with_extension("Screenshot", "png") {
                Some(path) => CommandKind::Screenshot(path),
                None => return Parsed::Nothing,
            },
            "Copy" => match self.strings("Copy") {
                Some(text) => CommandKind::Copy(text),
                None => return Parsed::Nothing,
            },
            "Paste" => CommandKind::Paste,
            "Env" => {
                self.advance();
                let name = self.cur().text.clone();
                if name.is_empty() || name.contains('=') {
                    let token = self.cur().clone();
                    self.error_at(&token, "Env takes a variable name, then its value");
                    return Parsed::Nothing;
                }
                if self.peek().kind != TokenKind::String {
                    self.error_after(format!("Env {name} takes a string value"));
                    return Parsed::Nothing;
                }
                self.advance();
                CommandKind::Env {
                    name,
                    value: self.cur().text.clone(),
                }
            }
            _ => return self.not_a_command(&token),
        };
        Parsed::One(kind)
    }

    /// `token` starts a line but is no command: said, and the rest of the line skipped (so
    /// its arguments are not taken for commands too). A byte-order mark that starts the file
    /// (an editor's, on Windows) is named, as it shows as nothing.
    fn not_a_command(&mut self, token: &Token) -> Parsed {
        let message = if token.text == "\u{feff}" && (token.line, token.column) == (1, 1) {
            "a byte-order mark (U+FEFF) starts the file: save it as UTF-8 without one (VHS \
             refuses it too)"
                .to_owned()
        } else {
            format!("not a command: {}", shown(token))
        };
        self.error_at(token, message);
        self.skip_line();
        Parsed::Nothing
    }

    /// `@TIME` after a command, if there.
    fn speed(&mut self) -> Option<Duration> {
        if self.peek().is_punct('@') {
            self.advance();
            self.time()
        } else {
            None
        }
    }

    /// A repeat count after a key, else 1.
    fn repeat(&mut self) -> u32 {
        if self.peek().kind != TokenKind::Number {
            return 1;
        }
        self.advance();
        let token = self.cur().clone();
        match token.text.parse::<u32>() {
            Ok(n) if n <= 10_000 => n,
            _ => {
                self.error_at(
                    &token,
                    format!("{} is not a repeat count (0–10000)", token.text),
                );
                1
            }
        }
    }

    /// `NUMBER[ms|s|m]` after the current token (seconds without a unit).
    fn time(&mut self) -> Option<Duration> {
        if self.peek().kind != TokenKind::Number {
            let after = self.cur().text.clone();
            self.error_after(format!("expected a time after {after}"));
            return None;
        }
        self.advance();
        let number = self.cur().clone();
        let unit = ["ms", "s", "m"]
            .into_iter()
            .find(|u| self.peek().is_keyword(u));
        if unit.is_some() {
            self.advance();
        }
        // Seconds without a unit.
        let factor = match unit {
            Some("ms") => 0.001,
            Some("m") => 60.0,
            _ => 1.0,
        };
        match number.text.parse::<f64>() {
            Ok(n) if n.is_finite() && (0.0..=MAX_DURATION_SECS).contains(&(n * factor)) => {
                Some(Duration::from_secs_f64(n * factor))
            }
            Ok(n) if n * factor > MAX_DURATION_SECS => {
                let written = format!("{}{}", number.text, unit.unwrap_or(" s"));
                self.error_at(
                    &number,
                    format!(
                        "{written} is longer than the 24 h ({MAX_DURATION_SECS} s) a duration \
                         may be"
                    ),
                );
                None
            }
            _ => {
                self.error_at(&number, format!("{} is not a time", number.text));
                None
            }
        }
    }

    /// One or more strings after `command` (VHS joins them with a space).
    fn strings(&mut self, command: &str) -> Option<String> {
        if self.peek().kind != TokenKind::String {
            self.error_after(format!("{command} takes a string"));
            return None;
        }
        let mut text = String::new();
        while self.peek().kind == TokenKind::String {
            self.advance();
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&self.cur().text);
        }
        Some(text)
    }

    /// `Ctrl[+Alt][+Shift]+KEY`: the chord's key names.
    fn ctrl(&mut self) -> Vec<String> {
        let mut modifiers = vec!["Ctrl".to_owned()];
        let mut key: Option<String> = None;
        let mut refused = false;
        while self.peek().is_punct('+') {
            self.advance();
            let next = self.peek().clone();
            if next.is_keyword("Alt") || next.is_keyword("Shift") {
                if key.is_some() {
                    self.error_at(&next, "modifiers come before the key");
                } else {
                    modifiers.push(next.text.clone());
                }
                self.advance();
                continue;
            }
            let name = match next.kind {
                TokenKind::Keyword
                    if matches!(
                        next.text.as_str(),
                        "Enter" | "Space" | "Backspace" | "Left" | "Right" | "Up" | "Down"
                    ) =>
                {
                    Some(next.text.clone())
                }
                TokenKind::Punct
                    if matches!(next.text.as_str(), "-" | "@" | "[" | "]" | "^" | "\\") =>
                {
                    Some(next.text.clone())
                }
                TokenKind::String if next.text.chars().count() == 1 => Some(next.text.clone()),
                _ => None,
            };
            match name {
                Some(name) if key.is_none() => key = Some(name),
                Some(_) => self.error_at(&next, "a Ctrl chord has one key"),
                None => {
                    refused = true;
                    self.error_at(
                        &next,
                        format!(
                            "{} is not a key for Ctrl+ (one character or a key name)",
                            shown(&next)
                        ),
                    );
                }
            }
            self.advance();
        }
        match key {
            Some(key) => {
                modifiers.push(key);
                vec![modifiers.join("+")]
            }
            None => {
                if !refused {
                    self.error_after("Ctrl+ takes a key: Ctrl+C, Ctrl+Alt+X");
                }
                Vec::new()
            }
        }
    }

    /// `Alt+X`/`Shift+X`: `Enter`, `Tab`, `[`, `]` or a word (each character with the
    /// modifier, as VHS types it).
    fn modified(&mut self, modifier: &str) -> Vec<String> {
        if self.peek().is_punct('+') {
            self.advance();
            let next = self.peek().clone();
            let keys = match next.kind {
                TokenKind::Keyword if matches!(next.text.as_str(), "Enter" | "Tab") => {
                    Some(vec![format!("{modifier}+{}", next.text)])
                }
                TokenKind::Punct if matches!(next.text.as_str(), "[" | "]") => {
                    Some(vec![format!("{modifier}+{}", next.text)])
                }
                TokenKind::String if !next.text.is_empty() => Some(
                    next.text
                        .chars()
                        .map(|c| format!("{modifier}+{c}"))
                        .collect(),
                ),
                _ => None,
            };
            if let Some(keys) = keys {
                self.advance();
                return keys;
            }
        }
        let token = self.cur().clone();
        self.error_at(
            &token,
            format!("{modifier}+ takes a character, Enter or Tab: {modifier}+X"),
        );
        Vec::new()
    }

    fn wait(&mut self) -> CommandKind {
        let mut scope = WaitScope::Line;
        if self.peek().is_punct('+') {
            self.advance();
            match self.peek().text.as_str() {
                "Line" => scope = WaitScope::Line,
                "Screen" => scope = WaitScope::Screen,
                _ => self.error_after("Wait+ takes Line or Screen"),
            }
            self.advance();
        }
        let timeout = self.speed();
        if timeout == Some(Duration::ZERO) {
            let token = self.cur().clone();
            self.error_at(&token, "a Wait's time must be positive");
        }
        let mut pattern = None;
        if self.peek().kind == TokenKind::Regex {
            self.advance();
            let token = self.cur().clone();
            match regex::Regex::new(&token.text) {
                Ok(_) => pattern = Some(token.text),
                Err(e) => self.error_at(
                    &token,
                    format!(
                        "bad regular expression {}: {}",
                        shown(&token),
                        visible(&e.to_string())
                    ),
                ),
            }
        }
        CommandKind::Wait {
            scope,
            timeout,
            pattern,
        }
    }

    /// `Output PATH`: a file with an extension, or a directory ending in `/`.
    fn output(&mut self) -> Option<PathBuf> {
        if self.peek().kind != TokenKind::String {
            self.path_missing("Output");
            return None;
        }
        self.advance();
        let token = self.cur().clone();
        let path = PathBuf::from(&token.text);
        if path.extension().is_none() && !token.text.ends_with('/') {
            self.error_at(
                &token,
                format!(
                    "{:?} has no extension: name a file (.gif, .svg, .png, …) or a directory \
                     of frames ending in /",
                    token.text
                ),
            );
            return None;
        }
        Some(path)
    }

    fn path_with_extension(&mut self, command: &str, extension: &str) -> Option<PathBuf> {
        if self.peek().kind != TokenKind::String {
            self.path_missing(command);
            return None;
        }
        self.advance();
        let token = self.cur().clone();
        let path = PathBuf::from(&token.text);
        if path.extension().and_then(|e| e.to_str()) != Some(extension) {
            self.error_at(
                &token,
                format!("{command} writes a .{extension} file, not {:?}", token.text),
            );
            return None;
        }
        Some(path)
    }

    fn setting(&mut self) -> Option<Setting> {
        let name = self.peek().clone();
        if name.kind != TokenKind::Keyword || !SETTINGS.contains(&name.text.as_str()) {
            self.error_at(
                &name,
                format!(
                    "unknown setting {} (one of: {})",
                    shown(&name),
                    SETTINGS.join(", ")
                ),
            );
            self.advance();
            // Skip the value, so it is not read as a command.
            if self.peek().line == name.line && self.peek().kind != TokenKind::Eof {
                self.advance();
            }
            return None;
        }
        self.advance();
        let value = self.peek().clone();
        let setting = match name.text.as_str() {
            "TypingSpeed" | "WaitTimeout" => {
                let time = self.time()?;
                if name.text == "TypingSpeed" {
                    Setting::TypingSpeed(time)
                } else {
                    Setting::WaitTimeout(time)
                }
            }
            "LoopOffset" => {
                let percent = self.number::<f64>(&name.text)?;
                if self.peek().is_punct('%') {
                    self.advance();
                }
                Setting::LoopOffset(percent)
            }
            "FontSize" => Setting::FontSize(self.number(&name.text)?),
            "LetterSpacing" => Setting::LetterSpacing(self.number(&name.text)?),
            "LineHeight" => Setting::LineHeight(self.number(&name.text)?),
            "PlaybackSpeed" => Setting::PlaybackSpeed(self.number(&name.text)?),
            "Framerate" => Setting::Framerate(self.number(&name.text)?),
            "Width" => Setting::Width(self.number(&name.text)?),
            "Height" => Setting::Height(self.number(&name.text)?),
            "Padding" => Setting::Padding(self.number(&name.text)?),
            "Margin" => Setting::Margin(self.number(&name.text)?),
            "WindowBarSize" => Setting::WindowBarSize(self.number(&name.text)?),
            "BorderRadius" => Setting::BorderRadius(self.number(&name.text)?),
            "CursorBlink" => {
                self.advance();
                match value.text.as_str() {
                    "true" if value.kind == TokenKind::Keyword => Setting::CursorBlink(true),
                    "false" if value.kind == TokenKind::Keyword => Setting::CursorBlink(false),
                    _ => {
                        self.error_at(&value, "CursorBlink is true or false");
                        return None;
                    }
                }
            }
            _ => {
                // Settings with a word, string, pattern or JSON value.
                if !matches!(
                    value.kind,
                    TokenKind::String | TokenKind::Json | TokenKind::Regex | TokenKind::Keyword
                ) || value.line != name.line
                {
                    self.error_at(&name, format!("Set {} takes a value", name.text));
                    return None;
                }
                self.advance();
                let text = value.text.clone();
                match name.text.as_str() {
                    "Shell" => Setting::Shell(text),
                    "FontFamily" => Setting::FontFamily(text),
                    "Theme" => Setting::Theme(text),
                    "MarginFill" => Setting::MarginFill(text),
                    "WindowBar" => {
                        if !WINDOW_BARS.contains(&text.as_str()) {
                            self.error_at(
                                &value,
                                format!(
                                    "{text:?} is not a window bar style (one of: {})",
                                    WINDOW_BARS.join(", ")
                                ),
                            );
                            return None;
                        }
                        Setting::WindowBar(text)
                    }
                    "WaitPattern" => {
                        if let Err(e) = regex::Regex::new(&text) {
                            self.error_at(&value, format!("bad regular expression {text:?}: {e}"));
                            return None;
                        }
                        Setting::WaitPattern(text)
                    }
                    _ => return None,
                }
            }
        };
        Some(setting)
    }

    /// A number after the current token, of type `T`.
    fn number<T: std::str::FromStr>(&mut self, setting: &str) -> Option<T> {
        let value = self.peek().clone();
        if value.kind != TokenKind::Number {
            self.error_at(
                &value,
                format!("Set {setting} takes a number, not {}", shown(&value)),
            );
            return None;
        }
        self.advance();
        match value.text.parse::<T>() {
            Ok(n) => Some(n),
            Err(_) => {
                self.error_at(
                    &value,
                    format!("{} is not a number {setting} takes", value.text),
                );
                None
            }
        }
    }

    /// `Source PATH.tape`: the commands of that tape (but its `Output`s), read in place.
    fn source(&mut self) -> Parsed {
        let Some(path) = self.path_with_extension("Source", "tape") else {
            return Parsed::Nothing;
        };
        let token = self.cur().clone();
        if !self.may_source {
            self.error_at(&token, "a sourced tape cannot Source another");
            return Parsed::Nothing;
        }
        let text = match read_tape(&path) {
            Ok(text) if text.trim().is_empty() => {
                self.error_at(&token, format!("{} is empty", path.display()));
                return Parsed::Nothing;
            }
            Ok(text) => text,
            Err(e) => {
                self.error_at(
                    &token,
                    format!("cannot Source {}: {}", path.display(), e.message),
                );
                return Parsed::Nothing;
            }
        };
        let mut inner = Parser::new(&path, &text, false);
        let commands = inner.parse();
        if !inner.errors.is_empty() {
            self.errors.append(&mut inner.errors);
            return Parsed::Nothing;
        }
        // A sourced tape's outputs are not the sourcing tape's (VHS leaves them out).
        Parsed::Many(
            commands
                .into_iter()
                .filter(|c| !matches!(c.kind, CommandKind::Output(_)))
                .collect(),
        )
    }
}

/// What one command parsed to.
enum Parsed {
    One(CommandKind),
    Many(Vec<Command>),
    Nothing,
}

/// Every setting's name.
pub const SETTINGS: [&str; 21] = [
    "Shell",
    "FontFamily",
    "FontSize",
    "Framerate",
    "Height",
    "Width",
    "LetterSpacing",
    "LineHeight",
    "PlaybackSpeed",
    "Padding",
    "Theme",
    "TypingSpeed",
    "LoopOffset",
    "MarginFill",
    "Margin",
    "WindowBar",
    "WindowBarSize",
    "BorderRadius",
    "WaitTimeout",
    "WaitPattern",
    "CursorBlink",
];

/// A token as an error message shows it: quoted or delimited as written, what a terminal
/// would show as nothing or act on escaped (a stray byte-order mark, ESC, NUL), so the
/// message says what is wrong and cannot change the user's terminal.
fn shown(token: &Token) -> String {
    match token.kind {
        TokenKind::Eof => "the end of the file".into(),
        TokenKind::String => format!("{:?}", token.text),
        TokenKind::Regex => format!("/{}/", visible(&token.text)),
        _ => visible(&token.text),
    }
}

/// `text` with its invisible characters ([`invisible`]) escaped as Rust escapes them
/// (`\u{feff}`, `\u{1b}`, `\0`, `\t`); line breaks are kept (no token holds one, and a
/// message quoting a pattern's error keeps its lines).
fn visible(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c != '\n' && invisible(c) {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Whether `c` shows as nothing, or acts on the terminal, when printed: a control or format
/// character (U+FEFF, U+200B …), a space other than ' ', an unassigned or private-use one —
/// what Rust's `escape_debug` escapes, its own quotes and backslash aside. It is asked after
/// a letter, so that combining marks, which show on the character before them, are kept.
fn invisible(c: char) -> bool {
    let after_letter: String = ['a', c].into_iter().collect();
    !matches!(c, '"' | '\'' | '\\') && after_letter.escape_debug().count() > 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<CommandKind> {
        parse_str(Path::new("t.tape"), text)
            .unwrap_or_else(|e| panic!("{e:?}"))
            .into_iter()
            .map(|c| c.kind)
            .collect()
    }

    fn errors(text: &str) -> Vec<String> {
        parse_str(Path::new("t.tape"), text)
            .expect_err("errors")
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn commands_take_vhs_arguments() {
        let ms = Duration::from_millis;
        assert_eq!(
            parse(
                "Type@100ms 'a' \"b c\" `d`\nBackspace@1s 3\nEnter\nSleep .5\nSleep 500ms\n\
                 Ctrl+Alt+Shift+X\nCtrl+[\nAlt+Enter\nShift+Tab\nWait+Screen@2m /x\\/y/\nWait\n\
                 Env A \"1\"\nCopy \"x\"\nPaste\nHide\nShow\nScreenshot s.png\nRequire git\n\
                 Output out/\nSet TypingSpeed 10\nSet LoopOffset 20%\nSet Theme {\"red\": \"#ff0000\"}\n\
                 Set CursorBlink false # a comment\n"
            ),
            vec![
                CommandKind::Type {
                    text: "a b c d".into(),
                    speed: Some(ms(100))
                },
                CommandKind::Key {
                    key: NamedKey::Backspace,
                    speed: Some(ms(1000)),
                    repeat: 3
                },
                CommandKind::Key {
                    key: NamedKey::Enter,
                    speed: None,
                    repeat: 1
                },
                CommandKind::Sleep(ms(500)),
                CommandKind::Sleep(ms(500)),
                CommandKind::Chord(vec!["Ctrl+Alt+Shift+X".into()]),
                CommandKind::Chord(vec!["Ctrl+[".into()]),
                CommandKind::Chord(vec!["Alt+Enter".into()]),
                CommandKind::Chord(vec!["Shift+Tab".into()]),
                CommandKind::Wait {
                    scope: WaitScope::Screen,
                    timeout: Some(ms(120_000)),
                    pattern: Some("x\\/y".into())
                },
                CommandKind::Wait {
                    scope: WaitScope::Line,
                    timeout: None,
                    pattern: None
                },
                CommandKind::Env {
                    name: "A".into(),
                    value: "1".into()
                },
                CommandKind::Copy("x".into()),
                CommandKind::Paste,
                CommandKind::Hide,
                CommandKind::Show,
                CommandKind::Screenshot("s.png".into()),
                CommandKind::Require("git".into()),
                CommandKind::Output("out/".into()),
                CommandKind::Set(Setting::TypingSpeed(ms(10_000))),
                CommandKind::Set(Setting::LoopOffset(20.0)),
                CommandKind::Set(Setting::Theme("{\"red\": \"#ff0000\"}".into())),
                CommandKind::Set(Setting::CursorBlink(false)),
            ]
        );
    }

    #[test]
    fn every_problem_is_reported_with_its_line_and_column() {
        assert_eq!(
            errors(
                "Typo x y\nSet Nope 1\nSleep\nType\nCtrl+Hello\nWait /(/\nOutput out\n\
                 Output /tmp/x.gif\n"
            ),
            vec![
                "t.tape:1:1: not a command: \"Typo\"",
                "t.tape:2:5: unknown setting \"Nope\" (one of: Shell, FontFamily, FontSize, \
                 Framerate, Height, Width, LetterSpacing, LineHeight, PlaybackSpeed, Padding, \
                 Theme, TypingSpeed, LoopOffset, MarginFill, Margin, WindowBar, WindowBarSize, \
                 BorderRadius, WaitTimeout, WaitPattern, CursorBlink)",
                "t.tape:3:1: expected a time after Sleep",
                "t.tape:4:1: Type takes a string",
                "t.tape:5:6: \"Hello\" is not a key for Ctrl+ (one character or a key name)",
                "t.tape:6:6: bad regular expression /(/: regex parse error:\n    (\n    ^\nerror: \
                 unclosed group",
                "t.tape:7:8: \"out\" has no extension: name a file (.gif, .svg, .png, …) or a \
                 directory of frames ending in /",
                "t.tape:8:8: Output takes a file path (quote a path that starts with /: \
                 \"/tmp/demo.gif\")",
            ]
        );
    }

    #[test]
    fn invisible_characters_are_escaped_and_a_leading_byte_order_mark_is_named() {
        assert_eq!(
            errors(
                "\u{feff}Output a.gif\n\u{feff}Hide\n\u{1b}[31mRed\n\0\n\u{a0}Hide\n\
                 Ctrl+\u{200b}\nWait /\u{7}(/\n"
            ),
            vec![
                "t.tape:1:1: a byte-order mark (U+FEFF) starts the file: save it as UTF-8 \
                 without one (VHS refuses it too)",
                "t.tape:2:1: not a command: \\u{feff}",
                "t.tape:3:1: not a command: \\u{1b}",
                "t.tape:4:1: not a command: \\0",
                "t.tape:5:1: not a command: \\u{a0}",
                "t.tape:6:6: \\u{200b} is not a key for Ctrl+ (one character or a key name)",
                "t.tape:7:6: bad regular expression /\\u{7}(/: regex parse error:\n    \\u{7}(\n     \
                 ^\nerror: unclosed group",
            ]
        );
        // What shows as itself is kept: a combining mark on its letter, quotes, backslashes.
        assert_eq!(visible("e\u{301} \"'\\ 世"), "e\u{301} \"'\\ 世");
    }

    #[test]
    fn durations_longer_than_a_day_are_refused_saying_so() {
        assert_eq!(
            errors("Sleep 100000s\nSleep 86401\nType@1667m \"x\"\nSleep 1.2.3\n"),
            vec![
                "t.tape:1:7: 100000s is longer than the 24 h (86400 s) a duration may be",
                "t.tape:2:7: 86401 s is longer than the 24 h (86400 s) a duration may be",
                "t.tape:3:6: 1667m is longer than the 24 h (86400 s) a duration may be",
                "t.tape:4:7: 1.2.3 is not a time",
            ]
        );
        let day = Duration::from_secs(86_400);
        assert_eq!(
            parse("Sleep 86400\nSleep 1440m\n"),
            vec![CommandKind::Sleep(day), CommandKind::Sleep(day)]
        );
    }

    #[test]
    fn strings_keep_any_text_and_end_at_the_line() {
        assert_eq!(
            parse("Type \"héllo 世界 🎉\"\nType 'it''s'\n"),
            vec![
                CommandKind::Type {
                    text: "héllo 世界 🎉".into(),
                    speed: None
                },
                CommandKind::Type {
                    text: "it s".into(),
                    speed: None
                },
            ]
        );
        // An unclosed string ends at its line; the next line is read as commands.
        assert_eq!(parse("Type \"open\nEnter\n").len(), 2);
    }
}
