use super::*;

const NORMAL: KeyModes = KeyModes {
    cursor_keys_application: false,
    keypad_application: false,
    kitty_flags: 0,
};
const APP_CURSOR: KeyModes = KeyModes {
    cursor_keys_application: true,
    keypad_application: false,
    kitty_flags: 0,
};
const APP_KEYPAD: KeyModes = KeyModes {
    cursor_keys_application: false,
    keypad_application: true,
    kitty_flags: 0,
};
const ALL_APP: KeyModes = KeyModes {
    cursor_keys_application: true,
    keypad_application: true,
    kitty_flags: 0,
};
const ALL_MODES: [KeyModes; 4] = [NORMAL, APP_CURSOR, APP_KEYPAD, ALL_APP];

#[track_caller]
fn enc(name: &str, modes: KeyModes) -> Vec<u8> {
    match encode_keys(name, modes) {
        Ok(bytes) => bytes,
        Err(e) => panic!("{name}: {e}"),
    }
}

/// `name` sends `expected` in every mode.
#[track_caller]
fn same_in_all_modes(name: &str, expected: &[u8]) {
    for modes in ALL_MODES {
        assert_eq!(
            enc(name, modes),
            expected,
            "{name} in {modes:?}: got {:?}",
            String::from_utf8_lossy(&enc(name, modes))
        );
    }
}

#[track_caller]
#[test]
fn tmux_spellings_are_the_same_keys() {
    let m = KeyModes::default();
    for (tmux, ours) in [
        ("C-c", "Ctrl+c"),
        ("M-x", "Alt+x"),
        ("S-Tab", "Shift+Tab"),
        ("C-M-Left", "Ctrl+Alt+Left"),
        ("M-Enter", "Alt+Enter"),
        ("C--", "Ctrl+-"),
        ("S-F5", "Shift+F5"),
    ] {
        assert_eq!(enc(tmux, m), enc(ours, m), "{tmux}");
    }
    // Not tmux spellings: the key `-`, a lone prefix.
    assert_eq!(enc("-", m), b"-");
    refused("C-");
}

#[test]
fn an_unknown_name_is_answered_with_the_nearest_ones() {
    let e = refused("Entr");
    assert!(e.message.contains("did you mean Enter"), "{e}");
    let e = refused("pagedwn");
    assert!(e.message.contains("did you mean PageDown"), "{e}");
    let e = refused("Escpe");
    assert!(e.message.contains("did you mean Escape"), "{e}");
    // The name is said once, by the prefix.
    let line = refused("Entr").to_string();
    assert_eq!(line.matches("Entr").count(), 1, "{line}");
    let line = refused("F13").to_string();
    assert_eq!(line.matches("F13").count(), 1, "{line}");
    assert!(!refused("zzzzzz").message.contains("did you mean"));
}

fn refused(name: &str) -> KeyError {
    match parse_key(name) {
        Ok(combo) => panic!("{name:?} parsed as {combo:?}"),
        Err(e) => e,
    }
}

// --- Single-character keys (ctlseqs: the keys that send ASCII) -----------------------

#[test]
fn editing_keys_that_send_one_byte() {
    same_in_all_modes("Enter", b"\r");
    same_in_all_modes("Return", b"\r");
    same_in_all_modes("Tab", b"\t");
    same_in_all_modes("Escape", b"\x1b");
    same_in_all_modes("Esc", b"\x1b");
    same_in_all_modes("Backspace", b"\x7f");
    same_in_all_modes("Space", b" ");
    same_in_all_modes(" ", b" ");
}

#[test]
fn modified_one_byte_keys() {
    same_in_all_modes("Shift+Tab", b"\x1b[Z");
    same_in_all_modes("Ctrl+Shift+Tab", b"\x1b[Z");
    same_in_all_modes("Alt+Shift+Tab", b"\x1b[Z");
    same_in_all_modes("Ctrl+Backspace", b"\x08");
    same_in_all_modes("Alt+Backspace", b"\x1b\x7f");
    same_in_all_modes("Ctrl+Alt+Backspace", b"\x1b\x08");
    same_in_all_modes("Shift+Backspace", b"\x7f");
    same_in_all_modes("Ctrl+Space", b"\x00");
    same_in_all_modes("Ctrl+ ", b"\x00");
    same_in_all_modes("Alt+Space", b"\x1b ");
    same_in_all_modes("Ctrl+Alt+Space", b"\x1b\x00");
    same_in_all_modes("Shift+Space", b" ");
    same_in_all_modes("Alt+Enter", b"\x1b\r");
    same_in_all_modes("Meta+Enter", b"\x1b\r");
    same_in_all_modes("Alt+Tab", b"\x1b\t");
    same_in_all_modes("Alt+Escape", b"\x1b\x1b");
    // xterm without modifyOtherKeys: Ctrl and Shift do not change these keys.
    same_in_all_modes("Ctrl+Enter", b"\r");
    same_in_all_modes("Shift+Enter", b"\r");
    same_in_all_modes("Ctrl+Tab", b"\t");
    same_in_all_modes("Ctrl+Escape", b"\x1b");
}

#[test]
fn printable_characters() {
    same_in_all_modes("a", b"a");
    same_in_all_modes("A", b"A");
    same_in_all_modes("z", b"z");
    same_in_all_modes("0", b"0");
    same_in_all_modes("~", b"~");
    same_in_all_modes("?", b"?");
    same_in_all_modes("é", "é".as_bytes());
    same_in_all_modes("日", "日".as_bytes());
    same_in_all_modes("😀", "😀".as_bytes());
    same_in_all_modes("+", b"+");
    same_in_all_modes("Plus", b"+");
    same_in_all_modes("plus", b"+");
    same_in_all_modes("-", b"-");
}

#[test]
fn every_printable_ascii_character_is_a_key() {
    for b in 0x21u8..0x7f {
        let name = (b as char).to_string();
        same_in_all_modes(&name, &[b]);
        same_in_all_modes(&format!("Alt+{name}"), &[0x1b, b]);
    }
}

#[test]
fn shift_on_characters() {
    same_in_all_modes("Shift+a", b"A");
    same_in_all_modes("Shift+A", b"A");
    same_in_all_modes("Shift+é", "É".as_bytes());
    same_in_all_modes("Shift+1", b"1");
    same_in_all_modes("Shift+/", b"/");
    // ß has no one-character capital: sent as is.
    same_in_all_modes("Shift+ß", "ß".as_bytes());
    same_in_all_modes("Alt+Shift+x", b"\x1bX");
}

#[test]
fn alt_and_meta_prefix_escape() {
    same_in_all_modes("Alt+x", b"\x1bx");
    same_in_all_modes("Meta+x", b"\x1bx");
    same_in_all_modes("Option+x", b"\x1bx");
    same_in_all_modes("Alt+Meta+x", b"\x1bx");
    same_in_all_modes("Alt+X", b"\x1bX");
    same_in_all_modes("Alt+é", "\x1bé".as_bytes());
    same_in_all_modes("Alt++", b"\x1b+");
    same_in_all_modes("Alt+Plus", b"\x1b+");
}

// --- Ctrl + character: C0 codes -------------------------------------------------------

