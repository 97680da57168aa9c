"""`kismet` alone opens its embedded host to friends on purpose (issue 30 point 5): `o`
(Invite) asks first, saying what opens, where and who can come in; it lets in only the keys
pasted there and/or friends who type the evening's password (the game's own port, which asks
nothing, only when chosen); it shows the lines to share, the lobby's top line says it is
open, and `o` again closes it. Every door here binds 127.0.0.1 and announces nothing."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest
from textual.widgets import RichLog, TextArea

from kismet_tui.cli import solo_host
from kismet_tui.invite import InviteChoice
from server.cli import default_state_dir
from server.doors.open_up import OpenHost
from server.identity import KEY_FILE, HostIdentity
from tests.netutil import connected, host_process, running_host, wait_until
from tests.sshutil import Terminal, connect, have_the_code, ssh_login
from tests.uiutil import make_app, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


def log_text(app) -> str:
    return "\n".join(str(line.text) for line in app.screen.query_one("#lobbylog", RichLog).lines)


def status_text(app) -> str:
    from kismet_tui.widgets.status import StatusBar

    return str(app.screen.query_one(StatusBar).render())


def loopback_doors(host, tmp_path) -> OpenHost:
    return OpenHost(host, tmp_path, port=0, ssh_port=0, announce=False, bind="127.0.0.1")


async def ask(pilot, app) -> None:
    """o: the asking box, nothing open yet."""
    await pilot.press("o")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "InviteScreen", what="the question")


async def login_with_password(port: int, name: str, password: str) -> Terminal:
    conn = await connect(port, name, None, password=password)
    chan, term = await conn.create_session(
        Terminal, term_type="xterm", term_size=(80, 24), encoding=None
    )
    term.conn = conn
    return term


async def test_invite_asks_first_and_escape_opens_nothing(tmp_path):
    async with running_host(tmp_path) as host:
        doors = loopback_doors(host, tmp_path)
        app, client = make_app(host, "Ana")
        app.invitation = doors
        try:
            async with app.run_test(size=(100, 40)) as pilot:
                await wait_for(pilot, lambda: client.state == "connected", what="connection")
                await ask(pilot, app)
                words = str(app.screen.query_one("#invite-words").render())
                assert "What opens: an ssh door" in words and "127.0.0.1" in words
                assert "Who comes in: only friends whose public keys you paste" in words
                assert doors.ssh is None and doors.server is None  # asked, nothing opened
                # Nothing chosen: the box stays and says why.
                await pilot.press("ctrl+o")
                await wait_for(
                    pilot,
                    lambda: (
                        "let nobody in" in str(app.screen.query_one("#invite-problem").render())
                    ),
                    what="the words",
                )
                assert doors.ssh is None
                await pilot.press("escape")
                await wait_for(
                    pilot, lambda: type(app.screen).__name__ == "LobbyScreen", what="the lobby"
                )
                assert not doors.is_open and "Invite open" not in status_text(app)
                await client.close()
        finally:
            await doors.close()


async def test_invite_with_keys_lets_in_only_those_keys_and_o_closes_it(tmp_path):
    friend = asyncssh.generate_private_key("ssh-ed25519")
    stranger = asyncssh.generate_private_key("ssh-ed25519")
    async with running_host(tmp_path) as host:
        doors = loopback_doors(host, tmp_path)
        app, client = make_app(host, "Ana")
        app.invitation = doors
        try:
            async with app.run_test(size=(100, 40)) as pilot:
                await wait_for(pilot, lambda: client.state == "connected", what="connection")
                await ask(pilot, app)
                app.screen.query_one("#invite-keys", TextArea).load_text(
                    friend.export_public_key().decode()
                )  # pasted
                await pilot.press("ctrl+o")
                await wait_for(pilot, lambda: "ssh -p" in log_text(app), what="the lines to share")
                text = log_text(app)
                assert f"ssh -p {doors.ssh.port} NAME@127.0.0.1" in text
                assert "the 1 friend whose key you pasted" in text and "password" not in text
                assert "kismet-join" not in text and doors.server is None  # not chosen
                await wait_for(
                    pilot,
                    lambda: "Invite open: o closes it" in status_text(app),
                    what="the top line",
                )
                port = doors.ssh.port
                async with ssh_login(port, "Cy", friend) as cy:
                    await cy.wait_for_text("Tables")
                for key in (stranger, None):  # another key, or none: not let in
                    with pytest.raises(asyncssh.PermissionDenied):
                        async with ssh_login(port, "Eve", key):
                            pass
                await pilot.press("o")  # closes it again
                await wait_for(pilot, lambda: not doors.is_open, what="closed")
                assert "Invite closed" in log_text(app) and "Invite open" not in status_text(app)
                with pytest.raises(OSError):
                    async with ssh_login(port, "Cy", friend):
                        pass
                await client.close()
        finally:
            await doors.close()


async def test_invite_with_a_password_lets_in_keyless_friends_who_type_it(tmp_path):
    async with running_host(tmp_path) as host:
        doors = loopback_doors(host, tmp_path)
        app, client = make_app(host, "Ana")
        app.invitation = doors
        try:
            async with app.run_test(size=(100, 40)) as pilot:
                await wait_for(pilot, lambda: client.state == "connected", what="connection")
                await ask(pilot, app)
                await pilot.click("#invite-password")
                await pilot.press("ctrl+o")
                await wait_for(
                    pilot, lambda: "Tonight's password" in log_text(app), what="the password"
                )
                password = doors.password
                assert password and password in log_text(app)
                with pytest.raises(asyncssh.PermissionDenied):
                    await login_with_password(doors.ssh.port, "Eve", "not-it")
                with pytest.raises(asyncssh.PermissionDenied):  # no key was pasted
                    async with ssh_login(
                        doors.ssh.port, "Eve", asyncssh.generate_private_key("ssh-ed25519")
                    ):
                        pass
                dee = await login_with_password(doors.ssh.port, "Dee", password)
                try:
                    await have_the_code(dee)  # keyless: her rejoin code first
                    await dee.wait_for_text("Tables")
                finally:
                    dee.conn.close()
                await client.close()
        finally:
            await doors.close()


async def test_the_game_port_opens_only_when_chosen(tmp_path):
    async with running_host(tmp_path) as host:
        doors = loopback_doors(host, tmp_path)
        app, client = make_app(host, "Ana")
        app.invitation = doors
        try:
            async with app.run_test(size=(100, 40)) as pilot:
                await wait_for(pilot, lambda: client.state == "connected", what="connection")
                await ask(pilot, app)
                await pilot.click("#invite-password")
                await pilot.click("#invite-join")
                await pilot.press("ctrl+o")
                await wait_for(
                    pilot, lambda: "kismet-join" in log_text(app), what="the lines to share"
                )
                port = doors.server.sockets[0].getsockname()[1]
                assert f"kismet-join 127.0.0.1:{port}" in log_text(app)
                async with connected(port, "Bo"):
                    assert any(p.name == "Bo" and p.conn is not None for p in host.players.values())
                await client.close()
        finally:
            await doors.close()


async def test_the_key_is_not_offered_without_a_host_to_open(tmp_path):
    async with running_host(tmp_path) as host:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            assert not app.screen.check_action("open_network", ())
            await client.close()


async def test_invite_keeps_to_its_own_folder_never_a_running_kismet_hosts(tmp_path):
    # A kismet-host runs on the default state folder (this session's, conftest's), holding
    # its lock; `kismet` plays from its own folder and opens its doors with `o`.
    with host_process(default_state_dir(), bots=0):
        busy = Path(default_state_dir())
        await wait_until(lambda: (busy / KEY_FILE).exists(), timeout=30)
        key = (busy / KEY_FILE).read_bytes()
        solo = tmp_path / "solo"
        host, doors = solo_host(solo)
        host.claim_state_folder()
        await host.start("127.0.0.1", 0)
        doors.port, doors.ssh_port, doors.announce, doors.bind = 0, 0, False, "127.0.0.1"
        try:
            await doors.open(InviteChoice(password=True))
            assert doors.ssh is not None and doors.password is not None
            cy = await login_with_password(doors.ssh.port, "Cy", doors.password)
            try:  # keyless: a seats file is kept
                await have_the_code(cy)
                await cy.wait_for_text("Tables")
                await wait_until(lambda: any((solo / "ssh-seats").rglob("*.json")), timeout=30)
            finally:
                cy.conn.close()
            # The door's key and the games' are kismet's own, in its own folder.
            assert doors.ssh.fingerprint == HostIdentity.load(solo).fingerprint
            assert host.store.identity.fingerprint == doors.ssh.fingerprint
        finally:
            await doors.close()
            await host.stop()
        # Nothing of the Invite's in the running host's folder (which that host writes to).
        assert (busy / KEY_FILE).read_bytes() == key
        assert not [path for path in busy.rglob("*") if "seats" in path.name], list(busy.rglob("*"))
