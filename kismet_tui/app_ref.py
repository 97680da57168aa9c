"""`kismet_app(node)`: the KismetApp a screen or widget runs in, typed as such; and
`OnKismetApp`, which gives a screen `self.kismet` and `self.client` (its game source).

Textual types `node.app` as a plain `App`, so reading the app's state (`client`,
`connection`, `notice`) or calling its helpers (`send`, `show_refusal`) would be untyped;
every screen and widget of ours runs inside a KismetApp, and this says so once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.dom import DOMNode

if TYPE_CHECKING:
    from .app import KismetApp
    from .source import GameSource


def kismet_app(node: DOMNode) -> KismetApp:
    from .app import KismetApp

    app = node.app
    if not isinstance(app, KismetApp):
        raise TypeError(f"{type(node).__name__} runs only inside a KismetApp, not {type(app).__name__}")
    return app


class OnKismetApp:
    """A mixin for our screens: the app, typed, and the source their game comes from."""

    @property
    def kismet(self) -> KismetApp:
        assert isinstance(self, DOMNode)
        return kismet_app(self)

    @property
    def client(self) -> GameSource:
        return self.kismet.client