#[test]
fn ctrl_letters_are_c0_codes() {
    for (i, c) in ('a'..='z').enumerate() {
        let code = i as u8 + 1;
        same_in_all_modes(&format!("Ctrl+{c}"), &[code]);
        same_in_all_modes(&format!("Ctrl+{}", c.to_ascii_uppercase()), &[code]);
        same_in_all_modes(&format!("Ctrl+Shift+{c}"), &[code]);
        same_in_all_modes(&format!("Ctrl+Alt+{c}"), &[0x1b, code]);
    }
    same_in_all_modes("Ctrl+c", b"\x03");
    same_in_all_modes("Ctrl+C", b"\x03");
    same_in_all_modes("Ctrl+A", b"\x01");
    same_in_all_modes("Ctrl+Z", b"\x1a");
    same_in_all_modes("Ctrl+Alt+a", b"\x1b\x01");
    same_in_all_modes("Ctrl+Meta+a", b"\x1b\x01");
}

#[test]
fn ctrl_punctuation_and_digits() {
    for (name, code) in [
        ("Ctrl+@", 0x00u8),
        ("Ctrl+2", 0x00),
        ("Ctrl+`", 0x00),
        ("Ctrl+[", 0x1b),
        ("Ctrl+3", 0x1b),
        ("Ctrl+{", 0x1b),
        ("Ctrl+\\", 0x1c),
        ("Ctrl+4", 0x1c),
        ("Ctrl+|", 0x1c),
        ("Ctrl+]", 0x1d),
        ("Ctrl+5", 0x1d),
        ("Ctrl+}", 0x1d),
        ("Ctrl+^", 0x1e),
        ("Ctrl+6", 0x1e),
        ("Ctrl+~", 0x1e),
        ("Ctrl+_", 0x1f),
        ("Ctrl+-", 0x1f),
        ("Ctrl+/", 0x1f),
        ("Ctrl+7", 0x1f),
        ("Ctrl+?", 0x7f),
        ("Ctrl+8", 0x7f),
    ] {
        same_in_all_modes(name, &[code]);
        same_in_all_modes(&format!("Alt+{name}"), &[0x1b, code]);
    }
}

#[test]
fn ctrl_without_a_control_code_is_refused() {
    for name in [
        "Ctrl+1",
        "Ctrl+9",
        "Ctrl+0",
        "Ctrl+.",
        "Ctrl+,",
        "Ctrl+=",
        "Ctrl++",
        "Ctrl+Plus",
        "Ctrl+é",
        "Ctrl+!",
        "Ctrl+'",
        "Ctrl+;",
        "Ctrl+Alt+1",
        "Ctrl+日",
    ] {
        let e = refused(name);
        assert_eq!(e.name, name);
        assert!(e.message.contains("no control code"), "{name}: {e}");
    }
}

// --- Cursor keys (DECCKM) --------------------------------------------------------------

#[test]
fn cursor_keys_follow_decckm() {
    for (names, fin) in [
        (&["Up", "ArrowUp"][..], b'A'),
        (&["Down", "ArrowDown"][..], b'B'),
        (&["Right", "ArrowRight"][..], b'C'),
        (&["Left", "ArrowLeft"][..], b'D'),
        (&["Home"][..], b'H'),
        (&["End"][..], b'F'),
    ] {
        for name in names {
            assert_eq!(enc(name, NORMAL), [0x1b, b'[', fin], "{name}");
            assert_eq!(enc(name, APP_KEYPAD), [0x1b, b'[', fin], "{name}");
            assert_eq!(enc(name, APP_CURSOR), [0x1b, b'O', fin], "{name}");
            assert_eq!(enc(name, ALL_APP), [0x1b, b'O', fin], "{name}");
        }
    }
}

#[test]
fn modified_cursor_keys_ignore_decckm() {
    same_in_all_modes("Shift+Up", b"\x1b[1;2A");
    same_in_all_modes("Alt+Down", b"\x1b[1;3B");
    same_in_all_modes("Alt+Shift+Right", b"\x1b[1;4C");
    same_in_all_modes("Ctrl+Left", b"\x1b[1;5D");
    same_in_all_modes("Ctrl+Shift+Left", b"\x1b[1;6D");
    same_in_all_modes("Ctrl+Alt+Left", b"\x1b[1;7D");
    same_in_all_modes("Ctrl+Alt+Shift+Left", b"\x1b[1;8D");
    same_in_all_modes("Meta+Home", b"\x1b[1;9H");
    same_in_all_modes("Meta+Shift+End", b"\x1b[1;10F");
    same_in_all_modes("Meta+Alt+Up", b"\x1b[1;11A");
    same_in_all_modes("Meta+Alt+Shift+Up", b"\x1b[1;12A");
    same_in_all_modes("Meta+Ctrl+Up", b"\x1b[1;13A");
    same_in_all_modes("Meta+Ctrl+Shift+Up", b"\x1b[1;14A");
    same_in_all_modes("Meta+Ctrl+Alt+Up", b"\x1b[1;15A");
    same_in_all_modes("Meta+Ctrl+Alt+Shift+Up", b"\x1b[1;16A");
    same_in_all_modes("Ctrl+Home", b"\x1b[1;5H");
    same_in_all_modes("Shift+End", b"\x1b[1;2F");
    same_in_all_modes("Alt+ArrowUp", b"\x1b[1;3A");
}

#[test]
fn modifier_order_does_not_matter() {
    let expected = b"\x1b[1;7D";
    for name in [
        "Ctrl+Alt+Left",
        "Alt+Ctrl+Left",
        "alt+ctrl+left",
        "CONTROL+OPTION+LEFT",
        "Control+Alt+ArrowLeft",
    ] {
        same_in_all_modes(name, expected);
    }
    for name in [
        "Ctrl+Alt+Shift+Meta+F5",
        "Meta+Shift+Alt+Ctrl+F5",
        "Shift+Meta+Ctrl+Alt+F5",
    ] {
        assert_eq!(enc(name, NORMAL), b"\x1b[15;16~", "{name}");
    }
}

// --- Editing keypad and function keys ---------------------------------------------------

#[test]
fn editing_keys() {
    for (names, code) in [
        (&["Insert", "Ins"][..], "2"),
        (&["Delete", "Del"][..], "3"),
        (&["PageUp", "PgUp"][..], "5"),
        (&["PageDown", "PgDn"][..], "6"),
    ] {
        for name in names {
            same_in_all_modes(name, format!("\x1b[{code}~").as_bytes());
            same_in_all_modes(
                &format!("Shift+{name}"),
                format!("\x1b[{code};2~").as_bytes(),
            );
            same_in_all_modes(
                &format!("Ctrl+Alt+{name}"),
                format!("\x1b[{code};7~").as_bytes(),
            );
            same_in_all_modes(
                &format!("Meta+{name}"),
                format!("\x1b[{code};9~").as_bytes(),
            );
        }
    }
    same_in_all_modes("Ctrl+Alt+Del", b"\x1b[3;7~");
    same_in_all_modes("Ctrl+PageDown", b"\x1b[6;5~");
}

