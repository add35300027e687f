"""The one place tileir reads environment variables.

- ``TILEIR_PTXAS``: path of the ptxas to use (overrides the search).
- ``TILEIR_DUMP_DIR``: when set, each compile writes its stage texts there.
- ``TILEIR_CACHE_DIR``: the persistent compile cache's folder (default: ``tileir`` under the
  user's cache folder, e.g. ``~/.cache/tileir``).
- ``TILEIR_CACHE``: ``0`` (or ``off``/``false``/``no``) turns the persistent cache off.
- ``TILEIR_CACHE_MAX_BYTES``: size bound of the persistent cache (default 1 GiB); the
  least recently used entries go first. ``K``/``M``/``G`` suffixes are accepted.
- ``TILEIR_TOOLCHAIN_DIR``: where the PTX compiler library's shared object is built
  (default ``toolchain`` in the default cache folder, whatever TILEIR_CACHE_DIR says).
- ``TILEIR_PTX_COMPILER``: ``process`` forces the ptxas executable even where the
  in-process PTX compiler library is available; ``library`` requires the library.
"""

import os
import sys
from typing import Optional

DEFAULT_CACHE_MAX_BYTES = 1 << 30


def ptxas_override() -> Optional[str]:
    return os.environ.get("TILEIR_PTXAS") or None


def dump_dir() -> Optional[str]:
    return os.environ.get("TILEIR_DUMP_DIR") or None


def cache_enabled() -> bool:
    return os.environ.get("TILEIR_CACHE", "1").strip().lower() not in ("0", "off", "false", "no")


def cache_dir() -> str:
    """The persistent cache's folder (it need not exist yet)."""
    explicit = os.environ.get("TILEIR_CACHE_DIR")
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    return _default_cache_dir()


def _default_cache_dir() -> str:
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser(r"~\AppData\Local")
        return os.path.join(base, "tileir", "Cache")
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/tileir")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "tileir")


def toolchain_dir() -> str:
    """Where tileir keeps what it builds of the toolchain (the PTX compiler library's shared
    object): ``TILEIR_TOOLCHAIN_DIR``, else ``toolchain`` beside the default cache folder.
    Independent of TILEIR_CACHE_DIR, so that an empty kernel cache does not mean a rebuild."""
    explicit = os.environ.get("TILEIR_TOOLCHAIN_DIR")
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    return os.path.join(_default_cache_dir(), "toolchain")


def cache_max_bytes() -> int:
    text = os.environ.get("TILEIR_CACHE_MAX_BYTES", "").strip()
    if not text:
        return DEFAULT_CACHE_MAX_BYTES
    scale = 1
    text = text.upper()
    if text.endswith("IB"):
        text = text[:-2]
    elif text.endswith("B"):
        text = text[:-1]
    if text and text[-1] in "KMG":
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[text[-1]]
        text = text[:-1]
    try:
        return max(int(float(text) * scale), 0)
    except ValueError:
        raise ValueError(f"TILEIR_CACHE_MAX_BYTES must be a size in bytes (K/M/G suffixes allowed), got "
                         f"{os.environ.get('TILEIR_CACHE_MAX_BYTES')!r}") from None


def ptx_compiler() -> str:
    """``auto`` (default), ``process`` or ``library``."""
    value = (os.environ.get("TILEIR_PTX_COMPILER") or "auto").strip().lower()
    if value not in ("auto", "process", "library"):
        raise ValueError(f"TILEIR_PTX_COMPILER must be auto, process or library, got {value!r}")
    return value
