"""The host keys this computer's player has met, as ssh keeps its known_hosts.

`kismet-join` remembers the key a host shows in its `welcome` the first time it joins it,
under the address joined ("192.168.1.20:7717"); `kismet` remembers its own embedded host's
as "this computer". `kismet-replay --verify` then says whether a game was signed by a host
the player played at (kismet_tui/log_check.py). A host's key that changed is told to the
player in words, as ssh does, but play goes on (its owner may have made a new key): the new
key is remembered and the old one kept in `earlier`, so games signed before still verify.

Kept in the player's own folder (kismet_tui/player_files.py, `known-hosts.json`, readable by
the user alone), never in a host's state folder:

    {"hosts": {"192.168.1.20:7717": {"key": "<64 hex digits>", "earlier": ["<hex>", ...]}}}

A door session (ssh or browser) remembers nothing: it runs as the host's user, so the file
would be the host's (cli.py skips it, as it skips the player key).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from protocol.logsign import PUBLIC_KEY_BYTES, fingerprint

FILE_NAME = "known-hosts.json"
THIS_COMPUTER = "this computer"  # where `kismet`'s own host is remembered


def default_path() -> Path:
    from .player_files import path

    return path(FILE_NAME)  # the player's own folder (moved there from the old place)


def _read(path: Path) -> dict[str, dict[str, object]]:
    """The file's hosts; a file that cannot be read or is not of this form is set aside
    (`known-hosts.json.damaged`, for its owner to look at) and counts as empty."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        data = None
    hosts = data.get("hosts") if isinstance(data, dict) else None
    if not isinstance(hosts, dict) or not all(isinstance(entry, dict) for entry in hosts.values()):
        try:
            os.replace(path, path.with_name(path.name + ".damaged"))
        except OSError:
            pass
        return {}
    return hosts


def _keys_of(entry: dict[str, object]) -> list[bytes]:
    """The entry's keys, the current one first; any that is not 32 bytes of hex is skipped."""
    earlier = entry.get("earlier")
    written = [entry.get("key"), *(earlier if isinstance(earlier, list) else [])]
    keys = []
    for text in written:
        try:
            key = bytes.fromhex(text) if isinstance(text, str) else b""
        except ValueError:
            continue
        if len(key) == PUBLIC_KEY_BYTES:
            keys.append(key)
    return keys


def remember(address: str, key: bytes, path: Path | None = None) -> str | None:
    """Remember that the host at `address` showed `key`. Returns words for the player when
    it showed another key before (like ssh's warning), else None. A file that cannot be
    written is no reason to stop playing: nothing is remembered then."""
    path = path or default_path()
    hosts = _read(path)
    entry = hosts.get(address)
    before = _keys_of(entry) if entry is not None else []
    if before and before[0] == key:
        return None
    hosts[address] = {"key": key.hex(), "earlier": [old.hex() for old in before if old != key]}
    try:
        from .saved_seats import write_private

        write_private(path, {"hosts": hosts})
    except OSError:
        pass
    if not before:
        return None  # the first time: remembered, as ssh does
    return (
        f"The host at {address} shows another key than before: now {fingerprint(key)}, "
        f"before {fingerprint(before[0])}. If its owner made a new key, all is well; if "
        f"not, another computer may be answering at that address. Games it signs from "
        f"now on show the new key."
    )


def known_keys(path: Path | None = None) -> dict[bytes, list[str]]:
    """Each key this player has met, with the addresses that showed it (in the file's
    order). The key of this computer's own host (kismet's, in its solo folder, or kismet-host's
    default folder where kismet kept it before) counts as met: it is "this computer"."""
    found: dict[bytes, list[str]] = {}
    for address, entry in _read(path or default_path()).items():
        for key in _keys_of(entry):
            found.setdefault(key, []).append(address)
    from server.cli import default_state_dir
    from server.identity import public_key_in

    from .recent import solo_state_dir

    # kismet's own folder holds the key it signs with; before kismet kept its own, its games
    # were signed with the key in kismet-host's default folder: both are this computer's.
    for folder in (solo_state_dir(), Path(default_state_dir())):
        own = public_key_in(folder)
        if own is not None and THIS_COMPUTER not in found.get(own, []):
            found.setdefault(own, []).append(THIS_COMPUTER)
    return found
