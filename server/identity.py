"""The host's identity: one Ed25519 key in the state folder, for the ssh door and for signing
finished games, so players see one fingerprint wherever they meet this host.

    identity = HostIdentity.load(state_dir)   # made once (mode 600), then always the same
    identity.fingerprint                      # "SHA256:..." as ssh shows it
    identity.sign(message)                    # 64 bytes (protocol/logsign.py says what is signed)

`HostIdentity.when_needed(state_dir)` is the same identity, read (or made) the first time
anything of it is asked for: `kismet` signs only when a game ends, so its first screen does
not wait for cryptography and the key file (benchmarks/startup.py).

The key is kept in OpenSSH's private key format (`host_ed25519_key`), so the ssh door reads
the same bytes. A state folder from before the identity has the ssh door's own key
(`ssh_host_ed25519_key`): that key is adopted, so returning ssh players see no new key and
logs are signed with the fingerprint they already know.
"""

from __future__ import annotations

import os
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
    __slots__ = ("_key", "_public_key", "_fingerprint", "path", "_state_dir", "_lock")

    def __init__(self, private_key: Ed25519PrivateKey, path: Path | None = None):
        self.path = path
        self._state_dir: Path | None = None  # set (until read) by when_needed
        self._lock = threading.Lock()
        self._hold(private_key)

    def _hold(self, private_key: Ed25519PrivateKey) -> None:
        from cryptography.hazmat.primitives import serialization

        self._key = private_key
        self._public_key = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self._fingerprint = fingerprint(self._public_key)

    @classmethod
    def when_needed(cls, state_dir: str | Path) -> HostIdentity:
        """The identity `load(state_dir)` gives, read the first time it is used (from any
        thread); a key file it cannot use raises IdentityError then."""
        identity = cls.__new__(cls)
        identity.path = Path(state_dir) / KEY_FILE
        identity._state_dir = Path(state_dir)
        identity._lock = threading.Lock()
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


def _openssh_bytes(key: Ed25519PrivateKey) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
                             serialization.NoEncryption())


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
