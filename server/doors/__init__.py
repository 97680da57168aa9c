"""The doors: the ways in for a player with nothing installed, each session a client process
of its own on this machine.

Owns the ssh door (ssh.py, who may log in: ssh_keys.py, keyless players' rejoin codes:
rejoin_code.py) and the browser door (web.py, its page in web_page/, each visitor's game:
web_session.py), the pty a session runs on (pty_app.py), what a session may cost
(door_limits.py: its window, memory and lifetime, how many at once; door_starts.py: how many
start at once; memory_watch.py where the system sets no memory limit), what it may open (session_sandbox.py, and its
seat folder: seat_files.py), the warm parent that forks sessions (warm_doors.py on the host's
side, door_forker.py the parent itself), the passes that tell the host who a session's
player is (door_pass.py), and the Invite's opening of a running `kismet` to friends
(open_up.py).

The core of the host (server/) knows the doors only by their passes (`DoorPasses`, which it
holds, and `DoorPass`, which a connection carries). Nothing here is imported until a door
opens, and importing this package imports none of its modules: doors are POSIX-only, while
the clients that import `server.doors.open_up` for their Invite must import on Windows too.
"""
