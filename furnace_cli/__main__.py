import sys

from furnace_cli import main

sys.exit(main())
