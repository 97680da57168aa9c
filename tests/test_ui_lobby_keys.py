"""The lobby's footer fits 80 columns in every state (its help key never cut), and the
lobby's help page lists every key the footer may offer."""

from __future__ import annotations

import pytest

from server.doors.open_up import OpenHost
from tests.netutil import connected, running_host
from tests.uiutil import make_app, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


def footer_fits(app, width: int = 80) -> list[tuple[str, int]]:
    """The footer's keys whose right edge is beyond `width` (none: it fits)."""
    return [
        (key.description, key.region.right)
        for key in app.screen.query("FooterKey")
        if key.region.right > width or key.region.width == 0
    ]


async def drawn(pilot, app) -> None:
    await wait_for(
        pilot,
        lambda: (
            len(app.screen.query("FooterKey")) > 0
            and all(key.region.width > 0 for key in app.screen.query("FooterKey"))
        ),
        what="the footer drawn",
    )


async def test_the_lobby_footer_fits_80_columns_with_and_without_a_table(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        app, client = make_app(host, "Ana")

        # As `kismet` alone: o Invite offered (the doors, never opened here, bind loopback).
        app.invitation = OpenHost(
            host, tmp_path, port=0, ssh_port=0, announce=False, bind="127.0.0.1"
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await bo.create_table("dice", {})
            await pilot.press("r")
            await wait_for(pilot, lambda: bool(app.screen.tables), what="the table list")
            await drawn(pilot, app)
            assert not footer_fits(app), footer_fits(app)
            assert {"Invite", "Records", "Help"} <= {
                k.description for k in app.screen.query("FooterKey")
            }
            await pilot.press("n", "enter")  # a table of Ana's own: she owns it
            await wait_for(
                pilot,
                lambda: client.table is not None and type(app.screen).__name__ == "LobbyScreen",
                what="Ana's table",
            )
            await bo.leave()
            await bo.join_table(client.table["id"])
            await wait_for(pilot, lambda: len(client.table["seats"]) == 2, what="Bo seated")
            await pilot.pause()
            await drawn(pilot, app)
            await wait_for(
                pilot,
                lambda: "Remove" in {k.description for k in app.screen.query("FooterKey")},
                what="the owner's keys",
            )
            assert not footer_fits(app), [
                (k.description, k.region.right) for k in app.screen.query("FooterKey")
            ]
            assert "Help" in {k.description for k in app.screen.query("FooterKey")}
            await client.close()


def test_the_lobby_help_lists_every_lobby_key():
    from kismet_tui.screens.help import LOBBY_HELP
    from kismet_tui.screens.lobby import LobbyScreen

    listed = set()
    for line in LOBBY_HELP.splitlines():
        if line.startswith("| `"):
            listed |= {part.strip("`") for part in line.split("|")[1].strip().split(" or ")}
    for binding in LobbyScreen.BINDINGS:
        key = binding.key.split(",")[0]
        assert key in listed, f"the lobby help does not list `{key}` ({binding.description})"
