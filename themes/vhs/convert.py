#!/usr/bin/env python3
"""Convert VHS's theme list into shotty theme files, one per theme, in this directory.

Input: ``themes.json`` of charmbracelet/vhs (MIT licence), a JSON array of objects with
the keys ``name``, ``black`` ... ``brightWhite`` (``magenta`` / ``brightMagenta`` for
ANSI 5 / 13), ``background``, ``foreground``, ``cursor``, ``selection`` and ``meta``:
https://github.com/charmbracelet/vhs/blob/main/themes.json

Output: ``<id>.json`` next to this script for every theme, in the 21-key Windows Terminal
format of ``themes/README.md`` (lowercase ``#rrggbb``, 2-space indent, trailing newline).
``name`` is VHS's name unchanged, because a tape's ``Set Theme "..."`` matches it exactly.
Every ``*.json`` already in the directory is removed first, so a theme VHS dropped goes
away. Nothing but the Python 3 standard library is used.

Rerun (from the repository root), from a clone of VHS or from GitHub:

    git -C path/to/vhs show HEAD:themes.json | python3 themes/vhs/convert.py -
    curl -sL https://raw.githubusercontent.com/charmbracelet/vhs/main/themes.json \\
        | python3 themes/vhs/convert.py -

or ``python3 themes/vhs/convert.py path/to/themes.json``. Then rebuild shotty: build.rs
embeds the files.

Ids (file names): see ``theme_id`` and ``assign_ids``; the rule is repeated in
``themes/README.md``. Colours: see ``normalise``, ``cursor_of`` and ``selection_of``.
"""

import json
import math
import re
import sys
import unicodedata
from pathlib import Path

ANSI = [
    ("black", "black"),
    ("red", "red"),
    ("green", "green"),
    ("yellow", "yellow"),
    ("blue", "blue"),
    ("purple", "magenta"),
    ("cyan", "cyan"),
    ("white", "white"),
    ("brightBlack", "brightBlack"),
    ("brightRed", "brightRed"),
    ("brightGreen", "brightGreen"),
    ("brightYellow", "brightYellow"),
    ("brightBlue", "brightBlue"),
    ("brightPurple", "brightMagenta"),
    ("brightCyan", "brightCyan"),
    ("brightWhite", "brightWhite"),
]

# What VHS's terminal (xterm.js, in ttyd) draws for a key a theme leaves out: VHS sends the
# missing key as "", which xterm.js cannot parse, so it falls back to its defaults.
XTERM_DEFAULT_CURSOR = "#ffffff"
XTERM_DEFAULT_SELECTION = ((255, 255, 255), 0x4D)  # rgba(255, 255, 255, 0.3)


def normalise(theme, key, value):
    """``#rgb`` or ``#rrggbb`` in any case -> lowercase ``#rrggbb``; anything else fails."""
    if not isinstance(value, str):
        sys.exit(f"{theme!r}: {key} is not a string: {value!r}")
    v = value.strip().lower()
    if re.fullmatch(r"#[0-9a-f]{3}", v):
        v = "#" + "".join(c * 2 for c in v[1:])
    if not re.fullmatch(r"#[0-9a-f]{6}", v):
        sys.exit(f"{theme!r}: {key} {value!r} is not a #rgb or #rrggbb colour")
    return v


def composite(over_hex, rgb_alpha):
    """An opaque colour: ``rgb`` at ``alpha``/255 over ``over_hex``, rounded as xterm.js
    blends (``bg + Math.round((fg - bg) * a)``)."""
    (rgb, alpha) = rgb_alpha
    bg = [int(over_hex[i : i + 2], 16) for i in (1, 3, 5)]
    out = [b + math.floor((f - b) * alpha / 255 + 0.5) for b, f in zip(bg, rgb)]
    return "#" + "".join(f"{c:02x}" for c in out)


def cursor_of(t):
    """VHS's ``cursor``, or xterm.js's default cursor (white) when the theme has none."""
    if t.get("cursor"):
        return normalise(t["name"], "cursor", t["cursor"])
    return XTERM_DEFAULT_CURSOR


def selection_of(t, background):
    """VHS's ``selection``, or xterm.js's default selection (white at 30%) composited over
    the background when the theme has none."""
    if t.get("selection"):
        return normalise(t["name"], "selection", t["selection"])
    return composite(background, XTERM_DEFAULT_SELECTION)


def convert(t):
    """One VHS theme object -> the 21-key shotty theme object, keys in README order."""
    name = t["name"]
    out = {"name": name}
    out["background"] = normalise(name, "background", t["background"])
    out["foreground"] = normalise(name, "foreground", t["foreground"])
    out["cursorColor"] = cursor_of(t)
    out["selectionBackground"] = selection_of(t, out["background"])
    for ours, theirs in ANSI:
        out[ours] = normalise(name, theirs, t[theirs])
    return out


def theme_id(name):
    """The base id of a name: Unicode NFKD with everything non-ASCII dropped (``é`` -> ``e``),
    ``+`` spelled `` plus ``, lowercased, every run of characters other than ``a-z0-9`` turned
    into one ``-``, and ``-`` trimmed from both ends (``theme`` if nothing is left).
    ``Monokai Pro (Filter Octagon)`` -> ``monokai-pro-filter-octagon``, ``Dracula+`` ->
    ``dracula-plus``, ``HaX0R_BLUE`` -> ``hax0r-blue``."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    s = re.sub(r"[^a-z0-9]+", "-", ascii_name.replace("+", " plus ").lower()).strip("-")
    return s or "theme"


def assign_ids(names):
    """Unique ids for the names. Names are grouped by base id (``theme_id``). Each base id
    goes to one name of its group: the name that is the base id itself if there is one
    (``catppuccin-mocha``), else the group's first name in code-point order. Every other
    name, in code-point order, takes its base id with the first suffix ``-2``, ``-3``, ...
    that no name holds and that is no base id (``Catppuccin Mocha`` ->
    ``catppuccin-mocha-2``)."""
    groups = {}
    for name in sorted(names):
        groups.setdefault(theme_id(name), []).append(name)
    ids = {}
    rest = []
    for base, group in groups.items():
        owner = base if base in group else group[0]
        ids[owner] = base
        rest.extend(n for n in group if n != owner)
    taken = set(groups)
    for name in sorted(rest):
        base, n = theme_id(name), 2
        while f"{base}-{n}" in taken:
            n += 1
        ids[name] = f"{base}-{n}"
        taken.add(ids[name])
    return ids


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: convert.py THEMES_JSON   (- for standard input)")
    source = sys.stdin if sys.argv[1] == "-" else open(sys.argv[1], encoding="utf-8")
    with source:
        themes = json.load(source)
    if not isinstance(themes, list):
        sys.exit("themes.json is not a JSON array")
    # VHS's lookup takes the first theme of a name; a later one could never be chosen.
    seen = {}
    for t in themes:
        if t["name"] in seen:
            print(f"skipping a second theme named {t['name']!r}", file=sys.stderr)
            continue
        seen[t["name"]] = t
    ids = assign_ids(list(seen))

    out_dir = Path(__file__).resolve().parent
    for old in out_dir.glob("*.json"):
        old.unlink()
    for name, t in seen.items():
        text = json.dumps(convert(t), indent=2, ensure_ascii=False) + "\n"
        (out_dir / f"{ids[name]}.json").write_text(text, encoding="utf-8")
    print(f"wrote {len(seen)} themes to {out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
