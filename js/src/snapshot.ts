/**
 * The structured snapshot (schema version 1), as `Tui.snapshot()` returns it and `.json`
 * screenshots hold it. These types describe the JSON the binary writes
 * (src/term/snapshot.rs); a field absent from a style or cell has its default.
 */

/** A colour: a palette index 0–255 or `#rrggbb`. Absent means the default colour. */
export type Color = number | string;

/** One style of the style table. Flags appear only when true. */
export interface Style {
  fg?: Color;
  bg?: Color;
  bold?: true;
  dim?: true;
  italic?: true;
  /** `single`, `double`, `curly`, `dotted` or `dashed`. */
  underline?: string;
  underlineColor?: Color;
  blink?: true;
  inverse?: true;
  hidden?: true;
  strike?: true;
  overline?: true;
}

/** One hyperlink of the link table (OSC 8). */
export interface Link {
  uri: string;
  id?: string;
}

/** One cell. */
export interface Cell {
  /** The character and any zero-width characters after it; `" "` when empty, `""` for the right half of a wide character. */
  t: string;
  /** Width in columns when not 1: 2 for wide, 0 for a wide character's spacer. */
  w?: number;
  /** Index into `styles` when not 0. */
  s?: number;
  /** Index into `links`, when the cell is part of a hyperlink. */
  l?: number;
  /** The cell's text was a secret, masked: `t` is `*`. */
  m?: true;
}

/** One row: exactly `width` cells. */
export interface Row {
  /** The line continues on the next row (it was wrapped). */
  wrapped: boolean;
  /** DEC double-width/height line: `doubleWidth`, `doubleHeightTop` or `doubleHeightBottom`. */
  size?: string;
  cells: Cell[];
}

/** The cursor. */
export interface Cursor {
  /** 0-based row. */
  row: number;
  /** 0-based column. */
  col: number;
  visible: boolean;
  /** `block`, `underline` or `bar`. */
  shape: string;
}

/** A screen, cell by cell. */
export interface Snapshot {
  schemaVersion: 1;
  width: number;
  height: number;
  cursor: Cursor;
  alternateScreen: boolean;
  /** The window title (empty when none was set). */
  title: string;
  scrollbackLines: number;
  /** Styles used by the cells; entry 0 is always the empty style. */
  styles: Style[];
  links: Link[];
  /** The visible rows, top to bottom. */
  rows: Row[];
}
