"""Subset the bundled CJK fonts to the common repertoire.

Usage: python3 fonts/subset-cjk.py DroidSansFallbackFull.ttf dotum.ttf fonts/

writes fonts/DroidSansFallback-CJK.ttf (ideographs, kana, punctuation, bopomofo, jamo,
fullwidth forms) and fonts/BaekmukDotum-Hangul.ttf (the Hangul syllables: Droid Sans
Fallback Full has none).

The repertoire comes from Python's codecs rather than a hand-kept list, so anyone can
recompute it: the ideographs of the national standards every CJK system font covers
(GB2312, Big5 level 1, JIS X 0208), the KS X 1001 Hangul syllables, and the kana,
punctuation, jamo, bopomofo and fullwidth blocks terminal programs print around them.
"""

import sys
import unicodedata

from fontTools import subset
from fontTools.ttLib import TTFont


def double_byte(codec, leads, trails):
    """Every character `codec` decodes from a lead byte in `leads` and a trail byte in `trails`."""
    chars = set()
    for lead in leads:
        for trail in trails:
            try:
                text = bytes([lead, trail]).decode(codec)
            except UnicodeDecodeError:
                continue
            if len(text) == 1:
                chars.add(ord(text))
    return chars


def ideographs(chars):
    # The standards' rows also hold symbols and letters; only the ideographs are wanted from
    # them (the blocks below bring the rest).
    return {c for c in chars if unicodedata.name(chr(c), "").startswith("CJK ")}


EUC_TRAIL = range(0xA1, 0xFF)
BIG5_TRAIL = list(range(0x40, 0x7F)) + list(range(0xA1, 0xFF))
# Ideographic space and the Hangul fillers: characters whose glyph is empty on purpose.
BLANK = {0x3000, 0x3164, 0xFFA0}


def repertoire():
    # GB2312 hanzi: rows 16-87 (simplified Chinese, levels 1 and 2).
    gb2312 = ideographs(double_byte("gb2312", range(0xB0, 0xF8), EUC_TRAIL))
    # Big5 level 1: 0xA440-0xC67E, the frequently used traditional hanzi.
    big5 = ideographs(double_byte("big5", range(0xA4, 0xC7), BIG5_TRAIL))
    # JIS X 0208 kanji: rows 16-84, through EUC-JP (levels 1 and 2).
    jis = ideographs(double_byte("euc_jp", range(0xB0, 0xF5), EUC_TRAIL))
    # The 2350 Hangul syllables of KS X 1001 (rows 16-40 of EUC-KR): Baekmuk Dotum maps all
    # 11172 but its glyphs for the others are empty, which would hide them from the
    # missing-glyph warning.
    ksx = {
        c
        for c in double_byte("euc_kr", range(0xB0, 0xC9), EUC_TRAIL)
        if 0xAC00 <= c <= 0xD7A3
    }
    blocks = set()
    for first, last in [
        (0x3000, 0x303F),  # CJK symbols and punctuation
        (0x3040, 0x309F),  # hiragana
        (0x30A0, 0x30FF),  # katakana
        (0x3100, 0x312F),  # bopomofo
        (0x3130, 0x318F),  # Hangul compatibility jamo
        (0xFF00, 0xFFEF),  # fullwidth forms, half-width katakana and Hangul
    ]:
        blocks.update(range(first, last + 1))
    parts = {
        "GB2312 hanzi": gb2312,
        "Big5 level-1 hanzi": big5,
        "JIS X 0208 kanji": jis,
        "KS X 1001 Hangul": ksx,
        "blocks": blocks,
    }
    return parts, set().union(*parts.values())


def subset_font(src, dst, unicodes):
    options = subset.Options()
    # Hinting is for small sizes on old rasterisers; resvg ignores it.
    options.hinting = False
    # Only what rasterising and browser embedding read: outlines, metrics, cmap, names.
    options.drop_tables += ["GDEF", "GPOS", "GSUB", "vhea", "vmtx", "gasp", "LTSH", "DSIG"]
    options.layout_features = []
    # Family and style names, and the copyright and licence notices both licences want kept
    # with every copy of the font.
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 7, 13, 14]
    options.name_languages = [0x409]
    options.glyph_names = False
    options.notdef_outline = True
    # The source's timestamp, not the time of the run: the same input gives the same bytes.
    options.recalc_timestamp = False
    font = TTFont(src, recalcTimestamp=False)
    cmap = font.getBestCmap()
    glyf = font["glyf"]
    # A character mapped to an empty glyph would be drawn blank without the missing-glyph
    # warning naming it (Baekmuk Dotum has one such KS X 1001 syllable, U+C3C0); only the
    # characters blank by design keep theirs.
    empty = {
        c
        for c in unicodes
        if c in cmap and glyf[cmap[c]].numberOfContours == 0 and c not in BLANK
    }
    if empty:
        named = " ".join(f"U+{c:04X}" for c in sorted(empty))
        print(f"{src}: left out, their glyphs are empty: {named}")
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(c for c in unicodes if c in cmap and c not in empty))
    subsetter.subset(font)
    font.save(dst)
    out = TTFont(dst)
    print(
        f"{dst}: {len(out.getBestCmap())} characters, {out['maxp'].numGlyphs} glyphs,"
        f" tables {sorted(t for t in out.keys() if t != 'GlyphOrder')}"
    )


def main():
    droid, baekmuk, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    parts, wanted = repertoire()
    droid_cmap = TTFont(droid).getBestCmap()
    baekmuk_cmap = TTFont(baekmuk).getBestCmap()
    for name, chars in parts.items():
        absent = len([c for c in chars if c not in droid_cmap and c not in baekmuk_cmap])
        print(f"{name}: {len(chars)} characters, {absent} in neither font")
    # Droid Sans Fallback has three Hangul syllables (가 among them): they are left to
    # Baekmuk Dotum, or the commonest would stand out in another style.
    hangul = parts["KS X 1001 Hangul"]
    subset_font(droid, f"{outdir}/DroidSansFallback-CJK.ttf", wanted - hangul)
    # Baekmuk Dotum comes after Droid Sans Fallback in the fallback order: it only needs the
    # syllables and what the first lacks.
    subset_font(
        baekmuk,
        f"{outdir}/BaekmukDotum-Hangul.ttf",
        {c for c in wanted if c in hangul or c not in droid_cmap},
    )


if __name__ == "__main__":
    main()
