"""``python -m clients list-games --server HOST:PORT``: the client commands standalone."""

import sys

from clients.cli import main

if __name__ == "__main__":
    sys.exit(main())
