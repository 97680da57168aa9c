"""Shell completion scripts made from a command's own argparse parser (`--completion SHELL`).

Made from the parser, they cannot drift from the options: every long option is offered,
an option with choices (`--door-sessions`, `--log-level`) offers them, and one that takes a
FILE or a folder offers the file names there. bash gets a `complete -F` function, zsh the
same through its bashcompinit, fish one `complete` line per option.
"""

from __future__ import annotations

import argparse
import re

FILE_WORDS = ("FILE", "DIR", "STATE_DIR")  # metavars (or destinations) that name a path


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    if shell == "fish":
        return fish(parser)
    text = bash(parser)
    if shell == "zsh":
        return "autoload -U +X bashcompinit && bashcompinit\n" + text
    return text


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The parser's actions that are options shown in --help."""
    return [
        action
        for action in parser._actions
        if action.option_strings and action.help != argparse.SUPPRESS
    ]


def takes_path(action: argparse.Action) -> bool:
    name = str(action.metavar or action.dest).upper()
    return action.nargs != 0 and any(word in name for word in FILE_WORDS)


def takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0 and action.nargs != "?"


def function_name(prog: str) -> str:
    return "_" + re.sub(r"[^A-Za-z0-9_]", "_", prog)


def bash(parser: argparse.ArgumentParser) -> str:
    prog = parser.prog
    words = " ".join(sorted(s for a in options(parser) for s in a.option_strings))
    cases = []
    for action in options(parser):
        names = "|".join(action.option_strings)
        if action.choices is not None:
            choices = " ".join(map(str, action.choices))
            cases.append(
                f'        {names}) COMPREPLY=($(compgen -W "{choices}" -- "$cur")); return ;;'
            )
        elif takes_path(action):
            cases.append(f'        {names}) COMPREPLY=($(compgen -f -- "$cur")); return ;;')
        elif takes_value(action):
            cases.append(f"        {names}) return ;;")  # a number or a name: nothing to offer
    body = "\n".join(cases)
    name = function_name(prog)
    return f"""# {prog} completion for bash (made by `{prog} --completion bash`)
{name}() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    case "$prev" in
{body}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "{words}" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}}
complete -o filenames -F {name} {prog}
"""


def fish(parser: argparse.ArgumentParser) -> str:
    prog = parser.prog
    lines = [f"# {prog} completion for fish (made by `{prog} --completion fish`)"]
    for action in options(parser):
        line = f"complete -c {prog}"
        for option in action.option_strings:
            line += f" -l {option[2:]}" if option.startswith("--") else f" -s {option[1:]}"
        if action.choices is not None:
            line += " -x -a " + quoted(" ".join(map(str, action.choices)))
        elif takes_path(action):
            line += " -r -F"
        elif takes_value(action):
            line += " -x"
        if action.help:
            line += " -d " + quoted(action.help.split(" (")[0].split(";")[0])
        lines.append(line)
    return "\n".join(lines) + "\n"


def quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
