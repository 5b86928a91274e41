// The counter as a program: `node apps/counter.mjs`.
import { render } from "ink";
import { createElement as h } from "react";

import { Counter } from "./counter-view.mjs";

const app = render(h(Counter));
await app.waitUntilExit();
