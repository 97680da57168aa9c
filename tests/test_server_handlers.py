"""The host answers every client request type the protocol declares with its own handler.

The handlers are wired in one table (server/host.py HANDLERS); a type added to the protocol
without a handler would be answered "internal" by the host, so this names it instead. Each
handler takes its own request's declaration (protocol/requests.py), which a table of them
can only call `Any`: so this checks too that each is filed under its declaration's type.
"""

import inspect
from typing import get_args

from protocol.requests import REQUESTS, Request
from server.host import HANDLERS


def test_every_client_message_type_has_a_handler_and_no_handler_is_orphaned():
    assert sorted(set(REQUESTS) - set(HANDLERS)) == []
    assert sorted(set(HANDLERS) - set(REQUESTS)) == []


def test_each_handler_takes_the_request_it_is_filed_under():
    declared = {get_args(d.__annotations__["type"])[0]: d.__name__ for d in get_args(Request)}
    annotations = {
        kind: inspect.signature(h).parameters["msg"].annotation for kind, h in HANDLERS.items()
    }
    # (a name where the handler's module postpones its annotations, else the class itself)
    taken = {kind: getattr(a, "__name__", a) for kind, a in annotations.items()}
    assert taken == declared
