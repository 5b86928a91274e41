"""A small Textual app for the tests: a counter with a key binding and a button.

COUNTER_COLOR sets the count's colour: the side-by-side test changes it to make a regression
only a picture of the screen can see."""

import os

from textual.app import App, ComposeResult
from textual.containers import Center
from textual.widgets import Button, Footer, Header, Label


class Counter(App):
    TITLE = "Counter"
    CSS = """
    Screen { align: center middle; }
    #count { width: 20; content-align: center middle; color: %s; text-style: bold; }
    Button { margin-top: 1; }
    """ % os.environ.get("COUNTER_COLOR", "green")
    BINDINGS = [("up", "add", "Add one"), ("q", "quit", "Quit")]

    count = 0

    def compose(self) -> ComposeResult:
        yield Header()
        with Center():
            yield Label("count: 0", id="count")
        with Center():
            yield Button("Add", id="add", variant="primary")
        yield Footer()

    def action_add(self) -> None:
        self.count += 1
        self.query_one("#count", Label).update(f"count: {self.count}")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_add()


app = Counter()

if __name__ == "__main__":
    app.run()
