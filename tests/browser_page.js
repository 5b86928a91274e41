// Measures an inlined shotty SVG in a real browser: tests/render/browser.rs loads this into a page
// next to the SVG and evaluates `shottyMeasure()` over the DevTools protocol.
//
// Checks, after every web font has loaded:
//   * fonts: each @font-face the SVG embeds reached status "loaded", the monospace family is
//     among them, and document.fonts.check() agrees for every weight/style the text uses;
//   * glyphs: in start-anchored runs (one x: a tspan, or a row's whole <text>, styled by
//     tspans without positions) character i starts at x + i × cell width; in
//     centred runs (class "m", one x per character) each character's box is centred on its x;
//     either within GLYPH_LIMIT cells;
//   * spaces: in start-anchored runs, every stretch of SPACE_STRETCH or more spaces (or
//     no-break spaces) advances one cell a space within SPACE_LIMIT px. A space taken from
//     another font is 602/1000 em instead of 600/1000: too little to see at once, enough to
//     slide a long run off its cells. (Chromium reports positions in 1/64 px, so a single
//     space cannot be measured this finely; a stretch of n spaces divides that by n.)
//   * grid: every x attribute lies on the cell grid that the snapshot in <metadata> implies,
//     and the character placed at a cell is the one the snapshot has there;
//   * scale: a row of a double size (the snapshot's `size`) is laid out at single size and
//     drawn through a transform: twice as wide, twice as high for the halves of a
//     double-height line, its first cell's corner on the row's own (the bottom half's on the
//     row above); every other row's text is drawn untransformed. Together with the glyph
//     checks above (in the text's own coordinates) this puts every glyph of a scaled row on
//     its double cell on the page. A fallback glyph wider than its cells may be narrowed about
//     its centre (a <text> of its own with that transform), as terminals keep glyphs to their
//     cells.
const GLYPH_LIMIT = 0.06;
const SPACE_LIMIT = 0.01;
const SPACE_STRETCH = 4;

