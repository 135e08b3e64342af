"""``python -m ai_server serve --port 50051``: the server without the ``furnace`` CLI."""

import sys

from ai_server.cli import main

if __name__ == "__main__":
    sys.exit(main())