#[test]
fn function_keys() {
    let table: [(&str, &[u8], &[u8]); 12] = [
        ("F1", b"\x1bOP", b"\x1b[1;5P"),
        ("F2", b"\x1bOQ", b"\x1b[1;5Q"),
        ("F3", b"\x1bOR", b"\x1b[1;5R"),
        ("F4", b"\x1bOS", b"\x1b[1;5S"),
        ("F5", b"\x1b[15~", b"\x1b[15;5~"),
        ("F6", b"\x1b[17~", b"\x1b[17;5~"),
        ("F7", b"\x1b[18~", b"\x1b[18;5~"),
        ("F8", b"\x1b[19~", b"\x1b[19;5~"),
        ("F9", b"\x1b[20~", b"\x1b[20;5~"),
        ("F10", b"\x1b[21~", b"\x1b[21;5~"),
        ("F11", b"\x1b[23~", b"\x1b[23;5~"),
        ("F12", b"\x1b[24~", b"\x1b[24;5~"),
    ];
    for (name, plain, ctrl) in table {
        same_in_all_modes(name, plain);
        same_in_all_modes(&name.to_lowercase(), plain);
        same_in_all_modes(&format!("Ctrl+{name}"), ctrl);
    }
    same_in_all_modes("Shift+F1", b"\x1b[1;2P");
    same_in_all_modes("Alt+F4", b"\x1b[1;3S");
    same_in_all_modes("Ctrl+F5", b"\x1b[15;5~");
    same_in_all_modes("Shift+F12", b"\x1b[24;2~");
    same_in_all_modes("Meta+F10", b"\x1b[21;9~");
    same_in_all_modes("Ctrl+Alt+Shift+Meta+F3", b"\x1b[1;16R");
}

// --- Keypad (DECKPAM / DECNKM) ---------------------------------------------------------

const KEYPAD: [(&str, u8, u8); 17] = [
    ("KP0", b'0', b'p'),
    ("KP1", b'1', b'q'),
    ("KP2", b'2', b'r'),
    ("KP3", b'3', b's'),
    ("KP4", b'4', b't'),
    ("KP5", b'5', b'u'),
    ("KP6", b'6', b'v'),
    ("KP7", b'7', b'w'),
    ("KP8", b'8', b'x'),
    ("KP9", b'9', b'y'),
    ("KPDecimal", b'.', b'n'),
    ("KPEnter", b'\r', b'M'),
    ("KPAdd", b'+', b'k'),
    ("KPSubtract", b'-', b'm'),
    ("KPMultiply", b'*', b'j'),
    ("KPDivide", b'/', b'o'),
    ("KPSeparator", b',', b'l'),
];

#[test]
fn keypad_follows_deckpam() {
    for (name, numeric, application) in KEYPAD {
        for spelling in [name.to_string(), name.to_lowercase(), name.to_uppercase()] {
            assert_eq!(enc(&spelling, NORMAL), [numeric], "{spelling}");
            assert_eq!(enc(&spelling, APP_CURSOR), [numeric], "{spelling}");
            assert_eq!(
                enc(&spelling, APP_KEYPAD),
                [0x1b, b'O', application],
                "{spelling}"
            );
            assert_eq!(
                enc(&spelling, ALL_APP),
                [0x1b, b'O', application],
                "{spelling}"
            );
        }
    }
}

#[test]
fn modified_keypad_keys() {
    // Numeric mode: Alt/Meta prefix ESC; Ctrl and Shift do not change the character.
    assert_eq!(enc("Alt+KP5", NORMAL), b"\x1b5");
    assert_eq!(enc("Meta+KPEnter", NORMAL), b"\x1b\r");
    assert_eq!(enc("Ctrl+KP5", NORMAL), b"5");
    assert_eq!(enc("Shift+KPAdd", NORMAL), b"+");
    // Application mode: xterm's SS3 with the modifier parameter.
    assert_eq!(enc("Ctrl+KP5", APP_KEYPAD), b"\x1bO5u");
    assert_eq!(enc("Alt+KPEnter", APP_KEYPAD), b"\x1bO3M");
    assert_eq!(enc("Shift+KP0", APP_KEYPAD), b"\x1bO2p");
    assert_eq!(enc("Meta+Ctrl+Alt+Shift+KPDivide", ALL_APP), b"\x1bO16o");
}

// --- Names ---------------------------------------------------------------------------

