// Measures an inlined shotty SVG in a real browser (tests/browser.rs loads this into a page
// next to the SVG and reads the JSON it leaves in <script id="result">).
//
// Checks, after every web font has loaded:
//   * fonts: each @font-face the SVG embeds reached status "loaded", the monospace family is
//     among them, and document.fonts.check() agrees for every weight/style the text uses;
//   * glyphs: in start-anchored runs (one x) character i starts at x + i × cell width; in
//     centred runs (class "m", one x per character) each character's box is centred on its x;
//   * grid: every x attribute lies on the cell grid that the snapshot in <metadata> implies,
//     and the character placed at a cell is the one the snapshot has there.
(async () => {
  const out = { fonts: [], fontChecks: [], glyphs: 0, maxDelta: 0, worst: null, problems: [] };
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
    // Terminal text only: the window title (class "t") is not on the grid.
    const tspans = [...svg.querySelectorAll('tspan')].filter((t) => !t.closest('text.t'));
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
    out.grid = { originX: origin[0], originY: origin[1], cellHeight: ch };

    const ZERO_WIDTH = /^[\p{M}\u200b-\u200f\u2060\ufe00-\ufe0f]/u;
    const cellText = (row, col) => {
      const r = meta.rows[row];
      const c = r && r.cells[col];
      return c ? c.t : undefined;
    };
    const near = (v, step) => Math.abs(v / step - Math.round(v / step)) * step < 0.02;
    const rowOf = (y) => Math.floor((y - origin[1]) / ch);
    const checkCell = (row, col, cp, text) => {
      if (cp === ' ') return;
      const t = cellText(row, col);
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
      if (!(Math.abs(delta) <= 0.5)) {
        problem({ kind, text, char: cp, row, col, expected, measured, delta });
      }
    };

    for (const t of tspans) {
      const text = t.textContent;
      const xs = t.getAttribute('x').split(' ').map(Number);
      const y = Number(t.getAttribute('y'));
      const row = rowOf(y);
      const centred = t.classList.contains('m');
      const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
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
          checkCell(row, col, c, shown);
          record('left', shown, c, row, col, expected, t.getStartPositionOfChar(i).x);
          k += 1;
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
  const result = document.createElement('script');
  result.type = 'application/json';
  result.id = 'result';
  result.textContent = JSON.stringify(out).replace(/</g, '\\u003c');
  document.body.appendChild(result);
})();
