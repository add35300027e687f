"""``python -m tileir.cache show|clear|path``."""

import sys

from . import main

sys.exit(main())
