//! The examples `--help` ends with and the man pages show (`EXAMPLES`), one constant per
//! command: each command's `after_long_help`. Each example is a command line indented by two
//! spaces, then what it does indented by six.

pub(super) const CAPTURE: &str = "\
Examples:
  shotty -d macos -c -o ls.png -- ls -la --color=always
      A PNG of a coloured listing in a macOS window, the command line shown above it.
  shotty capture -h 30 --after 2s -o htop.svg -- htop
      htop 30 rows high, two seconds in (its meters have measured by then); exit code 0.
  shotty capture --until-text 'ready in' -o dev.svg -- npm run dev
      A dev server once it says it is ready (and its screen is quiet for 100 ms).
  git log --oneline --graph --color=always | shotty -t nord -o log.svg
      Piped output, rendered in the nord theme.";

pub(super) const RENDER: &str = "\
Examples:
  shotty render demo.cast --at 12.5 -o moment.png
      The screen of an asciicast recording 12.5 s in.
  shotty render demo.cast --video --speed 2 -o demo.gif
      The recording animated, twice as fast.
  shotty render --width 80 --height 24 --format json output.bin
      Raw terminal bytes as the structured snapshot (JSON schema version 1).";

pub(super) const RECORD: &str = "\
Examples:
  shotty record -o session.cast -- bash
      Record a shell in this terminal until it exits, as asciicast v2.
  shotty record --show-keys -d macos -o vim.svg -- vim notes.md
      An animated SVG of editing, the keys typed captioned below the screen.";

pub(super) const TAPE: &str = "\
Examples:
  shotty tape demo.tape
      Run a VHS tape as it is and write every Output it names (.gif, .svg, .ascii …).
  shotty tape --check examples/*.tape
      Check tapes (grammar, settings, outputs, required programs) without running them.
  shotty tape new demo
      Write demo.tape, a commented starting tape that runs as it is.";

pub(super) const SCENARIO_RUN: &str = "\
Examples:
  shotty scenario run vim.scenario.yaml
      Run a scenario; a failed step leaves shotty-report/vim/ (failure.md, trace.html).
  shotty scenario run --update tests/htop.scenario.yaml
      Run it and rewrite the golden screens its snapshot steps compare with.";

pub(super) const TEST: &str = "\
Examples:
  shotty test
      Every *.scenario.yaml|yml|json under the current directory, in parallel.
  shotty test tests/tui -j 2 --junit junit.xml
      Two at a time, with a JUnit report for CI.
  shotty test --update
      Rewrite the goldens that differ (review the diff before committing).";

pub(super) const DIFF: &str = "\
Examples:
  shotty diff golden.svg actual.svg
      The cells that differ (text, style, cursor); exit 1 when any does.
  shotty diff golden.svg actual.svg -o changes.png
      Also the actual screen with the changed cells highlighted.";

pub(super) const THEMES: &str = "\
Examples:
  shotty themes
      The built-in themes' names.
  shotty themes --json
      The same as a JSON array of objects.";

pub(super) const SERVE: &str = "\
Examples:
  shotty serve --cmd bash --socket /tmp/bash.sock
      A bash session as JSON-RPC 2.0 on a Unix socket (docs/serve.md).
  shotty serve --cmd 'python3 -q' --port 7000 --cols 120 --rows 40
      A Python REPL on 127.0.0.1:7000, 120x40.";

pub(super) const MCP: &str = "\
Examples:
  shotty mcp
      Serve the session tools to an MCP client on stdin/stdout. Register it with:
      {\"mcpServers\": {\"shotty\": {\"command\": \"shotty\", \"args\": [\"mcp\"]}}}";

pub(super) const WEB: &str = "\
Examples:
  shotty web
      Serve on 127.0.0.1:7681 with a fresh token; open the URL it prints.
  shotty web --listen 0.0.0.0:7681 --token-file ~/.config/shotty/web-token
      For people and agents on other machines, the token read from a private file. Register
      the MCP endpoint with an HTTP-capable client:
      {\"mcpServers\": {\"shotty\": {\"type\": \"http\", \"url\": \"http://HOST:7681/mcp\",
       \"headers\": {\"Authorization\": \"Bearer TOKEN\"}}}}";

pub(super) const COMPLETIONS: &str = "\
Examples:
  shotty completions bash > ~/.local/share/bash-completion/completions/shotty
      Tab completion in bash (also zsh, fish, powershell, elvish).";

pub(super) const MAN: &str = "\
Examples:
  shotty man | man -l -
      Read this manual.
  shotty man --dir /usr/local/share/man/man1
      Install a page per command (shotty-capture.1, shotty-session-start.1, ...).";

pub(super) const SESSION: &str = "\
Examples:
  id=$(shotty session start -- bash | jq -r .sessionId)
      Start bash in the background; every reply is one JSON document.
  shotty session send $id --text 'ls -l' --keys Enter
      Type a command.
  shotty session wait $id --text '$ ' --timeout 5s
      Wait for the prompt to come back.
  shotty session read $id --trim
      The screen as text, without the blank rows at the end.
  shotty session stop $id
      End it.";

pub(super) const SESSION_START: &str = "\
Examples:
  shotty session start --name vim --width 120 --height 40 -- vim notes.md
      vim in a 120x40 terminal, named so later commands can say `vim`.
  shotty session start --shell-integration --wait-ready -- bash
      bash reporting each command's end and exit code (see `session wait --command`).";

pub(super) const SESSION_READ: &str = "\
Examples:
  shotty session read last --trim
      The newest session's screen, without the blank rows at the end.
  shotty session read vim --structured
      With every cell's text, colours and attributes.";

pub(super) const SESSION_WAIT: &str = "\
Examples:
  shotty session wait vim --text '-- INSERT --' --timeout 5s
      Until vim shows insert mode; exit 1 with error.code wait_timeout if it does not.
  shotty session wait $id --command --timeout 1m
      Until the shell command typed last has finished (with --shell-integration).
  shotty session wait $id --idle 500ms
      Until the screen has not changed for half a second.";

pub(super) const SESSION_SEND: &str = "\
Examples:
  shotty session send vim --keys i --text 'hello' --keys Escape --text ':wq' --keys Enter
      Several steps, sent as one operation.
  shotty session send $id --keys Ctrl+C
      Interrupt the program.
  shotty session send $id --click-text OK
      Click the first OK on the screen (when the program tracks the mouse).";

pub(super) const SESSION_EXPORT: &str = "\
Examples:
  shotty session export $id -o run.cast
      The recording as asciicast v2.
  shotty session export $id -o run.gif --show-keys
      Animated, the keys typed captioned.
  shotty session export $id -o replay.scenario.yaml
      The successful steps as a scenario that `shotty scenario run` replays.";
