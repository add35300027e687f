"""Device helpers for running kernels without torch or CuPy: ``to_device``, ``empty``,
``DeviceArray`` (with ``__cuda_array_interface__``), events and synchronization."""

from ._toolchain.cuda import (DeviceArray, Event, empty, is_available, synchronize,  # noqa: F401
                              to_device)
