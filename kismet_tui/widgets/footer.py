"""The footer of every screen: Textual's own, a little tighter when drawn in ASCII, and
drawn again only when its keys change.

In ASCII (a LANG=C terminal, `--ascii`) keys are named in words ("enter", "bksp", "k/j")
instead of one-cell symbols, so the footer would outgrow 80 columns and cut the help key
off; the compact style (one space less around each key) keeps it whole.

Textual builds the whole footer anew (a new widget per key, each styled) whenever a screen
refreshes its bindings, and the lobby does so on each message from the host, most of which
change no key: at a session's start that was most of its CPU after its lobby was drawn
(some 100 ms, more than its start to the lobby: a storm of door logins paid it 120 times).
So the lobby's footer (`same_keys_once`) remembers the keys it drew, and a refresh that
would draw the same keys again draws nothing. Only the lobby's, where a session starts and
where idle players wait; the other screens keep Textual's way (their footers' rebuilds also
redraw a box's screen, which the move log under the end box had relied on: screens/game.py).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from .glyphs import ascii_mode

# What one key in the footer shows: its key, action, words, whether it may be used, its
# tooltip (Textual's active_bindings gives all but the key's shown name, a function of it).
Shown = tuple[str, str, str, bool, str]


class KeyFooter(Footer):
    def __init__(self, same_keys_once: bool = False) -> None:
        super().__init__(compact=ascii_mode())
        self.same_keys_once = same_keys_once
        self.drawn: tuple[bool, tuple[Shown, ...]] | None = None  # the keys composed last

    def keys_of(self, screen: Screen) -> tuple[bool, tuple[Shown, ...]]:
        return self.show_command_palette, tuple(
            (binding.key, binding.action, binding.description, enabled, tooltip)
            for _node, binding, enabled, tooltip in screen.active_bindings.values()
            if binding.show
        )

    def bindings_changed(self, screen: Screen) -> None:
        if (
            self.same_keys_once
            and self.drawn is not None
            and screen is self.screen
            and self.keys_of(screen) == self.drawn
        ):
            return  # the keys drawn are these
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        if self.same_keys_once and self._bindings_ready:
            self.drawn = self.keys_of(self.screen)
        yield from super().compose()
