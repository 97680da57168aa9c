"""Every number that bounds what a peer may send or hold, in one place.

The host enforces these against clients; the client library enforces the host-side ones
against a host. docs/protocol.md lists them for other implementations.
"""

# Protocol version: a host accepts a hello only with exactly this version. Version 2: chance
# enters as events (commit, players' entropy, revealed values, seed revealed at the end).
# Version 3: the chance seed is keyed by the secret seed and the commit is domain-separated
# (kismet_tui.rules.rng), and a game's header says its `version`.
PROTOCOL_VERSION = 3
# The bytes of entropy a player sends with ready/start (kismet_tui.rules.rng.ENTROPY_BYTES).
ENTROPY_BYTES = 16

# ---- framing -------------------------------------------------------------------------------
# A frame is a 4-byte big-endian length, then that many bytes of one msgpack map.
HEADER_BYTES = 4
MAX_FRAME = 64 * 1024  # client -> host: refused before the body is read
MAX_HOST_FRAME = 8 * 1024 * 1024  # host -> client: a long game's full log fits

# msgpack unpacking limits for client frames (a frame is at most MAX_FRAME anyway; these stop
# a small frame from describing huge or deeply nested containers).
MAX_ARRAY_LEN = 256
MAX_MAP_LEN = 64
# Text is bounded by the frame only: each field then checks its own length, in its own words
# ("A name is at most 24 characters."), which a cut-off unpacker could not say.
MAX_STR_LEN = MAX_FRAME
MAX_BIN_LEN = 256
# Host frames carry whole logs: longer arrays, but the same care.
MAX_HOST_ARRAY_LEN = 200_000
MAX_HOST_MAP_LEN = 4096
MAX_DEPTH = 8  # levels of maps/lists in a client body (the body itself is 1)
MAX_TEXT_BYTES = 4096  # UTF-8 bytes of any one text (or key) in a client body
MAX_VALUE_TEXT = 256  # characters of one text inside options or an action
MIN_INT, MAX_INT = -(2**53 - 1), 2**53 - 1  # whole numbers a client may send (JSON-safe)

# ---- text ------------------------------------------------------------------------------------
MAX_NAME = 24  # characters in a player's name
MAX_CHAT = 300  # characters in one chat line
MAX_TOKEN = 64  # characters in a rejoin token
MAX_DOOR_PASS = 64  # characters in a door pass (server/doors/door_pass.py makes 32)
MAX_DIGEST = 128  # characters in a digest string
MAX_REQUEST_ID = 2**31 - 1  # a request id is 0 .. this

# ---- lobby -----------------------------------------------------------------------------------
MAX_TABLES = 200  # open tables per host
MAX_BOTS_PER_TABLE = 7
MAX_OPTIONS = 32  # keys in a table's options map

# ---- pace ------------------------------------------------------------------------------------
RATE_PER_SECOND = 40  # token bucket: messages per second, sustained
RATE_BURST = 80  # token bucket: messages at once
FLOOD_STRIKES = 40  # messages dropped for pace before the connection is closed
HELLO_TIMEOUT_S = 10.0  # a new connection must say hello within this
IDLE_TIMEOUT_S = 45.0  # a connection silent this long is closed (clients ping)
PING_INTERVAL_S = 10.0  # how often the client library pings
MAX_SEND_BUFFER = 2 * 1024 * 1024  # bytes queued to a slow reader before it is dropped

# ---- chat ------------------------------------------------------------------------------------
# Chat is bounded per table and per person, not only per connection (server/chat.py): each
# person at a table, seated or watching, may say CHAT_BURST lines at once and then one every
# CHAT_EVERY_S; the watchers of a table together share WATCHERS_CHAT_BURST lines, then one
# every WATCHERS_CHAT_EVERY_S. However many watchers there are, the players hear at most that
# much of them, and a player's own lines never wait behind theirs.
CHAT_BURST = 5
CHAT_EVERY_S = 1.0
WATCHERS_CHAT_BURST = 5
WATCHERS_CHAT_EVERY_S = 2.0
# Bytes waiting to be sent to a connection beyond which the chat lines for it are skipped
# (counted, and told as one line once it has caught up); game events are never skipped.
CHAT_BACKLOG = 64 * 1024
# Chat lines a client keeps (its log; older ones are dropped) and lets wait to be shown
# (more arriving while that many wait are counted and shown as one line).
CLIENT_CHAT_LINES = 200
CLIENT_CHAT_WAITING = 50

# ---- games -----------------------------------------------------------------------------------
DIGEST_EVERY = 32  # a client sends its digest at least every this many events
# [D20] A race grab or a knock that reaches the host sooner than this after the throw was
# written to the player's connection is refused (`too_quick`, at no cost): no person sees
# three dice and moves in less (simple visual reaction alone takes 150-250 ms), so such an
# action was sent before the dice could be seen. Bots wait at least this long too.
REACTION_FLOOR_MS = 100

# ---- records ---------------------------------------------------------------------------------
# The leaderboard lists a player once this many of their games moved their rating
# (docs/protocol.md, "Records"): anyone may come with a new key, but a newcomer who won once
# is no leader. (server/records/schema.py has it in an index: changing it takes a migration.)
MIN_RATED_GAMES = 3
