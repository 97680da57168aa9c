"""msgpack packing for everything the host and the client write: the same bytes as
`msgpack.packb(value, use_bin_type=True)`, by one Packer per thread.

`packb` makes a new Packer, with its buffer, for every call, which cost more than packing an
event itself (1.5 us for an event's fields, where a kept Packer takes 0.5); the host packs
several maps per event. A Packer is not shared between threads (the records' worker and the
store's threads pack too), and nothing it packs calls back into Python, so one call never
interrupts another on the same thread.
"""

from __future__ import annotations

import threading

import msgpack

_kept = threading.local()


def pack(value: object) -> bytes:
    """`value` packed as `msgpack.packb(value, use_bin_type=True)` packs it."""
    try:
        packer = _kept.packer
    except AttributeError:
        packer = _kept.packer = msgpack.Packer(use_bin_type=True)
    packed: bytes = packer.pack(value)
    return packed