window.shottyMeasure = async () => {
  const out = {
    fonts: [], fontChecks: [], glyphs: 0, maxDelta: 0, worst: null, spaceStretches: 0,
    maxSpaceDelta: 0,
    problems: [],
  };
  const problem = (p) => out.problems.push(p);
  try {
    await document.fonts.ready;
    const faces = [...document.fonts];
    await Promise.all(faces.map((f) => f.load().catch(() => {})));
    out.fonts = faces.map((f) => ({
      family: f.family.replace(/["']/g, ''),
      weight: f.weight,
      style: f.style,
      status: f.status,
    }));

    const svg = document.querySelector('svg');
    const meta = JSON.parse(svg.querySelector('metadata').textContent);
    const cols = meta.width;
    const rows = meta.rows.length;
    // Terminal text only: the window title (class "t") is not on the grid. Positioned
    // elements: tspans with an x, and row texts (a <text> with its own x, stretched to its
    // cells, whose tspans only change the style).
    const tspans = [...svg.querySelectorAll('tspan[x], text[x]')].filter((t) => !t.closest('text.t'));
    if (tspans.length === 0) throw new Error('no terminal text in the SVG');
    const fontSize = parseFloat(getComputedStyle(tspans[0]).fontSize);
    // Layout rule: the cell is one JetBrains Mono advance, 600/1000 em.
    const cw = 0.6 * fontSize;
    out.fontSize = fontSize;
    out.cellWidth = cw;

    // Every embedded face must be loaded, and the text's faces must come from them.
    for (const f of out.fonts) {
      if (f.status !== 'loaded') problem({ kind: 'font', text: `${f.family} ${f.weight} ${f.style}: ${f.status}` });
    }
    if (!out.fonts.some((f) => f.family === 'shotty-mono' && f.status === 'loaded')) {
      problem({ kind: 'font', text: 'no loaded @font-face for shotty-mono' });
    }
    const styles = new Set(tspans.map((t) => {
      const cs = getComputedStyle(t);
      return `${cs.fontStyle} ${cs.fontWeight}`;
    }));
    for (const s of styles) {
      const query = `${s} ${fontSize}px shotty-mono`;
      const ok = document.fonts.check(query);
      out.fontChecks.push({ query, ok });
      if (!ok) problem({ kind: 'font', text: `document.fonts.check("${query}") is false` });
    }

    // The grid: the screen rectangle is the tallest drawn rect at least as wide as the
    // columns (the title bar has the same width but is shorter); the padding is the same
    // on all four sides.
    const screen = [...svg.querySelectorAll('rect')]
      .filter((r) => !r.closest('defs, clipPath') && !r.hasAttribute('filter'))
      .map((r) => ['x', 'y', 'width', 'height'].map((a) => Number(r.getAttribute(a))))
      .filter(([, , w]) => w >= cols * cw - 0.05)
      .sort((a, b) => b[3] - a[3])[0];
    if (!screen) throw new Error('cannot find the terminal screen rectangle');
    const pad = (screen[2] - cols * cw) / 2;
    const origin = [screen[0] + pad, screen[1] + pad];
    const ch = (screen[3] - 2 * pad) / rows;
    out.grid = { originX: origin[0], originY: origin[1], cellHeight: ch, cols, rows };

    const ZERO_WIDTH = /^[\p{M}\u200b-\u200f\u2060\ufe00-\ufe0f]/u;
    const cellText = (row, col) => {
      const r = meta.rows[row];
      const c = r && r.cells[col];
      return c ? c.t : undefined;
    };
    const near = (v, step) => Math.abs(v / step - Math.round(v / step)) * step < 0.02;
    const rowOf = (y) => Math.floor((y - origin[1]) / ch);
    // Box drawing, blocks and powerline separators are drawn as shapes; the text run has a
    // space in their cells.
    const SHAPE = /^[\u2500-\u259f\ue0b0-\ue0b7]/u;
    // A row text (a <text> with its own x) also holds spaces in the cells other elements draw
    // (wide and fallback characters, links); those elements are checked themselves.
    const checkCell = (row, col, cp, text, rowText) => {
      const t = cellText(row, col);
      if (cp === ' ' && t !== undefined && (rowText || SHAPE.test(t))) return;
      if (t === undefined || [...t][0] !== cp) {
        problem({ kind: 'cell', text, char: cp, row, col, snapshot: t === undefined ? null : t });
      }
    };
    const record = (kind, text, cp, row, col, expected, measured) => {
      const delta = measured - expected;
      out.glyphs += 1;
      if (Math.abs(delta) > Math.abs(out.maxDelta)) {
        out.maxDelta = delta;
        out.worst = { kind, text, char: cp, row, col, expected, measured };
      }
      if (!(Math.abs(delta) <= GLYPH_LIMIT * cw)) {
        problem({ kind, text, char: cp, row, col, expected, measured, delta });
      }
    };

    // The transform from a tspan's coordinates to the SVG's: x' = a x + e, y' = d y + f.
    const rootInverse = svg.getScreenCTM().inverse();
    const SCALE = { doubleWidth: [2, 1, 0], doubleHeightTop: [2, 2, 0], doubleHeightBottom: [2, 2, 1] };
    const checkScale = (t, row, shown) => {
      let m = rootInverse.multiply(t.getScreenCTM());
      // A fallback glyph wider than its cells is a <text> of its own, narrowed about its
      // centre: taken out, what is left is the row's transform.
      const own = t.tagName === 'tspan' && t.parentElement.transform.baseVal.consolidate();
      if (own) {
        const n = own.matrix;
        const centre = Number(t.getAttribute('x'));
        const single = t.classList.contains('m') && [...t.textContent].length === 1;
        if (!single || n.b || n.c || n.d !== 1 || !(n.a > 0.3 && n.a < 1)
          || Math.abs(n.a * centre + n.e - centre) > 0.01) {
          problem({ kind: 'narrowed', text: shown, row, matrix: [n.a, n.b, n.c, n.d, n.e, n.f] });
        }
        m = m.multiply(n.inverse());
      }
      const [sx, sy, up] = SCALE[meta.rows[row] && meta.rows[row].size] || [1, 1, 0];
      const top = origin[1] + row * ch;
      // Where the row's first cell's corner lands, and where it should.
      const measured = [m.a, m.b, m.c, m.d, m.a * origin[0] + m.e, m.d * top + m.f];
      const expected = [sx, 0, 0, sy, origin[0], top - up * ch];
      if (measured.some((v, i) => Math.abs(v - expected[i]) > 0.01)) {
        problem({ kind: 'scale', text: shown, row, size: meta.rows[row].size || null, expected, measured });
      }
      out.scaled = (out.scaled || 0) + (sx === 1 ? 0 : 1);
    };

    for (const t of tspans) {
      const text = t.textContent;
      const xs = t.getAttribute('x').split(' ').map(Number);
      const y = Number(t.getAttribute('y'));
      const row = rowOf(y);
      const centred = t.classList.contains('m');
      const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
      checkScale(t, row, shown);
      if (t.getNumberOfChars() !== text.length) {
        problem({ kind: 'chars', text: shown, expected: text.length, measured: t.getNumberOfChars() });
        continue;
      }
      // Code points with their UTF-16 index (the SVG DOM counts UTF-16 units).
      const cps = [];
      let u = 0;
      for (const c of text) {
        cps.push({ c, u });
        u += c.length;
      }
      const baseline = t.getStartPositionOfChar(0).y;
      if (Math.abs(baseline - y) > 0.5) {
        problem({ kind: 'baseline', text: shown, row, expected: y, measured: baseline });
      }
      if (!centred) {
        // One x: the run's characters advance one cell each; combining marks ride along.
        if (!near(xs[0] - origin[0], cw)) problem({ kind: 'grid', text: shown, row, x: xs[0] });
        let k = 0;
        for (const { c, u: i } of cps) {
          if (k > 0 && ZERO_WIDTH.test(c)) continue;
          const expected = xs[0] + k * cw;
          const col = Math.round((expected - origin[0]) / cw);
          checkCell(row, col, c, shown, t.tagName === 'text');
          record('left', shown, c, row, col, expected, t.getStartPositionOfChar(i).x);
          k += 1;
        }
        const isSpace = (c) => c === ' ' || c === '\u00a0';
        for (let a = 0; a < cps.length; ) {
          let b = a;
          while (b < cps.length && isSpace(cps[b].c)) b += 1;
          if (b - a >= SPACE_STRETCH && b < cps.length) {
            const n = b - a;
            const advance =
              (t.getStartPositionOfChar(cps[b].u).x - t.getStartPositionOfChar(cps[a].u).x) / n;
            const off = advance - cw;
            out.spaceStretches += 1;
            if (Math.abs(off) > Math.abs(out.maxSpaceDelta)) out.maxSpaceDelta = off;
            if (!(Math.abs(off) <= SPACE_LIMIT + 1 / 64 / n)) {
              problem({ kind: 'space', text: shown, row, spaces: n, expected: cw, measured: advance });
            }
          }
          a = Math.max(b, a + 1);
        }
      } else {
        // One x per character (the last one takes any marks that follow): a text chunk each,
        // centred on its cells.
        xs.forEach((x, j) => {
          if (!near(x - origin[0], cw / 2)) problem({ kind: 'grid', text: shown, row, x });
          const from = cps[j];
          if (!from) {
            problem({ kind: 'chars', text: shown, expected: xs.length, measured: cps.length });
            return;
          }
          const to = j + 1 < xs.length ? cps[j + 1].u : text.length;
          let left = Infinity;
          let right = -Infinity;
          for (let i = from.u; i < to; i++) {
            const e = t.getExtentOfChar(i);
            if (e.width > 0.01) {
              left = Math.min(left, e.x);
              right = Math.max(right, e.x + e.width);
            }
          }
          if (left === Infinity) return; // nothing visible (a lone mark)
          const col = Math.floor((x - origin[0]) / cw - 0.5 + 1e-6);
          checkCell(row, col, from.c, shown);
          record('centre', shown, from.c, row, col, x, (left + right) / 2);
        });
      }
    }
  } catch (e) {
    out.error = String(e && e.stack ? e.stack : e);
  }
  return out;
};
