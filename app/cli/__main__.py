"""``python -m app.cli``: the ``bjaudit`` command."""

import sys

from app.cli import main

sys.exit(main())