#[test]
fn every_listed_name_parses_in_every_case() {
    for &name in key_names() {
        for spelling in [name.to_string(), name.to_lowercase(), name.to_uppercase()] {
            let combo = parse_key(&spelling).unwrap_or_else(|e| panic!("{e}"));
            assert!(combo.modifiers().is_empty());
            for modes in ALL_MODES {
                assert!(!combo.encode(modes).is_empty(), "{spelling}");
            }
            for m in ["Alt", "Shift", "Meta"] {
                parse_key(&format!("{m}+{spelling}")).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
    assert!(key_names().contains(&"Enter"));
    assert!(key_names().contains(&"KPSeparator"));
    assert!(key_names().contains(&"ArrowLeft"));
    assert!(key_names().contains(&"F12"));
    assert!(!key_names().contains(&"F13"));
}

#[test]
fn every_key_except_ctrl_plus_and_characters_takes_ctrl() {
    for &name in key_names() {
        let result = parse_key(&format!("Ctrl+{name}"));
        if name == "Plus" {
            assert!(result.is_err());
        } else {
            result.unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

#[test]
fn aliases_encode_like_their_key() {
    for (alias, key) in [
        ("Return", "Enter"),
        ("Esc", "Escape"),
        ("Del", "Delete"),
        ("Ins", "Insert"),
        ("PgUp", "PageUp"),
        ("PgDn", "PageDown"),
        ("ArrowUp", "Up"),
        ("ArrowDown", "Down"),
        ("ArrowLeft", "Left"),
        ("ArrowRight", "Right"),
        ("Plus", "+"),
    ] {
        assert_eq!(parse_key(alias), parse_key(key), "{alias}");
        for modes in ALL_MODES {
            assert_eq!(enc(alias, modes), enc(key, modes));
            assert_eq!(
                enc(&format!("Alt+Shift+{alias}"), modes),
                enc(&format!("Alt+Shift+{key}"), modes)
            );
        }
    }
}

#[test]
fn names_are_case_insensitive() {
    for (a, b) in [
        ("enter", "Enter"),
        ("ENTER", "Enter"),
        ("ctrl+c", "Ctrl+C"),
        ("CTRL+c", "Ctrl+c"),
        ("shift+tab", "Shift+Tab"),
        ("ctrl+alt+left", "Ctrl+Alt+Left"),
        ("pagedown", "PageDown"),
        ("pgdn", "PageDown"),
        ("f5", "F5"),
        ("kpenter", "KPEnter"),
        ("Kp7", "KP7"),
        ("META+HOME", "Meta+Home"),
        ("arrowup", "Up"),
        ("esc", "Escape"),
    ] {
        assert_eq!(parse_key(a), parse_key(b), "{a} vs {b}");
        for modes in ALL_MODES {
            assert_eq!(enc(a, modes), enc(b, modes), "{a} vs {b}");
        }
    }
    // A character is sent as typed: only Ctrl makes its case irrelevant.
    assert_eq!(enc("a", NORMAL), b"a");
    assert_eq!(enc("A", NORMAL), b"A");
    assert_ne!(parse_key("a"), parse_key("A"));
}

#[test]
fn whitespace_around_names_is_ignored() {
    assert_eq!(enc(" Enter ", NORMAL), b"\r");
    assert_eq!(enc("Ctrl + c", NORMAL), b"\x03");
    assert_eq!(enc("\tCtrl+Alt+Left\n", NORMAL), b"\x1b[1;7D");
    assert_eq!(enc(" ", NORMAL), b" ");
    assert_eq!(enc("Alt+ ", NORMAL), b"\x1b ");
}

#[test]
fn display_round_trips() {
    for &name in key_names() {
        for mods in [
            "",
            "Ctrl+",
            "Alt+",
            "Shift+",
            "Meta+",
            "Ctrl+Alt+Shift+Meta+",
        ] {
            let Ok(combo) = parse_key(&format!("{mods}{name}")) else {
                continue;
            };
            let shown = combo.to_string();
            assert_eq!(parse_key(&shown), Ok(combo), "{shown}");
        }
    }
    assert_eq!(
        parse_key("alt+ctrl+left").unwrap().to_string(),
        "Ctrl+Alt+Left"
    );
    assert_eq!(parse_key("Ctrl+Alt++").unwrap_err().name, "Ctrl+Alt++");
    assert_eq!(parse_key("Alt++").unwrap().to_string(), "Alt+Plus");
    assert_eq!(parse_key("return").unwrap().to_string(), "Enter");
    assert_eq!(parse_key("Ctrl+C").unwrap().to_string(), "Ctrl+c");
    assert_eq!(parse_key("é").unwrap().to_string(), "é");
    assert_eq!(
        "Shift+Tab".parse::<KeyCombo>().unwrap().to_string(),
        "Shift+Tab"
    );
}

#[test]
fn combo_accessors_and_constructor() {
    let combo = parse_key("Ctrl+Alt+Left").unwrap();
    assert_eq!(combo.key(), Key::Left);
    assert_eq!(
        combo.modifiers(),
        Modifiers {
            ctrl: true,
            alt: true,
            ..Modifiers::NONE
        }
    );
    assert_eq!(combo.modifiers().param(), 7);
    assert_eq!(Modifiers::NONE.param(), 1);
    assert_eq!(KeyCombo::new(Key::Left, combo.modifiers()), Ok(combo));
    assert!(KeyCombo::new(Key::F(13), Modifiers::NONE).is_err());
    assert!(KeyCombo::new(Key::F(0), Modifiers::NONE).is_err());
    assert!(KeyCombo::new(Key::Char('\n'), Modifiers::NONE).is_err());
    let ctrl = Modifiers {
        ctrl: true,
        ..Modifiers::NONE
    };
    assert!(KeyCombo::new(Key::Char('1'), ctrl).is_err());
    assert_eq!(
        KeyCombo::new(Key::Char('C'), ctrl).unwrap(),
        parse_key("ctrl+c").unwrap()
    );
}

#[test]
fn key_modes_from_terminal_modes() {
    let mut modes = crate::term::Modes::default();
    assert_eq!(KeyModes::from(&modes), KeyModes::default());
    modes.cursor_keys_application = true;
    assert_eq!(KeyModes::from(&modes), APP_CURSOR);
    modes.keypad_application = true;
    assert_eq!(KeyModes::from(&modes), ALL_APP);
    modes.cursor_keys_application = false;
    assert_eq!(KeyModes::from(&modes), APP_KEYPAD);
}

#[test]
fn key_modes_follow_the_emulator() {
    let mut term = crate::term::Terminal::new(20, 5);
    let modes = |t: &crate::term::Terminal| KeyModes::from(t.screen().modes());
    assert_eq!(modes(&term), NORMAL);
    term.advance(b"\x1b[?1h");
    assert_eq!(enc("Up", modes(&term)), b"\x1bOA");
    term.advance(b"\x1b=");
    assert_eq!(enc("KP1", modes(&term)), b"\x1bOq");
    term.advance(b"\x1b[?1l\x1b>");
    assert_eq!(enc("Up", modes(&term)), b"\x1b[A");
    assert_eq!(enc("KP1", modes(&term)), b"1");
    term.advance(b"\x1b[?66h");
    assert_eq!(enc("KP1", modes(&term)), b"\x1bOq");
}

// --- Bad names -------------------------------------------------------------------------

#[test]
fn bad_names_are_refused() {
    for name in [
        "",
        "   ",
        "Foo",
        "F13",
        "F0",
        "F1a",
        "KP10",
        "KPFoo",
        "Ctrl+",
        "Ctrl+Shift+",
        "Shift+",
        "Ctrl+Foo",
        "Hyper+a",
        "Ctrl+Hyper+a",
        "Ctrl++a",
        "++",
        "+a",
        "C-",
        "c-c",
        "Ctrl-c",
        "ab",
        "Enter Enter",
        "\n",
        "\u{7}",
        "\u{1b}",
        "\u{7f}",
        "Alt+\u{1}",
        "Ctrl+1",
        "e\u{301}",
    ] {
        let e = refused(name);
        assert_eq!(e.name, name);
        let line = e.to_string();
        assert!(!line.contains('\n'), "{line:?}");
        assert!(line.starts_with("unsupported key \""), "{line}");
        assert!(!e.message.is_empty());
    }
}

#[test]
fn error_messages_name_the_key_and_suggest_valid_ones() {
    let e = refused("Foo");
    assert_eq!(e.to_string().lines().count(), 1);
    assert!(e.to_string().contains("\"Foo\""), "{e}");
    for hint in ["Enter", "Tab", "F1-F12", "Ctrl+"] {
        assert!(e.message.contains(hint), "{e}");
    }
    let e = refused("F13");
    assert!(e.message.contains("F1-F12"), "{e}");
    let e = refused("Ctrl+");
    assert!(e.message.contains("missing key"), "{e}");
    let e = refused("Hyper+a");
    assert!(e.message.contains("unknown modifier \"Hyper\""), "{e}");
    let e = refused("Ctrl+Shift+");
    assert!(e.message.contains("missing key"), "{e}");
    let e = refused("Ctrl++a");
    assert!(e.message.contains("empty modifier"), "{e}");
    // Control characters and long names stay on one short line.
    let e = refused("a\nb");
    assert_eq!(
        e.to_string(),
        "unsupported key \"a\\nb\": unknown key; ".to_string() + EXAMPLES
    );
    let long = "x".repeat(10_000);
    let e = refused(&long);
    assert_eq!(e.name, long);
    assert!(e.to_string().len() < 600, "{}", e.to_string().len());
    assert_eq!(KeyError::CODE, "unsupported_key");
}

// --- Paste -----------------------------------------------------------------------------

#[test]
fn paste_without_bracketed_mode() {
    assert_eq!(paste_bytes("hello", false), b"hello");
    assert_eq!(paste_bytes("", false), b"");
    assert_eq!(paste_bytes("é日", false), "é日".as_bytes());
    assert_eq!(paste_bytes("a\nb\r\nc\rd\n", false), b"a\rb\rc\rd\r");
    // Nothing to end early: the text is sent as is.
    assert_eq!(paste_bytes("x\x1b[201~y", false), b"x\x1b[201~y");
}

#[test]
fn paste_with_bracketed_mode() {
    assert_eq!(paste_bytes("hello", true), b"\x1b[200~hello\x1b[201~");
    assert_eq!(paste_bytes("", true), b"\x1b[200~\x1b[201~");
    assert_eq!(paste_bytes("a\nb", true), b"\x1b[200~a\rb\x1b[201~");
    assert_eq!(
        paste_bytes("tab\there é", true),
        "\x1b[200~tab\there é\x1b[201~".as_bytes()
    );
}

#[test]
fn paste_cannot_end_itself_early() {
    assert_eq!(
        paste_bytes("evil\x1b[201~rm -rf /\n", true),
        b"\x1b[200~evilrm -rf /\r\x1b[201~"
    );
    assert_eq!(
        paste_bytes("\x1b[201~\x1b[201~", true),
        b"\x1b[200~\x1b[201~"
    );
    // Removing one marker must not leave another one formed around it.
    assert_eq!(
        paste_bytes("\x1b[20\x1b[201~1~x", true),
        b"\x1b[200~x\x1b[201~"
    );
    assert_eq!(
        paste_bytes("\x1b\x1b[201~[201~!", true),
        b"\x1b[200~!\x1b[201~"
    );
    // A marker split by a line end that becomes CR is not a marker.
    assert_eq!(
        paste_bytes("\x1b[201\n~", true),
        b"\x1b[200~\x1b[201\r~\x1b[201~"
    );
    // Other escape sequences and the start marker are left alone.
    assert_eq!(
        paste_bytes("\x1b[200~\x1b[1m", true),
        b"\x1b[200~\x1b[200~\x1b[1m\x1b[201~"
    );
    for text in [
        "\x1b[201~",
        "a\x1b[201~b\x1b[201~c",
        "\x1b[2\x1b[201~01~",
        "\x1b[\x1b[201~201~",
    ] {
        let out = paste_bytes(text, true);
        let inner = &out[PASTE_START.len()..out.len() - PASTE_END.len()];
        assert!(
            !inner.windows(PASTE_END.len()).any(|w| w == PASTE_END),
            "{text:?} -> {:?}",
            String::from_utf8_lossy(&out)
        );
        assert!(out.ends_with(PASTE_END));
    }
}

// --- Kitty keyboard protocol -----------------------------------------------------------
//
// Expected bytes are written out from the spec (sw.kovidgoyal.net/kitty/keyboard-protocol):
// `CSI code ; modifiers[:event] ; text u`, modifiers 1 + Shift 1 + Alt 2 + Ctrl 4 + super 8.

mod kitty_protocol {
    use super::*;
    use crate::term::Terminal;

    fn flags(kitty_flags: u8) -> KeyModes {
        KeyModes {
            kitty_flags,
            ..KeyModes::default()
        }
    }

    /// Every (name, bytes) pair is what a press sends under `kitty_flags`.
    #[track_caller]
    fn presses(kitty_flags: u8, cases: &[(&str, &[u8])]) {
        for &(name, expected) in cases {
            let got = enc(name, flags(kitty_flags));
            assert_eq!(
                got,
                expected,
                "{name} with flags {kitty_flags}: got {:?}, want {:?}",
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(expected)
            );
        }
    }

    #[track_caller]
    fn event(name: &str, kitty_flags: u8, event: KeyEvent) -> Vec<u8> {
        match encode_key_event(name, flags(kitty_flags), event) {
            Ok(bytes) => bytes,
            Err(e) => panic!("{name} {event:?} with flags {kitty_flags}: {e}"),
        }
    }

    /// The flags the terminal reports to `CSI ? u`.
    fn query(term: &mut Terminal) -> String {
        let _ = term.take_replies();
        term.advance(b"\x1b[?u");
        String::from_utf8(term.take_replies()).unwrap()
    }

    // --- The emulator's flag stacks ---

    #[test]
    fn push_pop_set_and_query() {
        let mut t = Terminal::new(20, 5);
        assert_eq!(query(&mut t), "\x1b[?0u");
        t.advance(b"\x1b[>1u");
        assert_eq!(query(&mut t), "\x1b[?1u");
        assert_eq!(t.screen().modes().kitty_keyboard, 1);
        t.advance(b"\x1b[>13u");
        assert_eq!(query(&mut t), "\x1b[?13u");
        // Mode 2 sets bits, mode 3 clears them, mode 1 (and no mode) replaces.
        t.advance(b"\x1b[=2;2u");
        assert_eq!(query(&mut t), "\x1b[?15u");
        t.advance(b"\x1b[=12;3u");
        assert_eq!(query(&mut t), "\x1b[?3u");
        t.advance(b"\x1b[=16u");
        assert_eq!(query(&mut t), "\x1b[?16u");
        t.advance(b"\x1b[=8;1u");
        assert_eq!(query(&mut t), "\x1b[?8u");
        // An unknown mode changes nothing.
        t.advance(b"\x1b[=1;4u");
        assert_eq!(query(&mut t), "\x1b[?8u");
        // Pops go back through the pushes: the set replaced the top entry.
        t.advance(b"\x1b[<u");
        assert_eq!(query(&mut t), "\x1b[?1u");
        t.advance(b"\x1b[<1u");
        assert_eq!(query(&mut t), "\x1b[?0u");
        assert_eq!(t.screen().modes().kitty_keyboard, 0);
        // A push without flags pushes 0.
        t.advance(b"\x1b[>5u\x1b[>u");
        assert_eq!(query(&mut t), "\x1b[?0u");
        t.advance(b"\x1b[<u");
        assert_eq!(query(&mut t), "\x1b[?5u");
    }

    #[test]
    fn the_query_is_answered_before_a_following_da1() {
        let mut t = Terminal::new(20, 5);
        t.advance(b"\x1b[>1u\x1b[?u\x1b[c");
        assert_eq!(t.take_replies(), b"\x1b[?1u\x1b[?62;22c");
    }

    #[test]
    fn unknown_flag_bits_are_dropped() {
        let mut t = Terminal::new(20, 5);
        t.advance(b"\x1b[>255u");
        assert_eq!(query(&mut t), "\x1b[?31u");
        t.advance(b"\x1b[=96u");
        assert_eq!(query(&mut t), "\x1b[?0u");
    }

    #[test]
    fn popping_an_empty_stack_resets_the_flags() {
        let mut t = Terminal::new(20, 5);
        // Set without a push: popping empties the stack, the flags become 0.
        t.advance(b"\x1b[=5u");
        assert_eq!(query(&mut t), "\x1b[?5u");
        t.advance(b"\x1b[<u");
        assert_eq!(query(&mut t), "\x1b[?0u");
        t.advance(b"\x1b[<u");
        assert_eq!(query(&mut t), "\x1b[?0u");
        // Popping more than was pushed resets too.
        t.advance(b"\x1b[=4u\x1b[>1u\x1b[>3u\x1b[<5u");
        assert_eq!(query(&mut t), "\x1b[?0u");
        t.advance(b"\x1b[>3u\x1b[<u");
        assert_eq!(query(&mut t), "\x1b[?0u");
    }

    #[test]
    fn the_stack_is_bounded_and_drops_its_oldest_entries() {
        let mut t = Terminal::new(20, 5);
        for flags in 1..=20 {
            t.advance(format!("\x1b[>{flags}u").as_bytes());
        }
        assert_eq!(query(&mut t), "\x1b[?20u");
        assert_eq!(t.screen().kitty_keyboard().1.len(), 16);
        // The 16 entries under 20 are 4 … 19; 0, 1, 2 and 3 were dropped.
        t.advance(b"\x1b[<16u");
        assert_eq!(query(&mut t), "\x1b[?4u");
        t.advance(b"\x1b[<u");
        assert_eq!(query(&mut t), "\x1b[?0u");
    }

    #[test]
    fn each_screen_has_its_own_stack() {
        let mut t = Terminal::new(20, 5);
        t.advance(b"\x1b[>1u");
        t.advance(b"\x1b[?1049h");
        assert_eq!(query(&mut t), "\x1b[?0u");
        assert_eq!(t.screen().modes().kitty_keyboard, 0);
        t.advance(b"\x1b[>8u\x1b[>9u");
        assert_eq!(query(&mut t), "\x1b[?9u");
        t.advance(b"\x1b[?1049l");
        assert_eq!(query(&mut t), "\x1b[?1u");
        assert_eq!(t.screen().modes().kitty_keyboard, 1);
        assert_eq!(t.screen().kitty_keyboard(), (1, &[0][..]));
        // The alternate screen's stack is kept while the main screen is shown (as in kitty).
        t.advance(b"\x1b[?1049h");
        assert_eq!(query(&mut t), "\x1b[?9u");
        t.advance(b"\x1b[<u");
        assert_eq!(query(&mut t), "\x1b[?8u");
        // ?47 and ?1047 switch stacks as well.
        t.advance(b"\x1b[?1049l\x1b[?47h");
        assert_eq!(query(&mut t), "\x1b[?8u");
        t.advance(b"\x1b[?47l");
        assert_eq!(query(&mut t), "\x1b[?1u");
        t.advance(b"\x1b[?1047h");
        assert_eq!(query(&mut t), "\x1b[?8u");
        t.advance(b"\x1b[?1047l\x1b[<u");
        assert_eq!(query(&mut t), "\x1b[?0u");
    }

    #[test]
    fn a_full_reset_clears_both_stacks() {
        let mut t = Terminal::new(20, 5);
        t.advance(b"\x1b[>1u\x1b[?1049h\x1b[>8u");
        t.advance(b"\x1bc");
        assert_eq!(query(&mut t), "\x1b[?0u");
        assert_eq!(t.screen().kitty_keyboard(), (0, &[][..]));
        t.advance(b"\x1b[?1049h");
        assert_eq!(query(&mut t), "\x1b[?0u");
        assert_eq!(t.screen().kitty_keyboard(), (0, &[][..]));
    }

    #[test]
    fn csi_u_without_a_marker_still_restores_the_cursor() {
        let mut t = Terminal::new(20, 5);
        t.advance(b"\x1b[3;4H\x1b[s\x1b[1;1H\x1b[u");
        let cursor = t.screen().cursor();
        assert_eq!((cursor.row, cursor.col), (2, 3));
        assert_eq!(t.screen().modes().kitty_keyboard, 0);
        // The kitty forms do not move the cursor.
        t.advance(b"\x1b[1;1H\x1b[>1u\x1b[=3u\x1b[<u\x1b[?u");
        let cursor = t.screen().cursor();
        assert_eq!((cursor.row, cursor.col), (0, 0));
    }

    #[test]
    fn a_keyframe_keeps_the_flags_and_their_stack() {
        let mut t = Terminal::new(20, 5);
        t.advance(b"hi\x1b[>1u\x1b[>0u\x1b[>13u\x1b[=2;2u");
        let mut fresh = Terminal::new(20, 5);
        fresh.advance(&t.keyframe());
        assert_eq!(fresh.screen().modes(), t.screen().modes());
        assert_eq!(fresh.screen().kitty_keyboard(), (15, &[0, 1, 0][..]));
        for term in [&mut t, &mut fresh] {
            term.advance(b"\x1b[<2u");
            assert_eq!(query(term), "\x1b[?1u");
        }
        // Flags set without a push come back as they were, with an empty stack.
        let mut t = Terminal::new(20, 5);
        t.advance(b"\x1b[=5u");
        let mut fresh = Terminal::new(20, 5);
        fresh.advance(&t.keyframe());
        assert_eq!(fresh.screen().kitty_keyboard(), (5, &[][..]));
        // Nothing is written for the default state.
        let t = Terminal::new(20, 5);
        assert!(!t.keyframe().windows(3).any(|w| w == b"\x1b[="));
    }

    #[test]
    fn key_modes_carry_the_shown_screens_flags() {
        let mut t = Terminal::new(20, 5);
        t.advance(b"\x1b[>9u");
        assert_eq!(KeyModes::from(t.screen().modes()).kitty_flags, 9);
        assert_eq!(
            enc("Enter", KeyModes::from(t.screen().modes())),
            b"\x1b[13u"
        );
        t.advance(b"\x1b[?1049h");
        assert_eq!(KeyModes::from(t.screen().modes()).kitty_flags, 0);
        assert_eq!(enc("Enter", KeyModes::from(t.screen().modes())), b"\r");
    }

    #[test]
    fn terminfo_replies_stay_legacy() {
        let mut t = Terminal::new(20, 5);
        t.advance(b"\x1b[>9u");
        let _ = t.take_replies();
        // XTGETTCAP kf3 (hex 6B6633): SS3 R (1B 4F 52), not the protocol's `CSI 13~`.
        t.advance(b"\x1bP+q6B6633\x1b\\");
        assert_eq!(t.take_replies(), b"\x1bP1+r6B6633=1B4F52\x1b\\");
    }

    // --- The encoder ---

    #[test]
    fn flag_1_disambiguates_escape_and_modified_text_keys() {
        presses(
            1,
            &[
                ("Escape", b"\x1b[27u"),
                ("Ctrl+a", b"\x1b[97;5u"),
                ("Ctrl+A", b"\x1b[97;5u"),
                ("Alt+a", b"\x1b[97;3u"),
                ("Ctrl+Alt+a", b"\x1b[97;7u"),
                ("Ctrl+Shift+a", b"\x1b[97;6u"),
                ("Alt+Shift+x", b"\x1b[120;4u"),
                ("Alt+X", b"\x1b[120;4u"),
                ("Meta+a", b"\x1b[97;9u"),
                ("Ctrl+Space", b"\x1b[32;5u"),
                ("Alt+[", b"\x1b[91;3u"),
                ("Ctrl+1", b"\x1b[49;5u"),
                ("Ctrl+.", b"\x1b[46;5u"),
                ("Alt+Escape", b"\x1b[27;3u"),
                // Keys that type text are still text.
                ("a", b"a"),
                ("Shift+a", b"A"),
                ("A", b"A"),
                ("\u{e9}", "\u{e9}".as_bytes()),
                ("Space", b" "),
                ("Shift+Space", b" "),
                ("1", b"1"),
            ],
        );
        // The legacy encoding still refuses Ctrl with a character without a C0 code.
        assert!(encode_keys("Ctrl+1", NORMAL).is_err());
    }

    #[test]
    fn flag_1_keeps_enter_tab_and_backspace_unless_modified() {
        presses(
            1,
            &[
                ("Enter", b"\r"),
                ("Tab", b"\t"),
                ("Backspace", b"\x7f"),
                ("Ctrl+Enter", b"\x1b[13;5u"),
                ("Shift+Enter", b"\x1b[13;2u"),
                ("Alt+Enter", b"\x1b[13;3u"),
                ("Shift+Tab", b"\x1b[9;2u"),
                ("Ctrl+Shift+Tab", b"\x1b[9;6u"),
                ("Ctrl+Tab", b"\x1b[9;5u"),
                ("Ctrl+Backspace", b"\x1b[127;5u"),
                ("Alt+Backspace", b"\x1b[127;3u"),
            ],
        );
    }

    #[test]
    fn flag_1_functional_keys_follow_the_spec_table() {
        let cases: &[(&str, &[u8])] = &[
            ("Up", b"\x1b[A"),
            ("Down", b"\x1b[B"),
            ("Right", b"\x1b[C"),
            ("Left", b"\x1b[D"),
            ("Home", b"\x1b[H"),
            ("End", b"\x1b[F"),
            ("Ctrl+Up", b"\x1b[1;5A"),
            ("Shift+Left", b"\x1b[1;2D"),
            ("Ctrl+Alt+Right", b"\x1b[1;7C"),
            ("Shift+End", b"\x1b[1;2F"),
            ("Meta+Home", b"\x1b[1;9H"),
            ("F1", b"\x1b[P"),
            ("F2", b"\x1b[Q"),
            ("F3", b"\x1b[13~"),
            ("F4", b"\x1b[S"),
            ("Ctrl+F1", b"\x1b[1;5P"),
            ("Shift+F3", b"\x1b[13;2~"),
            ("Alt+F4", b"\x1b[1;3S"),
            ("F5", b"\x1b[15~"),
            ("F6", b"\x1b[17~"),
            ("F8", b"\x1b[19~"),
            ("F10", b"\x1b[21~"),
            ("F11", b"\x1b[23~"),
            ("F12", b"\x1b[24~"),
            ("Alt+F5", b"\x1b[15;3~"),
            ("Insert", b"\x1b[2~"),
            ("Delete", b"\x1b[3~"),
            ("PageUp", b"\x1b[5~"),
            ("PageDown", b"\x1b[6~"),
            ("Ctrl+Delete", b"\x1b[3;5~"),
            ("Shift+PageUp", b"\x1b[5;2~"),
        ];
        presses(1, cases);
        // DECCKM and DECKPAM are not looked at.
        for modes in ALL_MODES {
            let modes = KeyModes {
                kitty_flags: 1,
                ..modes
            };
            assert_eq!(enc("Up", modes), b"\x1b[A", "{modes:?}");
            assert_eq!(enc("F1", modes), b"\x1b[P", "{modes:?}");
            assert_eq!(enc("KP1", modes), b"1", "{modes:?}");
        }
    }

    #[test]
    fn flag_1_keypad_keys() {
        presses(
            1,
            &[
                ("KP1", b"1"),
                ("KPAdd", b"+"),
                ("KPDecimal", b"."),
                ("KPEnter", b"\x1b[57414u"),
                ("Ctrl+KP1", b"\x1b[57400;5u"),
                ("Shift+KP0", b"\x1b[57399;2u"),
                ("Alt+KPEnter", b"\x1b[57414;3u"),
                ("Ctrl+KPDivide", b"\x1b[57410;5u"),
            ],
        );
    }

    #[test]
    fn flag_8_sends_every_key_as_an_escape_code() {
        let cases: &[(&str, &[u8])] = &[
            ("a", b"\x1b[97u"),
            ("A", b"\x1b[97;2u"),
            ("Shift+a", b"\x1b[97;2u"),
            ("Ctrl+a", b"\x1b[97;5u"),
            ("1", b"\x1b[49u"),
            ("Space", b"\x1b[32u"),
            ("\u{e9}", b"\x1b[233u"),
            ("Enter", b"\x1b[13u"),
            ("Tab", b"\x1b[9u"),
            ("Shift+Tab", b"\x1b[9;2u"),
            ("Backspace", b"\x1b[127u"),
            ("Escape", b"\x1b[27u"),
            ("Up", b"\x1b[A"),
            ("Ctrl+Up", b"\x1b[1;5A"),
            ("F1", b"\x1b[P"),
            ("F5", b"\x1b[15~"),
            ("Delete", b"\x1b[3~"),
            ("KP0", b"\x1b[57399u"),
            ("KP1", b"\x1b[57400u"),
            ("KP9", b"\x1b[57408u"),
            ("KPDecimal", b"\x1b[57409u"),
            ("KPMultiply", b"\x1b[57411u"),
            ("KPSubtract", b"\x1b[57412u"),
            ("KPAdd", b"\x1b[57413u"),
            ("KPEnter", b"\x1b[57414u"),
            ("KPSeparator", b"\x1b[57416u"),
        ];
        // Flag 8 implies disambiguation: alone it encodes the same.
        presses(1 | 8, cases);
        presses(8, cases);
    }

    #[test]
    fn flag_2_reports_repeats_and_releases() {
        use KeyEvent::{Press, Release, Repeat};
        let f = 1 | 2;
        for (name, press, repeat, release) in [
            ("a", &b"a"[..], &b"a"[..], &b"\x1b[97;1:3u"[..]),
            ("Shift+a", b"A", b"A", b"\x1b[97;2:3u"),
            ("Ctrl+a", b"\x1b[97;5u", b"\x1b[97;5:2u", b"\x1b[97;5:3u"),
            ("Escape", b"\x1b[27u", b"\x1b[27;1:2u", b"\x1b[27;1:3u"),
            ("Up", b"\x1b[A", b"\x1b[1;1:2A", b"\x1b[1;1:3A"),
            ("Ctrl+Up", b"\x1b[1;5A", b"\x1b[1;5:2A", b"\x1b[1;5:3A"),
            ("F1", b"\x1b[P", b"\x1b[1;1:2P", b"\x1b[1;1:3P"),
            ("F5", b"\x1b[15~", b"\x1b[15;1:2~", b"\x1b[15;1:3~"),
            ("Delete", b"\x1b[3~", b"\x1b[3;1:2~", b"\x1b[3;1:3~"),
            // Unmodified Enter, Tab and Backspace have no release without flag 8.
            ("Enter", b"\r", b"\r", b""),
            ("Tab", b"\t", b"\t", b""),
            ("Backspace", b"\x7f", b"\x7f", b""),
            (
                "Ctrl+Enter",
                b"\x1b[13;5u",
                b"\x1b[13;5:2u",
                b"\x1b[13;5:3u",
            ),
            (
                "KPEnter",
                b"\x1b[57414u",
                b"\x1b[57414;1:2u",
                b"\x1b[57414;1:3u",
            ),
        ] {
            assert_eq!(event(name, f, Press), press, "{name} press");
            assert_eq!(event(name, f, Repeat), repeat, "{name} repeat");
            assert_eq!(event(name, f, Release), release, "{name} release");
        }
        // With flag 8 too, every event is an escape code.
        let f = 1 | 2 | 8;
        assert_eq!(event("a", f, Repeat), b"\x1b[97;1:2u");
        assert_eq!(event("a", f, Release), b"\x1b[97;1:3u");
        assert_eq!(event("Enter", f, Repeat), b"\x1b[13;1:2u");
        assert_eq!(event("Enter", f, Release), b"\x1b[13;1:3u");
        assert_eq!(event("Backspace", f, Release), b"\x1b[127;1:3u");
        // A press through encode_event is what encode sends.
        assert_eq!(event("Ctrl+a", f, Press), enc("Ctrl+a", flags(f)));
    }

    #[test]
    fn flag_2_alone_keeps_legacy_presses() {
        use KeyEvent::{Press, Release, Repeat};
        let app = KeyModes {
            cursor_keys_application: true,
            kitty_flags: 2,
            ..KeyModes::default()
        };
        assert_eq!(encode_key_event("Up", app, Press).unwrap(), b"\x1bOA");
        assert_eq!(event("Ctrl+a", 2, Press), b"\x01");
        assert_eq!(event("Escape", 2, Press), b"\x1b");
        assert_eq!(event("a", 2, Repeat), b"a");
        assert_eq!(event("a", 2, Release), b"\x1b[97;1:3u");
        assert_eq!(event("Up", 2, Release), b"\x1b[1;1:3A");
        // Without flag 1 the keypad is reported as the keys it types.
        assert_eq!(event("KP1", 2, Release), b"\x1b[49;1:3u");
        assert_eq!(event("KPEnter", 2, Release), b"");
        assert!(encode_keys("Ctrl+1", flags(2)).is_err());
    }

    #[test]
    fn releases_and_repeats_need_flag_2() {
        for kitty_flags in [0, 1, 1 | 8, 1 | 4 | 8 | 16] {
            let e = encode_key_event("a", flags(kitty_flags), KeyEvent::Release).unwrap_err();
            assert_eq!(
                e.message,
                "the program has not asked for key release events (kitty keyboard flag 2)"
            );
            assert_eq!(e.name, "a");
            let e = encode_key_event("Ctrl+Up", flags(kitty_flags), KeyEvent::Repeat).unwrap_err();
            assert_eq!(
                e.message,
                "the program has not asked for key repeat events (kitty keyboard flag 2)"
            );
            assert_eq!(e.name, "Ctrl+Up");
        }
        let combo = parse_key("Enter").unwrap();
        assert!(combo.encode_event(NORMAL, KeyEvent::Release).is_err());
        assert_eq!(combo.encode_event(NORMAL, KeyEvent::Press).unwrap(), b"\r");
    }

    #[test]
    fn flag_16_adds_the_text_with_flag_8() {
        use KeyEvent::{Release, Repeat};
        presses(
            1 | 8 | 16,
            &[
                ("a", b"\x1b[97;;97u"),
                ("Shift+a", b"\x1b[97;2;65u"),
                ("A", b"\x1b[97;2;65u"),
                ("\u{e9}", b"\x1b[233;;233u"),
                ("Space", b"\x1b[32;;32u"),
                ("KP1", b"\x1b[57400;;49u"),
                // Keys with Ctrl or Alt, and keys without text, carry none.
                ("Ctrl+a", b"\x1b[97;5u"),
                ("Alt+a", b"\x1b[97;3u"),
                ("Ctrl+KP1", b"\x1b[57400;5u"),
                ("Enter", b"\x1b[13u"),
                ("Escape", b"\x1b[27u"),
                ("Up", b"\x1b[A"),
            ],
        );
        let f = 1 | 2 | 8 | 16;
        assert_eq!(event("a", f, Repeat), b"\x1b[97;1:2;97u");
        assert_eq!(event("a", f, Release), b"\x1b[97;1:3u");
        // Without flag 8 the flag changes nothing.
        presses(16, &[("a", b"a"), ("Ctrl+a", b"\x01"), ("Escape", b"\x1b")]);
        presses(1 | 16, &[("a", b"a"), ("Ctrl+a", b"\x1b[97;5u")]);
    }

    #[test]
    fn flag_4_reports_the_shifted_key() {
        presses(
            1 | 4,
            &[
                ("Ctrl+Shift+a", b"\x1b[97:65;6u"),
                ("Alt+Shift+x", b"\x1b[120:88;4u"),
                // No Shift, no shifted key; text stays text.
                ("Ctrl+a", b"\x1b[97;5u"),
                ("Shift+a", b"A"),
                // Functional keys have no alternates.
                ("Shift+Tab", b"\x1b[9;2u"),
                ("Shift+Up", b"\x1b[1;2A"),
            ],
        );
        presses(
            1 | 4 | 8,
            &[
                ("Shift+a", b"\x1b[97:65;2u"),
                ("A", b"\x1b[97:65;2u"),
                ("a", b"\x1b[97u"),
                // A digit's shifted form depends on the layout: none is reported.
                ("Shift+1", b"\x1b[49;2u"),
            ],
        );
        presses(1 | 4 | 8 | 16, &[("Shift+a", b"\x1b[97:65;2;65u")]);
        // Alone it changes nothing.
        presses(4, &[("Ctrl+a", b"\x01"), ("Escape", b"\x1b")]);
    }

    #[test]
    fn no_flags_keep_the_legacy_encoding() {
        for modes in ALL_MODES {
            for name in [
                "Escape",
                "Ctrl+a",
                "Ctrl+Enter",
                "Shift+Tab",
                "F3",
                "Up",
                "KP1",
            ] {
                assert_eq!(
                    enc(name, modes),
                    parse_key(name).unwrap().encode_legacy(modes),
                    "{name}"
                );
            }
        }
        presses(
            0,
            &[("Escape", b"\x1b"), ("Ctrl+a", b"\x01"), ("F3", b"\x1bOR")],
        );
    }

    #[test]
    fn captions_read_the_protocol() {
        for (bytes, expected) in [
            (&b"\x1b[97;5u"[..], "Ctrl+a"),
            (b"\x1b[97;6u", "Ctrl+Shift+a"),
            (b"\x1b[120;4u", "Alt+Shift+x"),
            (b"\x1b[97;9u", "Meta+a"),
            (b"\x1b[27u", "Esc"),
            (b"\x1b[13;5u", "Ctrl+\u{23ce}"),
            (b"\x1b[9;2u", "Shift+\u{21e5}"),
            (b"\x1b[P", "F1"),
            (b"\x1b[13~", "F3"),
            (b"\x1b[1;5P", "Ctrl+F1"),
            (b"\x1b[57414u", "KPEnter"),
            (b"\x1b[57400;5u", "Ctrl+KP1"),
            (b"\x1b[97u\x1b[98u", "ab"),
            (b"\x1b[97;;97u", "a"),
            (b"\x1b[97:65;6u", "Ctrl+Shift+a"),
            (b"\x1b[97;5:2u", "Ctrl+a"),
            // Releases are not key presses.
            (b"\x1b[97;1:3ux", "x"),
        ] {
            assert_eq!(
                caption(bytes),
                expected,
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}
