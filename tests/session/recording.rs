//! Recordings: a timeline written as asciicast v2 and read back by a real consumer
//! (Debian's `asciinema cat`), giving the screen the program drew.

use std::path::Path;
use std::time::Duration;

use shotty::Terminal;
use shotty::recording::asciicast::{CastInfo, write_v2};
use shotty::recording::{Event, Timeline};

use crate::asciinema::asciinema_cat;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(Path::new(ROOT).join("tests/fixtures"))
        .expect("tests/fixtures")
        .filter_map(|e| {
            let path = e.expect("fixture entry").path();
            (path.extension()? == "bin").then(|| {
                let name = path
                    .file_stem()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned();
                (name, std::fs::read(&path).expect("fixture readable"))
            })
        })
        .collect();
    out.sort();
    out
}

#[test]
fn exported_casts_replay_to_the_same_screen_in_asciinema() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, bytes) in fixtures() {
        let (width, height) = (80, 24);
        let mut timeline = Timeline::new(width, height, 64 << 20);
        // Odd-sized chunks cut UTF-8 sequences and escape sequences anywhere.
        for (i, chunk) in bytes.chunks(997).enumerate() {
            timeline.push(
                Duration::from_millis(40 * i as u64),
                Event::Output(chunk.to_vec()),
            );
            if i == 1 {
                timeline.push(Duration::from_millis(41), Event::Input(b"q\x1b[A".to_vec()));
                timeline.push(
                    Duration::from_millis(42),
                    Event::Marker("second chunk".into()),
                );
            }
        }
        let cast = dir.path().join(format!("{name}.cast"));
        let mut file = Vec::new();
        write_v2(&timeline, &CastInfo::default(), &mut file).expect("cast written");
        std::fs::write(&cast, &file).expect("cast saved");

        let mut original = Terminal::new(width.into(), height.into());
        original.advance(&bytes);
        let Some(played) = asciinema_cat(&cast) else {
            return;
        };
        let mut replayed = Terminal::new(width.into(), height.into());
        replayed.advance(&played);
        assert_eq!(
            replayed.snapshot(),
            original.snapshot(),
            "{name}: asciinema's replay of the exported cast differs"
        );
    }
}

#[test]
fn cast_lines_are_asciicast_v2() {
    let mut timeline = Timeline::new(30, 5, 1 << 20);
    timeline.push(Duration::ZERO, Event::Output(b"a\xe4\xb8".to_vec()));
    timeline.push(
        Duration::from_micros(1_500_000),
        Event::Output(b"\xad\xffb".to_vec()),
    );
    timeline.push(Duration::from_millis(1600), Event::Input(b"\x03".to_vec()));
    timeline.push(
        Duration::from_millis(1700),
        Event::Resize {
            width: 40,
            height: 10,
        },
    );
    timeline.push(
        Duration::from_millis(1800),
        Event::Marker("done \"quoted\"".into()),
    );
    let info = CastInfo {
        timestamp: Some(1_700_000_000),
        title: Some("demo".into()),
    };
    let mut out = Vec::new();
    write_v2(&timeline, &info, &mut out).expect("written");
    let text = String::from_utf8(out).expect("UTF-8");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect();
    assert_eq!(
        lines[0],
        serde_json::json!({"version": 2, "width": 30, "height": 5, "timestamp": 1_700_000_000u64,
            "env": {"TERM": "xterm-256color"}, "title": "demo"})
    );
    let events: Vec<serde_json::Value> = lines[1..].to_vec();
    assert_eq!(
        events,
        vec![
            serde_json::json!([0.0, "o", "a"]),
            // The sequence split between the chunks is written whole; an invalid byte is U+FFFD.
            serde_json::json!([1.5, "o", "\u{4e2d}\u{fffd}b"]),
            serde_json::json!([1.6, "i", "\u{3}"]),
            serde_json::json!([1.7, "r", "40x10"]),
            serde_json::json!([1.8, "m", "done \"quoted\""]),
        ]
    );
}

