"""The doors: the ways in for a player with nothing installed, each session a client process
of its own on this machine.

Owns the ssh door (ssh.py, who may log in: ssh_keys.py, keyless players' rejoin codes:
rejoin_code.py) and the browser door (web.py, its page in web_page/, each visitor's game:
web_session.py), the pty a session runs on (pty_app.py), what a session may cost
(door_limits.py: its window, memory and lifetime, how many at once; door_starts.py: how many
start at once; memory_watch.py where the system sets no memory limit), the one policy both
doors hold a running session to (session_policy.py: its input's budget and backlog, and
whether it died of its memory limit), what it may open (session_sandbox.py, and its
seat folder: seat_files.py), the warm parent that forks sessions (warm_doors.py on the host's
side, door_forker.py the parent itself), the passes that tell the host who a session's
player is (door_pass.py), and the Invite's opening of a running `kismet` to friends
(open_up.py).

The core of the host (server/) knows the doors only by their passes (`DoorPasses`, which it
holds, and `DoorPass`, which a connection carries); the doors use the core's per-address cap
(server/peer_cap.py) and token bucket (server/token_bucket.py), so every way in keeps one
rule. Only door_pass.py loads with the host; the rest when a door opens. Importing this
package imports none of its modules: the doors are POSIX-only, while the clients that import
`server.doors.open_up` for their Invite must import on Windows too.
"""

import warnings

# asyncssh names DSA in its annotations, which newer cryptography (48) deprecates with a
# warning at import: five lines of a library's words at every start of a host with a door,
# about a key type this host never makes (ssh_keys.py). Only that warning, from asyncssh.
warnings.filterwarnings("ignore", message="DSA is deprecated", module=r"asyncssh(\.|$)")
