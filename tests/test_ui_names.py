"""Long names cut to fit end in an ellipsis, and no possessive is glued onto a cut name."""

from __future__ import annotations

import pytest

from kismet_tui.screens.dice import column_names
from kismet_tui.screens.race import render_players, reveal_words
from kismet_tui.widgets.names import fit, possessive
from tests.netutil import connected, running_host
from tests.uiutil import make_app, seat_both, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]

ANA = "Bartholomew Longname"  # 20 characters: "...'s throw" would not fit under the dice
BO = "Bo Longername-Jones"


async def test_knock_screen_cuts_long_names_with_an_ellipsis(tmp_path):
    async with running_host(tmp_path) as host, connected(host, BO) as other:
        app, client = make_app(host, ANA)
        async with app.run_test(size=(80, 24)) as pilot:
            await seat_both(pilot, app, client, other, "knock", {"knock_window_ms": 0})
            game = client.game
            await pilot.press("enter")  # nothing laid in advance
            await other.prelay([])
            await wait_for(pilot, lambda: game.phase == "play", 5, "the pre-lays")
            # The first throw, whoever's it is.
            await wait_for(pilot, lambda: game.view(1)["stage"] == "roll", what="a throw to make")
            if game.view(1)["turn"] == 1:
                await pilot.press("r")
            else:
                await other.act({"type": "roll"})
            await wait_for(pilot, lambda: game.view(1)["roll"] is not None, 5, "a throw")
            await wait_for(
                pilot,
                lambda: "Throw: " in str(app.screen.query_one("#dice").content),
                what="the throw's caption",
            )
            roll = game.view(1)["roll"]
            caption = str(app.screen.query_one("#dice").content).splitlines()[-1].strip()
            expected = (
                "Throw: Bartholomew Long…" if roll["roller"] == 1 else "Throw: Bo Longername-Jo…"
            )
            if roll["joker"]:  # (the host's dice: " JOKER" takes its room, the name is cut more)
                name = ANA if roll["roller"] == 1 else BO
                shown = caption.removeprefix("Throw: ").removesuffix(" JOKER")
                assert caption.endswith(" JOKER") and shown.endswith("…"), caption
                assert name.startswith(shown[:-1]) and len(shown) >= 10, caption
            else:
                assert caption.startswith(expected), caption
            assert "…'s" not in caption
            # The status line fits 80 columns: the help hint yields to the long name, and the
            # long name to the turn's clock [D31] (cut with an ellipsis, or left out).
            status = str(app.screen.query_one("StatusBar").content)
            assert "turn: " in status and " left" in status and len(status) <= 80, status
            assert (
                "you are" not in status
                or status.rstrip().endswith("…")
                or "you are Bartholomew Longname" in status
            ), status
            others = str(app.screen.query_one("#others").content)
            assert "Bo Longer…" in others and "Bo Longern" not in others
            await client.close()


def test_dice_headings_and_race_scores_cut_with_an_ellipsis():
    assert column_names(["Ana", "Bot 1 (medium)", "Rosalind"], 4) == ["Ana", "Bot1", "Ros…"]
    assert fit("Ana", 9, pad=True) == "Ana      "
    assert possessive("Ana", "throw", 25) == "Ana's throw"
    view = {
        "players": [
            {"seat": 0, "score": 12, "pile_count": 3},
            {"seat": 1, "score": 0, "pile_count": 0},
        ],
        "phase": "pause",
        "last_round": {"wiped": None, "reveals": [{"seat": 0, "number": 7, "right": True}]},
    }
    names = ["Bartholomew Longname", "Bo"]
    players = render_players(view, names, 1).plain
    assert "Bartholo…" in players and "Bartholom " not in players
    assert reveal_words(view, names).startswith("Barthol… 7✓")


async def test_names_and_chat_are_plain_text_never_markup(tmp_path):
    """A name or a chat line in Rich's markup ("[b]...") shows as typed in the table list and
    the chat. (The host turns brackets into parentheses; the client must not rely on it, so
    the messages are handed to the app as if a host had sent them.)"""
    from kismet_tui.messages import host_message

    name = "[red]Bo[/red]"
    async with running_host(tmp_path) as host:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            lobby = app.screen
            # The lobby's own first list (empty) has come and gone: no request is waiting
            # for its answer, and the app has handled every message.
            await wait_for(
                pilot,
                lambda: not client._pending and all(q.empty() for q in client._queues),
                what="the lobby's first table list",
            )
            await pilot.pause()
            app.post_message(
                host_message(
                    {
                        "type": "tables",
                        "tables": [
                            {
                                "id": 7,
                                "ruleset": "[i]x",
                                "state": "lobby",
                                "seats": [name],
                                "max_seats": 8,
                            }
                        ],
                    }
                )
            )
            await wait_for(pilot, lambda: bool(lobby.tables), what="the table list")
            grid = lobby.query_one("#tables")

            def drawn() -> str:
                return "\n".join(grid.render_line(y).text for y in range(grid.size.height))

            await wait_for(pilot, lambda: "[i]x" in drawn(), what="the table drawn")
            drawn = drawn()
            assert "[i]x" in drawn and name[:8] in drawn, drawn
            app.post_message(
                host_message(
                    {"type": "chat", "name": name, "text": "[bold]hello[/bold] [link=x]y[/link]"}
                )
            )
            await wait_for(pilot, lambda: len(app.chat_lines) == 1, what="the chat line")
            await wait_for(
                pilot,
                lambda: (
                    "hello" in " ".join(line.text for line in lobby.query_one("#lobbylog").lines)
                ),
                what="the chat line in the lobby log",
            )
            log = " ".join(line.text for line in lobby.query_one("#lobbylog").lines)
            assert f"{name}: [bold]hello[/bold] [link=x]y[/link]" in log
            await client.close()
