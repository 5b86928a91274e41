#!/usr/bin/env python3
"""Writes a copy of a monospace font whose advance is 0.55 em under another family name.

The browser test (tests/render/browser.rs) needs a substitute font as narrow as Consolas, the
monospace font of Windows browsers, which is not free to install here. The outlines are kept;
only the advances (and the tables that cache them per size) change, which is all that decides
where the browser puts each glyph.

Usage: narrow_font.py SOURCE.ttf OUT.ttf FAMILY
"""
import sys

from fontTools.ttLib import TTFont

ADVANCE_EM = 0.55


def main():
    source, out, family = sys.argv[1:4]
    font = TTFont(source)
    advance = round(ADVANCE_EM * font["head"].unitsPerEm)
    hmtx = font["hmtx"]
    for glyph, (width, lsb) in hmtx.metrics.items():
        if width > 0:
            hmtx.metrics[glyph] = (advance, lsb)
    font["hhea"].advanceWidthMax = advance
    font["OS/2"].xAvgCharWidth = advance
    # Per-size advance caches would otherwise give the old widths at some sizes.
    for table in ("hdmx", "LTSH", "VDMX", "kern"):
        if table in font:
            del font[table]
    style = font["name"].getDebugName(2) or "Regular"
    for record in font["name"].names:
        if record.nameID in (1, 16):
            record.string = family
        elif record.nameID == 4:
            record.string = f"{family} {style}"
        elif record.nameID == 6:
            record.string = f"{family.replace(' ', '')}-{style.replace(' ', '')}"
        elif record.nameID == 3:
            record.string = f"{family} {style} test"
    font.save(out)


if __name__ == "__main__":
    main()
