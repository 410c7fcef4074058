"""`python -m app` runs the `palimpsest` command."""

import sys

from app.main import main

sys.exit(main())
