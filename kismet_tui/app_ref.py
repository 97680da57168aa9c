"""`kismet_app(node)`: the app a screen or widget runs in, typed as the state it reads; and
`OnKismetApp`, which gives a screen `self.kismet` and `self.client` (its game source).

Textual types `node.app` as a plain `App`, so reading the app's state (`client`,
`connection`, `notice`) would be untyped; every screen and widget of ours runs inside a
Kismet app, and this says so once. It names kismet_tui/app_state.py's `KismetState`, never
the app itself, which imports the screens: what a screen asks of the app goes up as a
message (kismet_tui/messages.py).
"""

from __future__ import annotations

from textual.dom import DOMNode

from .app_state import KismetState
from .source import GameSource


def kismet_app(node: DOMNode) -> KismetState:
    app = node.app
    if not isinstance(app, KismetState):
        raise TypeError(
            f"{type(node).__name__} runs only inside a Kismet app, not {type(app).__name__}"
        )
    return app


class OnKismetApp:
    """A mixin for our screens: the app's state, typed, and the source their game comes from."""

    @property
    def kismet(self) -> KismetState:
        assert isinstance(self, DOMNode)
        return kismet_app(self)

    @property
    def client(self) -> GameSource:
        return self.kismet.client
