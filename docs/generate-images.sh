#!/usr/bin/env bash
# Regenerates the example images in docs/images/ with the tool itself (used by README.md).
# Inputs are committed fixtures and printf output, so the images are reproducible.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
shotty=target/release/shotty
out=docs/images
mkdir -p "$out"

# The bytes of a fixture up to its last alternate-screen exit: the TUI as it was on screen.
alt_screen() {
  python3 - "$1" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
cut = max(data.rfind(p) for p in (b"\x1b[?1049l", b"\x1b[?1047l", b"\x1b[?47l"))
sys.stdout.buffer.write(data[:cut] if cut > 0 else data)
PY
}

alt_screen tests/fixtures/vim_split_number.bin > /tmp/shotty-vim.bin
"$shotty" render /tmp/shotty-vim.bin --width 80 --height 24 -d macos-pc --title "vim — main.rs, fib.py" \
  -o "$out/vim.png"
"$shotty" render /tmp/shotty-vim.bin --width 80 --height 24 -d macos --title "vim" --embed-font \
  -o "$out/vim.svg"

"$shotty" render tests/fixtures/rich_table.bin --width 100 --height 30 -d windows -t one-half-dark \
  --title "python rich_demo.py" --crop-bottom done -o "$out/rich.png"

"$shotty" render tests/fixtures/git_log_graph.bin --width 100 --height 30 -t github-light \
  --crop-bottom 'v0.1.0:+13' -d macos --title "git log --graph" -o "$out/git-log.png"

printf '\e[1;32m✔\e[0m build    \e[2m(4.2s)\e[0m\n\e[1;31m✘\e[0m test     \e[31m1 failed\e[0m\n\e[1;33m!\e[0m lint     \e[33m2 warnings\e[0m\n' \
  | "$shotty" -w 40 -c --header "make ci" -d macos -t dracula --title "make ci" -o "$out/pipe.png"

for theme in shotty-dark shotty-light dracula solarized-light; do
  "$shotty" render tests/fixtures/ls_color.bin --width 100 --height 30 -t "$theme" --crop-bottom 12ch \
    --crop-right 30ch -o "$out/theme-$theme.png"
done
# One SVG for dark and light readers: it follows the viewer's prefers-color-scheme.
"$shotty" render tests/fixtures/ls_color.bin --width 100 --height 30 -t auto --crop-bottom 12ch \
  --crop-right 30ch -d macos --title "ls -la" --no-metadata -o "$out/adaptive.svg"
# Chinese, Japanese, Korean and emoji with nothing but the bundled fonts.
"$shotty" render tests/fixtures/emoji_cjk.bin --width 80 --height 24 --crop-bottom 'next:+1' \
  -d macos --title "printf" -o "$out/cjk-emoji.png"
# A secret masked before anything is written (a made-up token).
printf '$ export GITHUB_TOKEN=ghp_R8x2Lq9ZkT4mWv7NcY1pHs3JdF6gBa0Ue5Qo\n$ git push origin main\nEverything up-to-date\n' \
  | "$shotty" -w 72 --mask-auto -d macos -t one-half-dark --title "deploy" -o "$out/masked.png"
# The README's animation, from a committed recording (docs/record-demo.py made it).
"$shotty" render docs/demo.cast --video --show-keys -d macos --title "shotty" --embed-font \
  -o "$out/demo.svg"
"$shotty" render docs/demo.cast --video --show-keys -d macos --title "shotty" -o "$out/demo.gif"

# A golden test's failure: the screen it expected and the one it got, the changed cells marked.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '\e[1mcargo test\e[0m\nrunning 12 tests\n\e[32mtest result: ok.\e[0m 12 passed; 0 failed\n' \
  | "$shotty" -w 44 -o "$tmp/expected.svg"
printf '\e[1mcargo test\e[0m\nrunning 12 tests\n\e[31mtest result: FAILED.\e[0m 11 passed; 1 failed\n' \
  | "$shotty" -w 44 -o "$tmp/actual.svg"
"$shotty" diff "$tmp/expected.svg" "$tmp/actual.svg" -d macos --title "shotty diff" -o "$out/diff.png" \
  >/dev/null || true

# The page of `shotty web` in Chromium, as its test drives it (a shell's finished commands).
SHOTTY_WEB_SCREENSHOT="$PWD/$out/web.png" cargo test --quiet --test frontends -- \
  web::chromium_watches_a_session_types_into_it_and_scrubs_its_recording >/dev/null

echo "images written to $out"