#[test]
fn input_and_markers_count_against_the_bound_too() {
    let limit = 64 * 1024;
    let mut timeline = Timeline::new(20, 4, limit);
    for i in 0..200_000u64 {
        let event = if i % 100 == 0 {
            Event::Marker(format!("m{i}"))
        } else {
            Event::Input(b"x".to_vec())
        };
        timeline.push(Duration::from_millis(i), event);
        if timeline.wants_keyframe() {
            timeline.keyframe(Duration::from_millis(i), 20, 4, b"\x1b[H\x1b[2J".to_vec());
        }
    }
    // 33 bytes or more an event: never more than the limit and one interval's worth.
    let most = (limit + timeline.keyframe_interval()) / 33;
    assert!(
        timeline.events().len() <= most,
        "{} events held",
        timeline.events().len()
    );
    assert!(timeline.dropped_events() > 190_000);
}

#[test]
fn a_bounded_timeline_starts_at_a_keyframe_and_replays_to_the_screen() {
    // Keyframes here are the screen's text redrawn plainly: enough to see where replay starts.
    let limit = 64 * 1024;
    let mut timeline = Timeline::new(20, 4, limit);
    let mut term = Terminal::new(20, 4);
    let mut total = 0;
    for i in 0..30000u64 {
        let line = format!("line {i}\r\n");
        total += line.len();
        term.advance(line.as_bytes());
        timeline.push(Duration::from_millis(i), Event::Output(line.into_bytes()));
        if timeline.wants_keyframe() {
            let redraw = format!("\x1b[H\x1b[2J{}", term.text().replace('\n', "\r\n"));
            timeline.keyframe(Duration::from_millis(i), 20, 4, redraw.into_bytes());
        }
    }
    assert!(total > 4 * limit);
    assert!(
        timeline.output_bytes() <= limit + timeline.keyframe_interval(),
        "{} held",
        timeline.output_bytes()
    );
    // Each short line also costs the per-event overhead (32 bytes) against the limit.
    assert!(
        timeline.output_bytes() >= limit / 8,
        "{} held",
        timeline.output_bytes()
    );
    assert!(timeline.dropped_events() > 0);
    let shotty::recording::Start::Keyframe(frame) = timeline.start() else {
        panic!("a truncated timeline starts at a keyframe");
    };
    let mut replay = Terminal::new(frame.width.into(), frame.height.into());
    replay.advance(&frame.bytes);
    for e in timeline.events() {
        if let Event::Output(bytes) = &e.event {
            replay.advance(bytes);
        }
    }
    assert_eq!(replay.text(), term.text());
}

mod live {
    //! A real program recorded by the session core.

    use std::path::Path;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    use shotty::input::CastReader;
    use shotty::pty::ColorEnvFlags;
    use shotty::recording::asciicast::{CastInfo, write_v2};
    use shotty::recording::{Event, Start, Timeline};
    use shotty::session::instance::DEFAULT_RECORD_LIMIT;
    use shotty::session::{Session, SessionSpec};
    use shotty::term::ColorValue;
    use shotty::{Snapshot, Terminal};

    fn bash(dir: &Path) -> Arc<Session> {
        bash_with_limit(dir, DEFAULT_RECORD_LIMIT)
    }

    fn bash_with_limit(dir: &Path, record_limit: usize) -> Arc<Session> {
        start(
            dir,
            &["bash", "--norc", "--noprofile", "-i"],
            &[
                ("PS1", "\\[\\e[1;32m\\]rec\\[\\e[0m\\]$ "),
                ("HISTFILE", "/dev/null"),
            ],
            record_limit,
        )
    }

    /// `command` in a 60×12 PTY through the session core, in `dir` with `dir` as its HOME (so
    /// no user configuration, history or swap file of the machine takes part); the session
    /// sets TERM and the colour environment.
    fn start(
        dir: &Path,
        command: &[&str],
        env: &[(&str, &str)],
        record_limit: usize,
    ) -> Arc<Session> {
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let mut vars = vec![("HOME".to_owned(), dir.display().to_string())];
        vars.extend(env.iter().map(|&(k, v)| (k.to_owned(), v.to_owned())));
        let spec = SessionSpec {
            command: command.iter().map(|&a| a.to_owned()).collect(),
            width: 60,
            height: 12,
            cwd: Some(dir.to_path_buf()),
            base_env: None,
            env: vars,
            color_env: ColorEnvFlags::default(),
            scrollback: 1000,
            timeout: None,
            record_limit,
        };
        let id = format!(
            "s_rec{}_{}",
            std::process::id(),
            STARTED.fetch_add(1, Ordering::Relaxed)
        );
        Session::start(id, spec).unwrap_or_else(|e| panic!("{command:?} starts: {e:?}"))
    }

