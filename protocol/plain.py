"""The type of what the wire carries: one decoded message or log record.

A message is a msgpack map with string keys; its values are plain data (ints, strings, bools,
None, bytes, lists and maps of them). The values stay `Any` because each message type has its
own fields, which `requests.parse_client` and `actions.build_action` check one by one.
"""

from __future__ import annotations

from typing import Any

Plain = dict[str, Any]
