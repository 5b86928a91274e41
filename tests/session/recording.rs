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
        let mut replayed = Terminal::new(width.into(), height.into());
        replayed.advance(&asciinema_cat(&cast));
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

    use std::time::{Duration, Instant};

    use shotty::Terminal;
    use shotty::input::CastReader;
    use shotty::pty::ColorEnvFlags;
    use shotty::recording::Event;
    use shotty::recording::asciicast::{CastInfo, write_v2};
    use shotty::session::instance::DEFAULT_RECORD_LIMIT;
    use shotty::session::{Session, SessionSpec};

    fn bash(dir: &std::path::Path) -> std::sync::Arc<Session> {
        bash_with_limit(dir, DEFAULT_RECORD_LIMIT)
    }

    fn bash_with_limit(dir: &std::path::Path, record_limit: usize) -> std::sync::Arc<Session> {
        let spec = SessionSpec {
            command: ["bash", "--norc", "--noprofile", "-i"]
                .map(String::from)
                .to_vec(),
            width: 60,
            height: 12,
            cwd: Some(dir.to_path_buf()),
            env: vec![
                ("PS1".into(), "\\[\\e[1;32m\\]rec\\[\\e[0m\\]$ ".into()),
                ("HOME".into(), dir.display().to_string()),
                ("HISTFILE".into(), "/dev/null".into()),
            ],
            color_env: ColorEnvFlags::default(),
            scrollback: 1000,
            timeout: None,
            record_limit,
        };
        Session::start(format!("s_rec{}", std::process::id()), spec).expect("bash starts")
    }

    fn wait_for(session: &Session, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut live = session.lock();
        while !live.term.text().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "no {needle:?}:\n{}",
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
        let mut replayed = Terminal::new(60, 12);
        replayed.advance(&super::asciinema_cat(&cast));
        assert_eq!(replayed.snapshot(), session.lock().term.snapshot());

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
        let mut replayed = Terminal::new(60, 12);
        replayed.advance(&super::asciinema_cat(&cast));
        let live = session.lock();
        assert_eq!(replayed.text(), live.term.text());
        let (a, b) = (replayed.snapshot(), live.term.snapshot());
        assert_eq!((a.rows, a.cursor), (b.rows, b.cursor));
    }
}
