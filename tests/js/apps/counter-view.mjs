// An Ink component: a counter in a rounded box. ↑/↓ change it, q quits. Its number is drawn
// in COUNTER_COLOR (default green): the side-by-side test changes that colour.
import { Box, Text, useApp, useInput } from "ink";
import { createElement as h, useState } from "react";

export function Counter({ color = process.env.COUNTER_COLOR || "green" }) {
  const [count, setCount] = useState(0);
  const { exit } = useApp();
  useInput((input, key) => {
    if (key.upArrow) setCount((n) => n + 1);
    if (key.downArrow) setCount((n) => n - 1);
    if (input === "q") exit();
  });
  return h(
    Box,
    { borderStyle: "round", borderColor: "cyan", paddingX: 1, flexDirection: "column", width: 30 },
    h(Text, { bold: true }, "Counter"),
    h(Text, null, "count: ", h(Text, { color }, String(count))),
    h(Text, { dimColor: true }, "↑/↓ change · q quits"),
  );
}
