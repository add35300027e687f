"""Environment variables read by the toolchain (to be folded into ``tileir.knobs``).

Every environment lookup of the toolchain goes through a function here, so that the
set of variables tileir honours is listed in one place.
"""

from __future__ import annotations

import os
from typing import Optional

__all__ = ["ptxas_override"]


def ptxas_override() -> Optional[str]:
    """``TILEIR_PTXAS``: path of the ptxas executable to use (or a CUDA directory)."""
    value = os.environ.get("TILEIR_PTXAS")
    return value or None
