"""Shared pytest configuration for the Python tests.

``@pytest.mark.gpu`` marks tests that need a CUDA GPU and driver; they are skipped
when the driver library cannot be loaded or reports no device.
"""

import ctypes
import os

import pytest

_GPU_STATE = None


def _gpu_available():
    global _GPU_STATE
    if _GPU_STATE is None:
        name = "nvcuda.dll" if os.name == "nt" else "libcuda.so.1"
        try:
            lib = ctypes.CDLL(name)
            count = ctypes.c_int(0)
            ok = lib.cuInit(0) == 0 and lib.cuDeviceGetCount(ctypes.byref(count)) == 0
            _GPU_STATE = bool(ok and count.value > 0)
        except (OSError, AttributeError):
            _GPU_STATE = False
    return _GPU_STATE


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU and driver")
    # The tests' compiles go to a cache of their own, not the user's ~/.cache/tileir
    # (tests that study the cache set TILEIR_CACHE_DIR themselves).
    if "TILEIR_CACHE_DIR" not in os.environ:
        import tempfile

        os.environ["TILEIR_CACHE_DIR"] = tempfile.mkdtemp(prefix="tileir-test-cache-")


def pytest_collection_modifyitems(config, items):
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items or _gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU and driver (libcuda could not be "
                                   "loaded or found no device)")
    for item in gpu_items:
        item.add_marker(skip)
