import sys

from condorcfg.cli import main

sys.exit(main())
