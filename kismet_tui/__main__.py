"""`python -m kismet_tui`: the `kismet` command (play now, against bots)."""

import sys

from .cli import local_main

if __name__ == "__main__":
    sys.exit(local_main())
