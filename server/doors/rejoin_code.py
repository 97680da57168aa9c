"""Rejoin codes: the secret that proves a keyless ssh player is the one who sat down.

A player who logs in over ssh without a key has nothing else to tell them from anyone who
types the same NAME, so at first sitting the door shows them a short code, and asks for it
when that NAME comes back while its seat is held. The code is eight letters and digits from
an alphabet without look-alikes (no 0/O, 1/I/L), shown as ABCD-EFGH and read back in any
case, with or without the dash or spaces: some 2^39 codes, and a login gets three tries,
after which it is asked for another name (and not asked for that code again).

Guesses are limited beyond the login too (`Guesses`): wrong codes from one address, and at
one name from anywhere, a few a minute; past that the door says "Too many tries: wait a
minute." without looking at the code, and logs that once, not every guess.

The code is shown at login, before the game opens, and stays on screen until the player
presses enter to say they have it; in the game the help (`?`) and the lobby's top line show
it again (kismet_tui/door_env.py hands it to the app).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections import deque
from collections.abc import Callable

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 8
TRIES = 3  # wrong codes one login may type before it is closed
# Wrong codes one address, and one name (whoever types them), may have in GUESS_WINDOW.
GUESSES = 5
GUESS_WINDOW = 60.0
TOO_MANY = "Too many tries: wait a minute."
# Beyond this many addresses and names remembered, those with no recent guess are forgotten.
REMEMBERED = 4096


def first_words(name: str, code: str) -> str:
    """What a keyless player reads at their first login, up to the enter that opens the game."""
    return (
        f"\r\nYour rejoin code is {shown(code)}.\r\n"
        f"Write it down: if your line drops, log in as {name} again and type it to take "
        f"your seat back.\r\nIn the game, ? shows it again, and so does the lobby's top "
        f"line.\r\nPress enter when you have it: "
    )


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def shown(code: str) -> str:
    """The code as the player reads it: ABCD-EFGH."""
    return f"{code[:4]}-{code[4:]}"


def read_back(typed: str) -> str | None:
    """A typed code in its plain form, or None when it cannot be one."""
    code = "".join(typed.split()).replace("-", "").upper()
    if len(code) != LENGTH or any(letter not in ALPHABET for letter in code):
        return None
    return code


def identity(name: str, code: str) -> str:
    """What proves this player to the host (their door pass): never the code itself."""
    return "ssh-code " + hashlib.sha256(f"{name}\0{code}".encode()).hexdigest()


class Guesses:
    """Wrong rejoin codes of the last GUESS_WINDOW seconds, per address and per name (its
    look-alike key, protocol.text.name_key, so "Nora" and "nora" share a count)."""

    def __init__(
        self,
        most: int = GUESSES,
        window: float = GUESS_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.most, self.window, self.clock = most, window, clock
        self._wrong: dict[str, deque[float]] = {}  # "address ..." / "name ..." -> when

    def allowed(self, address: str, name: str) -> bool:
        """This address may try a code for this name now."""
        return all(len(self._recent(key)) < self.most for key in self._keys(address, name))

    def wrong(self, address: str, name: str) -> bool:
        """A wrong code typed; True when it is the one that reaches the limit (say it once)."""
        now = self.clock()
        reached = False
        for key in self._keys(address, name):
            times = self._recent(key)
            times.append(now)
            reached = reached or len(times) == self.most
        if len(self._wrong) > REMEMBERED:
            for key in [key for key in self._wrong if not self._recent(key)]:
                del self._wrong[key]
        return reached

    def _recent(self, key: str) -> deque[float]:
        times = self._wrong.setdefault(key, deque())
        while times and times[0] <= self.clock() - self.window:
            times.popleft()
        return times

    @staticmethod
    def _keys(address: str, name: str) -> tuple[str, str]:
        from protocol.text import name_key

        return f"address {address}", f"name {name_key(name)}"
