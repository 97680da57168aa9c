"""The limits on every field of a client message's body (docs/protocol.md, "Framing").

`check_body` holds a whole message within them: text keys only, texts and keys of at most
MAX_TEXT_BYTES, nesting of at most MAX_DEPTH levels, whole numbers within MIN_INT..MAX_INT,
no floats, no binary data; `plain_data` copies one field of plain data within them. A breach
raises ProtocolError('bad_message') with words that say which field and how.
"""

from __future__ import annotations

from collections.abc import Collection

from . import limits
from .errors import ProtocolError
from .plain import Plain


def _bad(words: str) -> ProtocolError:
    return ProtocolError("bad_message", words)


def check_body(message: Plain, read: Collection[str]) -> None:
    """The limits on every field of a client body (docs/protocol.md, "Framing"), for the
    fields the host did not read: text keys only, texts and keys of at most MAX_TEXT_BYTES,
    nesting of at most MAX_DEPTH levels (the body is the first), whole numbers within
    MIN_INT..MAX_INT, no floats, no binary data. The fields in `read` (the message's own,
    `type` and `id`) were checked by their checkers, each at least as strictly (entropy, the
    only binary value, among them) but for a text's bytes, which are counted here, so a
    field the host ignores carries no more than one it reads."""
    for key, value in message.items():
        if not isinstance(key, str):
            raise _bad("A message may have only text keys, not binary ones.")
        if key in read:
            if isinstance(value, str):  # (its checker counted characters, not bytes)
                _text_within(value, key, None)
            continue
        if len(key) * 4 > limits.MAX_TEXT_BYTES and len(key.encode()) > limits.MAX_TEXT_BYTES:
            raise _bad(f"A message holds a key longer than {limits.MAX_TEXT_BYTES} bytes.")
        _within_limits(value, key, 2, None)


def _within_limits(value: object, field: str, level: int, max_chars: int | None) -> object:
    """`value` (at nesting `level` if it is a map or a list) within the body limits, and its
    texts (keys too) within `max_chars` characters if given; a copy of it."""
    if isinstance(value, str):
        _text_within(value, field, max_chars)
        return value
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        if not limits.MIN_INT <= value <= limits.MAX_INT:
            raise _bad(f"'{field}' holds a number too large for the host.")
        return value
    if isinstance(value, (list, dict)) and level > limits.MAX_DEPTH:
        raise _bad(
            f"'{field}' is nested too deeply (at most {limits.MAX_DEPTH} levels, "
            f"the message itself the first)."
        )
    if isinstance(value, list):
        # (A whole number within the limits, what most lists hold, is taken without a call.)
        return [
            item
            if type(item) is int and limits.MIN_INT <= item <= limits.MAX_INT
            else _within_limits(item, field, level + 1, max_chars)
            for item in value
        ]
    if isinstance(value, dict):
        copy = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _bad(f"'{field}' may have only text keys, not binary ones.")
            _text_within(key, field, max_chars)
            copy[key] = _within_limits(item, field, level + 1, max_chars)
        return copy
    if isinstance(value, float):
        raise _bad(f"'{field}' holds a fraction: the host takes only whole numbers.")
    if isinstance(value, bytes):
        raise _bad(f"'{field}' holds binary data: the host takes only text there.")
    raise _bad(f"'{field}' may hold only maps, lists, text, whole numbers and true/false.")


def _text_within(text: str, field: str, max_chars: int | None) -> None:
    if len(text) * 4 <= limits.MAX_TEXT_BYTES and (max_chars is None or len(text) <= max_chars):
        return  # (the common case, at the cost of two comparisons)
    if max_chars is not None and len(text) > max_chars:
        raise _bad(f"'{field}' holds a text longer than {max_chars} characters.")
    if len(text.encode()) > limits.MAX_TEXT_BYTES:
        raise _bad(f"'{field}' holds a text longer than {limits.MAX_TEXT_BYTES} bytes.")


def plain_data(value: object, field: str) -> object:
    """A copy of a field of the body: maps with text keys, lists, text, whole numbers,
    booleans and nil (what game actions and options are made of), within the body limits
    (check_body), each text and key in it at most MAX_VALUE_TEXT characters."""
    return _within_limits(value, field, 2, limits.MAX_VALUE_TEXT)
