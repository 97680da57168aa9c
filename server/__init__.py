"""`kismet-host`: the process that seats players, stamps their actions and keeps the logs.

Imports only the rules engine and the protocol; `server.cli` is the composition root that
may add bots.
"""

from .host import Host

__all__ = ["Host"]