    fn wait_for(session: &Session, needle: &str) {
        wait_until(session, &format!("{needle:?}"), |text| {
            text.contains(needle)
        });
    }

    /// Waits (at most 10 s) for the screen's text to satisfy `ready`, woken by each change.
    fn wait_until(session: &Session, what: &str, ready: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut live = session.lock();
        while !ready(&live.term.text()) {
            assert!(
                Instant::now() < deadline,
                "no {what}:\n{}",
                live.term.text()
            );
            live = session.wait_change(live, Some(deadline));
        }
    }

    #[test]
    fn a_bash_session_is_recorded_with_input_markers_and_resizes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let session = bash(dir.path());
        wait_for(&session, "rec$");
        session
            .write(b"printf '\\e[31mred\\e[0m \\xe4\\xb8\\xad\\n'; echo done-$((1))\r")
            .expect("typed");
        wait_for(&session, "done-1");
        let marked = session.mark("after printf".into()).expect("a short label");
        session
            .write(b"seq 1 30; echo done-$((2))\r")
            .expect("typed");
        wait_for(&session, "done-2\nrec$");

        let timeline = session.lock().recording.clone();
        let events: Vec<&Event> = timeline.events().map(|e| &e.event).collect();
        let inputs: Vec<&[u8]> = events
            .iter()
            .filter_map(|e| match e {
                Event::Input(b) => Some(b.as_slice()),
                _ => None,
            })
            .collect();
        assert_eq!(inputs.len(), 2, "{events:?}");
        assert!(inputs[1].starts_with(b"seq 1 30"));
        let markers: Vec<(Duration, &str)> = timeline.markers().collect();
        assert_eq!(markers, vec![(marked, "after printf")]);
        // Times never go back.
        let times: Vec<Duration> = timeline.events().map(|e| e.at).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]));

        // The exported cast, played by asciinema, draws the live screen.
        let cast = dir.path().join("bash.cast");
        let mut file = Vec::new();
        write_v2(&timeline, &CastInfo::default(), &mut file).expect("cast");
        std::fs::write(&cast, &file).expect("saved");
        if let Some(played) = super::asciinema_cat(&cast) {
            let mut replayed = Terminal::new(60, 12);
            replayed.advance(&played);
            assert_eq!(replayed.snapshot(), session.lock().term.snapshot());
        }

        // A resize is recorded and replayed (shotty's own cast reader applies `r` events).
        session.resize(40, 8).expect("resized");
        session.write(b"echo after-$((3))\r").expect("typed");
        wait_for(&session, "after-3\nrec$");
        let timeline = session.lock().recording.clone();
        assert!(timeline.events().any(|e| e.event
            == Event::Resize {
                width: 40,
                height: 8
            }));
        let mut file = Vec::new();
        write_v2(&timeline, &CastInfo::default(), &mut file).expect("cast");
        let mut reader = CastReader::new(std::io::Cursor::new(file)).expect("a valid cast");
        let mut term = Terminal::new(60, 12);
        reader.play(&mut term, None).expect("plays");
        let live = session.lock();
        assert_eq!((term.width(), term.height()), (40, 8));
        assert_eq!(term.text(), live.term.text());
    }

    #[test]
    fn past_its_limit_a_recording_starts_at_a_keyframe_and_replays_to_the_screen() {
        let dir = tempfile::tempdir().expect("temp dir");
        let limit = 64 * 1024;
        let session = bash_with_limit(dir.path(), limit);
        wait_for(&session, "rec$");
        // A header drawn once, then about 1 MB of output that never scrolls it away: only the
        // keyframe still holds the header when the recording is replayed.
        session
            .write(b"clear; echo HEADER-$((1)); for i in $(seq 1 40000); do printf '\\e[%d;1H\\e[3%dm%05d\\e[0m' $((i % 8 + 3)) $((i % 8)) $i; done; printf '\\e[11;1H'; echo end-$((5))\r")
            .expect("typed");
        wait_for(&session, "end-5\nrec$");
        assert!(session.lock().term.text().starts_with("HEADER-1"));
        let timeline = session.lock().recording.clone();
        assert!(timeline.dropped_events() > 0, "nothing was dropped");
        // Cut only at keyframes: the limit plus the output since the last one.
        let bound = limit + timeline.keyframe_interval();
        assert!(
            timeline.output_bytes() <= bound,
            "{} bytes held",
            timeline.output_bytes()
        );
        assert!(matches!(
            timeline.start(),
            shotty::recording::Start::Keyframe(_)
        ));

        let cast = dir.path().join("long.cast");
        let mut file = Vec::new();
        write_v2(&timeline, &CastInfo::default(), &mut file).expect("cast");
        std::fs::write(&cast, &file).expect("saved");
        let Some(played) = super::asciinema_cat(&cast) else {
            return;
        };
        let mut replayed = Terminal::new(60, 12);
        replayed.advance(&played);
        let live = session.lock();
        assert_eq!(replayed.text(), live.term.text());
        let (a, b) = (replayed.snapshot(), live.term.snapshot());
        assert_eq!((a.rows, a.cursor), (b.rows, b.cursor));
    }

    // Real programs recorded through the session core; each exported cast must play back, in
    // asciinema and in shotty's own reader, to the screen the session showed (SPEC §9).

    /// Waits (at most 10 s) until the program has ended and all its output is on the screen.
    fn wait_ended(session: &Session) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut live = session.lock();
        while !live.state.is_ended() {
            assert!(
                Instant::now() < deadline,
                "still running:\n{}",
                live.term.text()
            );
            live = session.wait_lifecycle(live, Some(deadline));
        }
    }

    /// The recording so far and the screen it produced, taken under one lock so they agree;
    /// a running program is first given a moment to finish drawing.
    fn checkpoint(session: &Session) -> (Timeline, Snapshot) {
        let live = session.settle(Duration::from_secs(2));
        (live.recording.clone(), live.term.snapshot())
    }

    /// An exported cast's events: time, code, data.
    struct Cast(Vec<(f64, String, String)>);

    impl Cast {
        /// The data of the events with `code`, joined.
        fn joined(&self, code: &str) -> String {
            self.0
                .iter()
                .filter(|(_, c, _)| c == code)
                .map(|(_, _, d)| d.as_str())
                .collect()
        }
    }

    /// Exports `timeline` as `dir/name.cast`, plays it with the real `asciinema cat` and with
    /// shotty's [`CastReader`] into fresh terminals of the cast's size, and checks that both
    /// show `screen` — so the writer and asciinema's reader agree on the same bytes. Also checks
    /// the cast's times never go back and it holds output; returns its events.
    fn replays_to(dir: &Path, name: &str, timeline: &Timeline, screen: &Snapshot) -> Cast {
        let mut file = Vec::new();
        write_v2(timeline, &CastInfo::default(), &mut file).expect("cast");
        let cast = dir.join(format!("{name}.cast"));
        std::fs::write(&cast, &file).expect("saved");

        let text = std::str::from_utf8(&file).expect("a cast is UTF-8");
        let mut lines = text.lines();
        let header: serde_json::Value =
            serde_json::from_str(lines.next().expect("header")).expect("header JSON");
        let size = |key: &str| header[key].as_u64().expect("size in the header") as usize;
        let (width, height) = (size("width"), size("height"));
        assert_eq!(
            (width, height),
            (screen.width as usize, screen.height as usize)
        );
        let events = Cast(
            lines
                .map(|l| {
                    let (at, code, data): (f64, String, String) =
                        serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}"));
                    (at, code, data)
                })
                .collect(),
        );
        assert!(
            events.0.windows(2).all(|w| w[0].0 <= w[1].0),
            "{name}: event times go back"
        );
        // Every output byte is in the cast, in order: a lost chunk that a later redraw happens
        // to cover (a progress bar's, a prompt's) would not show on the final screen.
        let mut output = match timeline.start() {
            Start::Blank { .. } => Vec::new(),
            Start::Keyframe(k) => k.bytes.clone(),
        };
        for e in timeline.events() {
            if let Event::Output(bytes) = &e.event {
                output.extend_from_slice(bytes);
            }
        }
        assert!(!output.is_empty(), "{name}: no output recorded");
        assert!(
            events.joined("o") == String::from_utf8_lossy(&output),
            "{name}: the cast's output events are not the recorded output"
        );

        if let Some(played) = super::asciinema_cat(&cast) {
            let mut replayed = Terminal::new(width, height);
            replayed.advance(&played);
            assert_eq!(
                &replayed.snapshot(),
                screen,
                "{name}: asciinema's replay differs from the session's screen"
            );
        }
        let mut reader = CastReader::new(std::io::Cursor::new(file)).expect("a valid cast");
        let mut replayed = Terminal::new(width, height);
        reader.play(&mut replayed, None).expect("plays");
        assert_eq!(
            &replayed.snapshot(),
            screen,
            "{name}: shotty's replay differs from the session's screen"
        );
        events
    }

    #[test]
    fn vim_is_recorded_and_replays_inside_and_after_it() {
        if crate::needs::program("vim").is_none() {
            return;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        // No vimrc, plugins, swap file or viminfo: nothing but the keys below decides the screen.
        let session = start(
            dir.path(),
            &["vim", "-u", "NONE", "-N", "-n", "-i", "NONE", "--noplugin"],
            &[],
            DEFAULT_RECORD_LIMIT,
        );
        // Each step waits for vim's reaction, so no key is read before vim is in the mode the
        // next one needs (an Esc followed by more keys at once could be taken for an Alt key).
        // An empty reaction: the mode line no longer shows insert mode.
        let steps = [
            ("i", "-- INSERT --"),
            (
                "first line\rsecond \u{4e2d}\u{6587}\rthird line",
                "third line",
            ),
            ("\x1b", ""),
            (":set number\r", "  3 third line"),
        ];
        wait_until(&session, "vim's empty buffer", |t| t.contains('~'));
        let mut typed = String::new();
        for (keys, reaction) in steps {
            session.write(keys.as_bytes()).expect("typed");
            typed.push_str(keys);
            if reaction.is_empty() {
                wait_until(&session, "insert mode to end", |t| {
                    !t.contains("-- INSERT --")
                });
            } else {
                wait_for(&session, reaction);
            }
        }
        let (timeline, inside) = checkpoint(&session);
        assert!(inside.alternate_screen, "vim draws on the alternate screen");
        assert!(
            inside.rows[0]
                .cells
                .iter()
                .map(|c| &*c.t)
                .collect::<String>()
                .starts_with("  1 first line")
        );
        let cast = replays_to(dir.path(), "vim-inside", &timeline, &inside);
        assert_eq!(cast.joined("i"), typed);

        session.write(b":q!\r").expect("typed");
        typed.push_str(":q!\r");
        wait_ended(&session);
        let (timeline, after) = checkpoint(&session);
        assert!(!after.alternate_screen, "vim left the alternate screen");
        let cast = replays_to(dir.path(), "vim-after", &timeline, &after);
        assert_eq!(cast.joined("i"), typed);
    }

    #[test]
    fn less_is_recorded_and_replays_inside_and_after_it() {
        if crate::needs::program("less").is_none() {
            return;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let lines: String = (1..=200)
            .map(|i| {
                format!(
                    "\x1b[1;3{}mline {i}\x1b[0m \x1b[38;5;{i}m#{i}\x1b[0m\n",
                    i % 7 + 1
                )
            })
            .collect();
        std::fs::write(dir.path().join("lines.txt"), lines).expect("file written");
        // LESS and the pre/post-processors cleared: only -R decides how less shows the file.
        let session = start(
            dir.path(),
            &["less", "-R", "lines.txt"],
            &[
                ("LESS", ""),
                ("LESSOPEN", ""),
                ("LESSCLOSE", ""),
                ("LESSHISTFILE", "-"),
            ],
            DEFAULT_RECORD_LIMIT,
        );
        wait_for(&session, "line 11 ");
        let mut typed = String::new();
        for (keys, reaction) in [
            (" ", "line 22 "),
            (" ", "line 33 "),
            ("/line 150\r", "line 160 "),
        ] {
            session.write(keys.as_bytes()).expect("typed");
            typed.push_str(keys);
            wait_for(&session, reaction);
        }
        let (timeline, inside) = checkpoint(&session);
        assert!(
            inside.alternate_screen,
            "less pages on the alternate screen"
        );
        let cast = replays_to(dir.path(), "less-inside", &timeline, &inside);
        assert_eq!(cast.joined("i"), typed);

        session.write(b"q").expect("typed");
        typed.push('q');
        wait_ended(&session);
        let (timeline, after) = checkpoint(&session);
        assert!(!after.alternate_screen, "less left the alternate screen");
        let cast = replays_to(dir.path(), "less-after", &timeline, &after);
        assert_eq!(cast.joined("i"), typed);
    }

    #[test]
    fn a_rich_progress_bar_is_recorded_and_replays() {
        let Some(python) = crate::needs::python("rich.progress") else {
            return;
        };
        let dir = tempfile::tempdir().expect("temp dir");
        // rich redraws the bar from its own refresh thread while the loop sleeps (25 times a
        // second here: a few dozen chunks), cursor hidden and moved, colours in truecolor
        // (COLORTERM).
        let script = "import time\n\
            from rich.console import Console\n\
            from rich.progress import track\n\
            console = Console(force_terminal=True)\n\
            for _ in track(range(40), description='Working', console=console,\n\
                           refresh_per_second=25):\n    \
                time.sleep(0.02)\n\
            console.print('[bold green]done[/] \u{2714}')\n";
        let session = start(
            dir.path(),
            &[&python.to_string_lossy(), "-c", script],
            &[],
            DEFAULT_RECORD_LIMIT,
        );
        wait_ended(&session);
        let (timeline, end) = checkpoint(&session);
        let text = session.lock().term.text();
        assert!(text.contains("Working") && text.contains("100%"), "{text}");
        let outputs = timeline
            .events()
            .filter(|e| matches!(e.event, Event::Output(_)))
            .count();
        assert!(outputs > 5, "the bar was drawn {outputs} times");
        let cast = replays_to(dir.path(), "rich", &timeline, &end);
        assert_eq!(cast.joined("i"), "");
    }

    #[test]
    fn bash_colours_are_recorded_and_replay() {
        let dir = tempfile::tempdir().expect("temp dir");
        let listing = dir.path().join("listing");
        std::fs::create_dir_all(listing.join("sub")).expect("dirs");
        std::fs::write(listing.join("notes.txt"), "").expect("file");
        std::fs::write(listing.join("run.sh"), "").expect("file");
        std::fs::set_permissions(
            listing.join("run.sh"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .expect("executable");
        std::os::unix::fs::symlink("notes.txt", listing.join("link")).expect("symlink");
        let session = bash(dir.path());
        wait_for(&session, "rec$");
        // Each command waits for its result before the next is typed, so the screen's layout
        // (which lines have scrolled away) does not depend on when bash echoes typed-ahead text.
        let steps = [
            // Characters written in parts (a 3-byte one, a 4-byte one) with a pause between, so
            // the session reads each part as its own chunk: the cast must write them whole.
            (
                "printf 'split \\xe6'; sleep 0.1; printf '\\x96\\x87 \\xf0\\x9f'; sleep 0.1; \
                 printf '\\x98\\x80 joined\\n'\r",
                "split \u{6587} \u{1f600} joined\nrec$",
            ),
            // ls's colours fixed here (one 256-colour entry), not taken from the machine's.
            (
                "export LS_COLORS='di=1;34:ln=1;36:ex=1;32:*.txt=38;5;208'; ls --color=always listing\r",
                "sub\nrec$",
            ),
            (
                "printf '\\e[38;5;196mred\\e[0m \\e[48;5;21mblue\\e[0m \\e[38;2;255;128;0morange\\e[0m \
                 \\e[1;4;48;2;10;20;30;38;2;200;220;240mboth\\e[0m \\xe4\\xb8\\xad\\n'; echo done-$((1))\r",
                "done-1\nrec$",
            ),
        ];
        let mut typed = String::new();
        for (command, reaction) in steps {
            session.write(command.as_bytes()).expect("typed");
            typed.push_str(command);
            wait_for(&session, reaction);
        }
        session.write(b"exit\r").expect("typed");
        typed.push_str("exit\r");
        wait_ended(&session);
        let (timeline, end) = checkpoint(&session);
        let colours: Vec<_> = end.styles.iter().flat_map(|s| [&s.fg, &s.bg]).collect();
        for colour in [
            ColorValue::Index(208),
            ColorValue::Index(196),
            ColorValue::Index(21),
            ColorValue::Rgb("#ff8000".into()),
            ColorValue::Rgb("#0a141e".into()),
        ] {
            assert!(
                colours.contains(&&Some(colour.clone())),
                "no {colour:?} drawn"
            );
        }
        let cast = replays_to(dir.path(), "bash-colour", &timeline, &end);
        assert_eq!(cast.joined("i"), typed);
    }
}
