"""One listener's queue of host messages (kismet_tui/net/client.py `messages()`), with chat bounded.

Everything the host says waits here, in order, until the listener takes it, except chat:
a listener that falls behind (a busy screen, a bot thinking) must not hold an ever longer
queue of other people's lines. At most `chat_waiting` chat lines wait; more arriving
meanwhile are not kept but counted, in one `chat_skipped` message (the host's own word for
lines a connection missed, docs/protocol.md "Chat") that waits in their place and counts on
until it is taken. Game events, tables and answers are never dropped.

    >>> inbox = Inbox(chat_waiting=2)
    >>> for n in range(5):
    ...     inbox.put({"type": "chat", "text": str(n)})
    >>> inbox.put({"type": "event", "seq": 1})
    >>> [m["type"] for m in inbox.waiting()]
    ['chat', 'chat', 'chat_skipped', 'event']
    >>> inbox.waiting()[2]["count"]
    3
"""

from __future__ import annotations

import asyncio
from collections import deque

from protocol import limits
from protocol.host_messages import ChatSkippedMessage

from .published import Published


def skipped_words(count: int) -> str:
    lines = "1 line of chat was" if count == 1 else f"{count} lines of chat were"
    return f"{lines} skipped: more came than could be shown."


class Inbox:
    """A FIFO of host messages for one listener; `get` waits for the next."""

    def __init__(self, chat_waiting: int = limits.CLIENT_CHAT_WAITING) -> None:
        self.chat_waiting = chat_waiting
        self._items: deque[Published] = deque()
        self._chats = 0  # chat lines among _items
        self._skipped: ChatSkippedMessage | None = (
            None  # the chat_skipped among _items that counts on
        )
        self._arrived = asyncio.Event()

    def put(self, message: Published) -> None:
        if message.get("type") == "chat":
            if self._chats >= self.chat_waiting:
                self._skip()
                return
            self._chats += 1
        self._items.append(message)
        self._arrived.set()

    def _skip(self) -> None:
        note = self._skipped
        if note is None:
            note = self._skipped = {"type": "chat_skipped", "count": 0, "words": ""}
            self._items.append(note)
            self._arrived.set()
        note["count"] += 1
        note["words"] = skipped_words(note["count"])

    async def get(self) -> Published:
        while not self._items:
            self._arrived.clear()
            await self._arrived.wait()
        message = self._items.popleft()
        if message is self._skipped:
            self._skipped = None
        elif message.get("type") == "chat":
            self._chats -= 1
        return message

    def empty(self) -> bool:
        return not self._items

    def waiting(self) -> list[Published]:
        """What waits now, oldest first (for tests and the curious)."""
        return list(self._items)
