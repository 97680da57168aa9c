"""`kismet-host`: the process that seats players, stamps their actions and keeps the logs.

The core (this folder) holds connections, the lobby, the tables, the logs and resume;
server/records/ the records, server/doors/ the ssh and browser doors, server/lan/ the LAN
announcement. The core imports only the rules engine and the protocol, and knows the doors
only by their passes; `server.cli` is the composition root that may add bots and opens the
doors and the announcement.
"""

from .host import Host

__all__ = ["Host"]
