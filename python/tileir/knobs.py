"""The one place tileir reads environment variables.

- ``TILEIR_PTXAS``: path of the ptxas to use (overrides the search).
- ``TILEIR_DUMP_DIR``: when set, each compile writes its stage texts there.
"""

import os
from typing import Optional


def ptxas_override() -> Optional[str]:
    return os.environ.get("TILEIR_PTXAS") or None


def dump_dir() -> Optional[str]:
    return os.environ.get("TILEIR_DUMP_DIR") or None
