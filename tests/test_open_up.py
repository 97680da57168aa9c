"""`kismet` alone opens its embedded host to the network from the lobby with one key, then
shows the lines friends type; a friend then really gets in, over the host's protocol and
over ssh."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest
from textual.widgets import RichLog

from kismet_tui.cli import solo_host
from server.cli import default_state_dir
from server.identity import KEY_FILE, HostIdentity
from server.open_up import OpenHost
from tests.netutil import connected, host_process, running_host, wait_until
from tests.sshutil import ssh_login
from tests.test_ui_dice import wait_for
from tests.test_ui_games import make_app

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


def log_text(app) -> str:
    return "\n".join(str(line.text) for line in app.screen.query_one("#lobbylog", RichLog).lines)


async def test_one_key_opens_the_embedded_host_and_shows_the_lines_to_type(tmp_path):
    async with running_host(tmp_path) as host:
        doors = OpenHost(host, tmp_path, port=0, ssh_port=0, announce=False)
        app, client = make_app(host, "Ana")
        app.open_to_network = doors.open
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                await wait_for(pilot, lambda: client.state == "connected", what="connection")
                assert app.screen.check_action("open_network", ()) is True
                await pilot.press("o")
                await wait_for(pilot, lambda: "ssh -p" in log_text(app), what="the lines to type")
                text = log_text(app)
                port = doors.server.sockets[0].getsockname()[1]
                assert "kismet-join " in text and f":{port}" in text
                assert f"ssh -p {doors.ssh.port} NAME@" in text
                assert not app.screen.check_action("open_network", ()), "opened once"
                # A friend on the network port, and one over ssh, are members of this host.
                async with connected(port, "Bo"):
                    async with ssh_login(doors.ssh.port, "Cy", asyncssh.generate_private_key("ssh-ed25519")) as cy:
                        await cy.wait_for_text("Tables")
                        names = {p.name for p in host.players.values() if p.conn is not None}
                        assert {"Ana", "Bo", "Cy"} <= names
                await client.close()
        finally:
            await doors.stop()


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
        doors.port, doors.ssh_port, doors.announce = 0, 0, False
        try:
            await doors.open()
            async with ssh_login(doors.ssh.port, "Cy") as cy:   # keyless: a seats file is kept
                await cy.wait_for_text("Tables")
                await wait_until(lambda: any((solo / "ssh-seats").rglob("*.json")), timeout=30)
            # The door's key and the games' are kismet's own, in its own folder.
            assert doors.ssh.fingerprint == HostIdentity.load(solo).fingerprint
            assert host.store.identity.fingerprint == doors.ssh.fingerprint
        finally:
            await doors.stop()
            await host.stop()
        # Nothing of the Invite's in the running host's folder (which that host writes to).
        assert (busy / KEY_FILE).read_bytes() == key
        assert not [path for path in busy.rglob("*") if "seats" in path.name], list(busy.rglob("*"))
