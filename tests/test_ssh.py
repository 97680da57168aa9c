"""`kismet-host --ssh`: a real ssh client (asyncssh's) logs in to an in-process host's ssh
server and plays through the app it gets; everything else over that port is refused."""

from __future__ import annotations

import logging
import stat

import asyncssh
import pytest

from server import Host
from server.doors.ssh import SshServer, load_host_key
from server.identity import KEY_FILE
from tests.netutil import wait_until
from tests.sshutil import (
    Terminal,
    connect,
    have_the_code,
    new_key,
    open_solo_dice,
    rejoin_code_shown,
    ssh_host,
    ssh_login,
    start_lines,
)

pytestmark = [pytest.mark.network, pytest.mark.timeout(180)]


def ana_player(host, name="Ana"):
    return next((p for p in host.players.values() if p.name == name), None)


async def test_login_opens_the_lobby_and_plays_a_solo_dice_table_by_keys(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            assert ana_player(host) is not None, "the ssh player is a member of this host"
            table = await open_solo_dice(term, host)
            assert table.ruleset == "dice" and table.seats[0].name == "Ana"
            await term.wait_for(lambda: "throw" in term.text().lower(), what="the dice screen")
            term.press(b"r")
            await wait_until(lambda: table.game.view(0)["rolls_used"] == 1, timeout=30)


async def test_window_change_reaches_the_app(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            # (The first frame may reach the terminal in more than one write: wait for it.)
            await term.wait_for(
                lambda: term.screen.display[23].strip() != "", what="the footer at line 24"
            )
            term.resize(100, 30)
            # The app draws again at the new size: its footer moves to the 30th line, and the
            # lobby grows to the new width.
            await term.wait_for(
                lambda: term.screen.display[29].strip() != "", what="the footer at line 30"
            )
            await term.wait_for(
                lambda: any(line[80:].strip() for line in term.screen.display),
                what="something drawn beyond column 80",
            )


async def test_exec_subsystem_forwarding_and_no_terminal_are_refused(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with connect(ssh.port, "Eve", new_key()) as conn:
            with pytest.raises(asyncssh.ChannelOpenError):
                await conn.run("cat /etc/passwd", check=False)
            with pytest.raises((asyncssh.SFTPError, asyncssh.ChannelOpenError)):
                await conn.start_sftp_client()
            with pytest.raises(asyncssh.ChannelOpenError):
                await conn.open_connection("127.0.0.1", host.port)
            with pytest.raises(asyncssh.ChannelListenError):
                await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", host.port)
            # A shell without a terminal: one plain line, then closed.
            result = await conn.run(check=False, encoding="utf-8")
            assert "terminal" in result.stdout and result.stdout.count("\n") == 1
            assert result.exit_status == 1
        assert ana_player(host, "Eve") is None, "nobody joined the host"


async def test_ssh_keys_lets_in_only_the_listed_keys(tmp_path):
    listed, other = new_key(), new_key()
    keys_file = tmp_path / "authorized_keys"
    keys_file.write_bytes(listed.export_public_key())
    async with ssh_host(tmp_path, keys_file=keys_file) as (host, ssh):
        with pytest.raises(asyncssh.PermissionDenied):
            async with connect(ssh.port, "Eve", other):
                pass
        with pytest.raises(asyncssh.PermissionDenied):
            async with connect(ssh.port, "Eve", None, password="x"):
                pass
        async with ssh_login(ssh.port, "Ana", listed) as term:
            await term.wait_for_text("Tables")


async def test_open_host_lets_in_a_player_without_a_key(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        # (asyncssh's client tries keyboard-interactive only when it has a password to give;
        # OpenSSH always does. The host asks no question.)
        async with connect(ssh.port, "Bo", None, password="unused") as conn:
            chan, term = await conn.create_session(
                Terminal, term_type="xterm", term_size=(80, 24), encoding=None
            )
            await have_the_code(term)
            await term.wait_for_text("Tables")
            chan.close()


async def test_dropped_session_takes_the_seat_back_with_the_same_name_and_key(tmp_path):
    key = new_key()
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", key) as term:
            table = await open_solo_dice(term, host)
            seat_token = table.seats[0].token
            term.conn.abort()  # the line drops, no goodbye
        await wait_until(lambda: table.game.away[0], timeout=30)
        assert host.players[seat_token].conn is None and table.seats[0].token == seat_token

        # Somebody else typing the same name is asked for another one, and comes in as
        # somebody new.
        async with ssh_login(ssh.port, "Ana", new_key()) as other:
            await other.wait_for_text("Somebody called Ana is already at this host.")
            other.press(b"Ann\r")
            await other.wait_for_text("Tables")
            await wait_until(lambda: ana_player(host, "Ann") is not None, timeout=30)
            assert host.players[seat_token].conn is None and table.game.away[0]

        async with ssh_login(ssh.port, "Ana", key) as back:
            await wait_until(lambda: host.players[seat_token].conn is not None, timeout=30)
            await wait_until(lambda: not table.game.away[0], timeout=30)
            await back.wait_for(
                lambda: "throw" in back.text().lower(), what="the dice screen again"
            )


async def test_too_many_logins_from_one_address_are_refused_in_plain_words(tmp_path):
    async with ssh_host(tmp_path, max_per_address=1, cap_loopback=True) as (host, ssh):
        async with connect(ssh.port, "Ana", new_key()):
            with pytest.raises(
                asyncssh.DisconnectError, match="already 1 players from your address"
            ):
                async with connect(ssh.port, "Bo", new_key()):
                    pass


def test_host_key_is_made_once_and_kept_private(tmp_path):
    first = load_host_key(tmp_path)
    mode = stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode)
    assert mode == 0o600
    again = load_host_key(tmp_path)
    assert again.get_fingerprint() == first.get_fingerprint()


def test_kismet_host_prints_the_ssh_command_and_the_keys_fingerprint(tmp_path):
    lines, ssh_port = start_lines(tmp_path)
    assert f"ssh -p {ssh_port} NAME@127.0.0.1" in lines
    key = load_host_key(tmp_path)  # the key it made, kept in its state folder
    assert lines[-1] == f"(this host's ssh key: {key.get_fingerprint('sha256')})"


def test_ssh_keys_without_ssh_is_a_plain_error(capsys):
    from server.cli import main

    with pytest.raises(SystemExit):
        main(["--ssh-keys", "keys.txt"])
    assert "--ssh-keys goes with --ssh." in capsys.readouterr().err


async def test_stopping_the_server_ends_every_session_and_its_app(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            app = next(iter(ssh.sessions)).app
            await ssh.stop()
            await wait_until(term.closed.is_set, timeout=30)
            await wait_until(lambda: app.proc.returncode is not None, timeout=30)
            # The player's terminal is given back plain (main screen, cursor, no mouse
            # reports), with words, not left showing the board until they type `reset`.
            received = bytes(term.received)
            assert received.rfind(b"\x1b[?1049l") > received.rfind(b"\x1b[?1049h") >= 0
            assert received.rfind(b"\x1b[?25h") > received.rfind(b"\x1b[?25l")
            assert received.rfind(b"\x1b[?1000l") > received.rfind(b"\x1b[?1000h")
            assert b"The host stopped" in received[received.rfind(b"\x1b[?1049l") :]


def test_the_app_draws_for_the_players_terminal_not_the_hosts(monkeypatch):
    from server.doors.pty_app import child_environment

    monkeypatch.setenv("COLORTERM", "truecolor")  # the host owner's terminal
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    env = child_environment("xterm-256color")
    assert env["TERM"] == "xterm-256color"
    assert "COLORTERM" not in env and "COLUMNS" not in env and "TEXTUAL_DRIVER" not in env
    env = child_environment("xterm", {"COLORTERM": "truecolor", "LD_PRELOAD": "/tmp/x.so"})
    assert env["COLORTERM"] == "truecolor" and env.get("LD_PRELOAD") != "/tmp/x.so"


async def drop_from_a_dice_game(ssh, host, name):
    """A keyless player sits at a solo dice game, then the line drops; returns (table,
    their seat's token, the rejoin code they were shown)."""
    async with ssh_login(ssh.port, name) as term:
        await have_the_code(term)
        table = await open_solo_dice(term, host)
        code = rejoin_code_shown(term)
        term.conn.abort()
    await wait_until(lambda: table.game.away[0], timeout=30)
    return table, table.seats[0].token, code


async def test_a_keyless_seat_is_given_back_only_for_its_rejoin_code(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        table, seat_token, code = await drop_from_a_dice_game(ssh, host, "nora")

        # Somebody else without a key types the name: asked for the code, a wrong one (or
        # one that is not a code at all) gives nothing, and enter picks a new name.
        async with ssh_login(ssh.port, "nora") as thief:
            await thief.wait_for_text(
                "Rejoin code for nora (shown when you first logged in as nora),"
            )
            await thief.wait_for_text("or enter to pick a new name:")
            wrong = "ABCD-EFGH" if code != "ABCD-EFGH" else "HGFE-DCBA"
            thief.press(wrong.encode() + b"\r")
            await thief.wait_for_text("That is not the rejoin code for nora.")
            thief.press(b"nora\r")
            await wait_until(
                lambda: thief.text().count("That is not the rejoin code") == 2, timeout=30
            )
            thief.press(b"\r")
            await thief.wait_for_text("Somebody called nora is already at this host.")
            thief.press(b"Eve\r")
            await have_the_code(thief)  # Eve is new here: her own code
            await thief.wait_for_text("Tables")
            assert host.players[seat_token].conn is None and table.game.away[0]

        # nora herself, with her code (typed in small letters, without the dash).
        async with ssh_login(ssh.port, "nora") as back:
            await back.wait_for_text("Rejoin code for nora")
            back.press(code.replace("-", "").lower().encode() + b"\r")
            await wait_until(lambda: host.players[seat_token].conn is not None, timeout=30)
            await wait_until(lambda: not table.game.away[0], timeout=30)
            await back.wait_for(
                lambda: "throw" in back.text().lower(), what="the dice screen again"
            )
            # The app keeps the code where she can read it again: in the help.
            back.press(b"?")
            await back.wait_for_text(f"Your rejoin code: {code}")


async def test_three_wrong_rejoin_codes_lead_to_a_new_name_and_the_seat_stays(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        table, seat_token, code = await drop_from_a_dice_game(ssh, host, "nora")
        async with ssh_login(ssh.port, "nora") as thief:
            for tries in range(3):
                await thief.wait_for(
                    lambda: bytes(thief.received).count(b"pick a new name:") == tries + 1,
                    what="the question for the code",
                )
                thief.press(b"2222-2222\r" if code != "2222-2222" else b"3333-3333\r")
            await thief.wait_for(
                lambda: (
                    b"typed three wrong codes: please pick another name." in bytes(thief.received)
                ),
                what="the words",
            )
            await thief.wait_for_text("Your name at the table:")
            # The same name again is not asked for its code a fourth time.
            thief.press(b"nora\r")
            await wait_until(
                lambda: bytes(thief.received).count(b"three wrong codes") == 2, timeout=30
            )
            assert bytes(thief.received).count(b"pick a new name:") == 3
            thief.press(b"Eve\r")
            await have_the_code(thief)
            await thief.wait_for_text("Tables")
            assert not thief.closed.is_set()
        assert host.players[seat_token].conn is None and table.game.away[0]
        assert not any(p.name == "nora" and p.token != seat_token for p in host.players.values())


async def code_asked(port: int, name: str, source: str):
    """A keyless login as `name` from the loopback address `source`, at the question for the
    code; returns (its connection, its Terminal)."""
    conn = await connect(port, name, password="unused", local_addr=(source, 0))
    _chan, term = await conn.create_session(
        Terminal, term_type="xterm", term_size=(80, 24), encoding=None
    )
    await term.wait_for_text(f"Rejoin code for {name}")
    return conn, term


async def test_rejoin_code_guesses_are_limited_per_address_and_per_name(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="kismet.ssh")
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "nora") as nora, ssh_login(ssh.port, "cy") as cy:
            await have_the_code(nora)
            await have_the_code(cy)
            code = rejoin_code_shown(nora)
            await nora.wait_for_text("Tables")
            await cy.wait_for_text("Tables")
            wrong = b"2222-2222\r" if code != "2222-2222" else b"3333-3333\r"
            # One address guesses at nora: a login's three tries (then it is asked for another
            # name), then two more at most.
            conn, thief = await code_asked(ssh.port, "nora", "127.0.0.1")
            for tries in range(3):
                await thief.wait_for(
                    lambda: bytes(thief.received).count(b"pick a new name:") == tries + 1
                )
                thief.press(wrong)
            await thief.wait_for_text("already at this host, and this login has typed three")
            conn.close()
            conn, thief = await code_asked(ssh.port, "nora", "127.0.0.1")
            thief.press(wrong)
            await thief.wait_for(lambda: bytes(thief.received).count(b"pick a new name:") == 2)
            thief.press(wrong)
            await thief.wait_for_text("Too many tries: wait a minute.")
            await wait_until(thief.closed.is_set, timeout=30)
            conn.close()
            # Per address: that address may not try cy's code either...
            conn, thief = await code_asked(ssh.port, "cy", "127.0.0.1")
            thief.press(wrong)
            await thief.wait_for_text("Too many tries: wait a minute.")
            conn.close()
            # ...and per name: another address may not try nora's, even with the right code
            # (a guess is not looked at, so the limit tells nothing).
            conn, other = await code_asked(ssh.port, "nora", "127.0.0.2")
            other.press(code.encode() + b"\r")
            await other.wait_for_text("Too many tries: wait a minute.")
            conn.close()
            assert all(p.conn is not None for p in host.players.values() if p.name == "nora")
    lines = [r for r in caplog.records if "rejoin code" in r.getMessage()]
    assert len(lines) <= 2, [r.getMessage() for r in lines]


async def test_a_key_does_not_open_a_keyless_players_seat(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        table, seat_token, code = await drop_from_a_dice_game(ssh, host, "nora")
        async with ssh_login(ssh.port, "nora", new_key()) as other:
            await other.wait_for_text("Somebody called nora is already at this host.")
        assert host.players[seat_token].conn is None


async def test_a_keyless_seat_waits_for_its_code_across_a_restart(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        table, seat_token, code = await drop_from_a_dice_game(ssh, host, "nora")
        port = host.port
    # Another host on the same state folder and port resumes the game: nobody is connected,
    # and the name still asks for its code.
    host = Host(state_dir=tmp_path)
    await host.start("127.0.0.1", port)
    ssh = SshServer(host, tmp_path)
    await ssh.start("127.0.0.1", 0)
    try:
        assert len(host.tables) == 1
        async with ssh_login(ssh.port, "nora") as thief:
            await thief.wait_for_text("Rejoin code for nora")
        async with ssh_login(ssh.port, "nora") as back:
            await back.wait_for_text("Rejoin code for nora")
            back.press(code.encode() + b"\r")
            await back.wait_for(
                lambda: "throw" in back.text().lower(), what="the dice screen again"
            )
    finally:
        await ssh.stop()
        await host.stop()
