"""The host's identity: one Ed25519 key in the state folder, for the ssh door and for signing
finished games, so players see one fingerprint wherever they meet this host.

    identity = HostIdentity.load(state_dir)   # made once (mode 600), then always the same
    identity.fingerprint                      # "SHA256:..." as ssh shows it
    identity.sign(message)                    # 64 bytes (protocol/logsign.py says what is signed)
    identity.shown_key()                      # the 32-byte public key, or None if unusable

`HostIdentity.when_needed(state_dir)` is the same identity, read (or made) the first time
anything of it is asked for: `kismet` signs only when a game ends, so its first screen does
not wait for cryptography and the key file (benchmarks/startup.py). Its public key (which
every `welcome` and game log header carries) is read from the key file's public part
without cryptography while nothing has needed the private key yet; before the file exists
(a first `kismet` ever, until its first game ends) none is shown.

The key is kept in OpenSSH's private key format (`host_ed25519_key`), so the ssh door reads
the same bytes. A state folder from before the identity has the ssh door's own key
(`ssh_host_ed25519_key`): that key is adopted, so returning ssh players see no new key and
logs are signed with the fingerprint they already know.
"""

from __future__ import annotations

import base64
import os
import struct
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from protocol.logsign import fingerprint

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

KEY_FILE = "host_ed25519_key"
LEGACY_SSH_KEY_FILE = "ssh_host_ed25519_key"  # what `kismet-host --ssh` made before


class IdentityError(OSError):
    """The key file exists but is not an Ed25519 private key this host can use."""


class HostIdentity:
    __slots__ = ("_key", "_public_key", "_fingerprint", "path", "_state_dir", "_lock", "_peeked")

    def __init__(self, private_key: Ed25519PrivateKey, path: Path | None = None):
        self.path = path
        self._state_dir: Path | None = None  # set (until read) by when_needed
        self._peeked: bytes | None = None  # the public key read from the file before that
        self._lock = threading.Lock()
        self._hold(private_key)

    def _hold(self, private_key: Ed25519PrivateKey) -> None:
        from cryptography.hazmat.primitives import serialization

        self._key = private_key
        self._public_key = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self._fingerprint = fingerprint(self._public_key)

    @classmethod
    def when_needed(cls, state_dir: str | Path) -> HostIdentity:
        """The identity `load(state_dir)` gives, read the first time it is used (from any
        thread); a key file it cannot use raises IdentityError then."""
        identity = cls.__new__(cls)
        identity.path = Path(state_dir) / KEY_FILE
        identity._state_dir = Path(state_dir)
        identity._lock = threading.Lock()
        identity._peeked = None
        return identity

    def _loaded(self) -> HostIdentity:
        if self._state_dir is not None:
            with self._lock:
                if self._state_dir is not None:
                    self._hold(_read_key(self._state_dir))
                    self._state_dir = None
        return self

    @property
    def private_key(self) -> Ed25519PrivateKey:
        return self._loaded()._key

    @property
    def public_key(self) -> bytes:
        return self._loaded()._public_key

    @property
    def fingerprint(self) -> str:
        return self._loaded()._fingerprint

    def shown_key(self) -> bytes | None:
        """The public key to show (the `welcome`, a game log's header). Until the private
        key is needed it is read from the key file's public part (no cryptography, see the
        module's words), and None while there is no such file: the first game's end makes
        it. None too when the key file cannot be used, which that end then says (it cannot
        be signed: server/saving.py)."""
        if self._state_dir is not None:
            if self._peeked is None:
                self._peeked = public_key_in(self._state_dir)
            return self._peeked
        try:
            return self.public_key
        except OSError:  # IdentityError, or a folder it cannot write the new key into
            return None

    @classmethod
    def load(cls, state_dir: str | Path) -> HostIdentity:
        """The identity kept in `state_dir`: read, adopted from the old ssh key, or made."""
        return cls(_read_key(state_dir), Path(state_dir) / KEY_FILE)

    def private_bytes(self) -> bytes:
        """The key in OpenSSH's format, for the ssh door (asyncssh.import_private_key)."""
        return _openssh_bytes(self.private_key)

    def sign(self, message: bytes) -> bytes:
        return self.private_key.sign(message)


def _read_key(state_dir: str | Path) -> Ed25519PrivateKey:
    """The key kept in `state_dir`: read, adopted from the old ssh key, or made."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    root = Path(state_dir)
    path = root / KEY_FILE
    if not path.exists():
        legacy = root / LEGACY_SSH_KEY_FILE
        if legacy.exists():
            _store_once(path, legacy.read_bytes())
        else:
            root.mkdir(parents=True, exist_ok=True)
            _store_once(path, _openssh_bytes(Ed25519PrivateKey.generate()))
    os.chmod(path, 0o600)  # a copy restored from a backup may have come back readable
    data = path.read_bytes()
    try:
        key = serialization.load_ssh_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise IdentityError(f"{path} is not a usable private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise IdentityError(f"{path} is not an Ed25519 key")
    return key


def public_key_in(state_dir: Path) -> bytes | None:
    """The public key of the identity kept in `state_dir`, read without cryptography and
    without making one: an OpenSSH private key file holds it in the clear (its public part,
    OpenSSH's PROTOCOL.key: magic, cipher, kdf, kdf options, key count 1, then the public
    key's blob). None when there is no key file or it is not of that form."""
    try:
        text = (state_dir / KEY_FILE).read_text(encoding="ascii")
        body = "".join(line for line in text.splitlines() if line and not line.startswith("-----"))
        data = base64.b64decode(body, validate=True)
    except (OSError, ValueError):
        return None
    magic = b"openssh-key-v1\0"
    if not data.startswith(magic):
        return None
    found = _ssh_strings(data, len(magic), 3)  # cipher, kdf, kdf options
    if found is None or data[found[1] : found[1] + 4] != b"\0\0\0\1":
        return None  # one key per file, as this host writes it
    blob = _ssh_strings(data, found[1] + 4, 1)
    fields = _ssh_strings(blob[0][0], 0, 2) if blob is not None else None
    if fields is None or fields[0] != [b"ssh-ed25519", fields[0][1]] or len(fields[0][1]) != 32:
        return None
    return fields[0][1]


def _ssh_strings(data: bytes, at: int, count: int) -> tuple[list[bytes], int] | None:
    """`count` ssh strings (uint32 length, then the bytes) from `data` at `at`, and where
    they end; None if the data is cut short."""
    found = []
    for _ in range(count):
        if at + 4 > len(data):
            return None
        (length,) = struct.unpack_from(">I", data, at)
        if at + 4 + length > len(data):
            return None
        found.append(data[at + 4 : at + 4 + length])
        at += 4 + length
    return found, at


def _openssh_bytes(key: Ed25519PrivateKey) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    )


def _store_once(path: Path, data: bytes) -> None:
    """Write the key file unless another process got there first (then theirs is kept):
    a private temporary file, linked into place, which fails if the name exists."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
    finally:
        temporary.unlink(missing_ok=True)
