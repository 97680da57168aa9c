"""Rejoin codes: the secret that proves a keyless ssh player is the one who sat down.

A player who logs in over ssh without a key has nothing else to tell them from anyone who
types the same NAME, so at first sitting the door shows them a short code, and asks for it
when that NAME comes back while its seat is held. The code is eight letters and digits from
an alphabet without look-alikes (no 0/O, 1/I/L), shown as ABCD-EFGH and read back in any
case, with or without the dash or spaces: some 2^39 codes, and a login gets three tries,
after which it is asked for another name (and not asked for that code again).

The code is shown at login, before the game opens, and stays on screen until the player
presses enter to say they have it; in the game the help (`?`) and the lobby's top line show
it again (kismet_tui/door_env.py hands it to the app).
"""

from __future__ import annotations

import hashlib
import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 8
TRIES = 3   # wrong codes one login may type before it is closed


def first_words(name: str, code: str) -> str:
    """What a keyless player reads at their first login, up to the enter that opens the game."""
    return (f"\r\nYour rejoin code is {shown(code)}.\r\n"
            f"Write it down: if your line drops, log in as {name} again and type it to take "
            f"your seat back.\r\nIn the game, ? shows it again, and so does the lobby's top "
            f"line.\r\nPress enter when you have it: ")


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
