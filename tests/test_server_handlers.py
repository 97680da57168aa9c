"""The host answers every client message type the protocol defines with its own handler.

The handlers are wired in one table (server/host.py HANDLERS); a type added to the protocol
without a handler would be answered "internal" by the host, so this names it instead.
"""

from protocol.messages import CLIENT_MESSAGES
from server.host import HANDLERS


def test_every_client_message_type_has_a_handler_and_no_handler_is_orphaned():
    assert sorted(set(CLIENT_MESSAGES) - set(HANDLERS)) == []
    assert sorted(set(HANDLERS) - set(CLIENT_MESSAGES)) == []
