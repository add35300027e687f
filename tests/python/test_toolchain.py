"""Tests of tileir._toolchain: the LLVM worker, ptxas, and the CUDA driver bindings.

Everything except the ``gpu`` tests runs on a machine without a GPU or driver. The
CUDA plumbing is exercised against a small fake ``libcuda`` (host memory, C source
below) when a C compiler is available.
"""

import ctypes
import os
import shutil
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from tileir._toolchain import (LLVMWorker, PtxasResult, find_ptxas, parse_ptxas_log,
                               ptxas_version, run_ptxas, warn_advisories)
from tileir._toolchain import cuda
from tileir._toolchain import llvm_worker as llvm_worker_mod
from tileir._toolchain import ptxas as ptxas_mod
from tileir.errors import (LaunchError, LLVMError, PtxasError, TileIRPerformanceWarning,
                           ToolchainError)

posix_only = pytest.mark.skipif(os.name != "posix", reason="uses POSIX shell scripts")

# A kernel that stores each thread's index: p[tid.x] = tid.x
STORE_TID_IR = """
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @k(ptr addrspace(1) %p) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %idx = zext i32 %tid to i64
  %slot = getelementptr inbounds i32, ptr addrspace(1) %p, i64 %idx
  store i32 %tid, ptr addrspace(1) %slot, align 4
  ret void
}
"""

# Shared memory, a barrier and a float scalar parameter: out[t] = s * t read back reversed.
SMEM_IR = """
@tile = internal addrspace(3) global [128 x float] undef, align 4

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @reverse_scale(ptr addrspace(1) %out, float %s) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tf = uitofp i32 %t to float
  %v = fmul float %tf, %s
  %dst = getelementptr inbounds float, ptr addrspace(3) @tile, i32 %t
  store float %v, ptr addrspace(3) %dst, align 4
  call void @llvm.nvvm.barrier0()
  %r = sub i32 127, %t
  %src = getelementptr inbounds float, ptr addrspace(3) @tile, i32 %r
  %w = load float, ptr addrspace(3) %src, align 4
  %i = zext i32 %t to i64
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %w, ptr addrspace(1) %o, align 4
  ret void
}
"""

# setmaxnreg exists only on sm_90a: compiling it for sm_80 is an LLVM fatal error.
# For sm_90a with only reqntid (no minctasm/maxnreg) ptxas ignores it with C7508.
SETMAXNREG_IR = """
declare void @llvm.nvvm.setmaxnreg.inc.sync.aligned.u32(i32 immarg)

define ptx_kernel void @grow() "nvvm.reqntid"="256,1,1" {
entry:
  call void @llvm.nvvm.setmaxnreg.inc.sync.aligned.u32(i32 240)
  ret void
}
"""

UNDEFINED_VALUE_IR = """
define void @f(i32 %a) {
entry:
  %x = add i32 %a, %nowhere
  ret void
}
"""

NOT_DOMINATING_IR = """
define void @f() {
entry:
  br label %next
next:
  %x = add i32 %y, 1
  %y = add i32 %x, 1
  ret void
}
"""


@pytest.fixture(scope="module")
def worker():
    w = LLVMWorker(timeout=60)
    yield w
    w.close()


@pytest.fixture(scope="module")
def tid_ptx(worker):
    return {cpu: worker.compile_to_ptx(STORE_TID_IR, cpu=cpu)[0] for cpu in ("sm_90a", "sm_80")}


def _has_ptxas():
    try:
        find_ptxas()
    except ToolchainError:
        return False
    return True


needs_ptxas = pytest.mark.skipif(not _has_ptxas(), reason="ptxas not installed")


# --------------------------------------------------------------------------------------
# LLVM worker
# --------------------------------------------------------------------------------------

def test_worker_compiles_kernel(worker):
    ptx, times = worker.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")
    assert ".entry k(" in ptx
    assert ".target sm_90a" in ptx
    assert "%tid.x" in ptx
    for key in ("parse", "verify", "opt", "codegen", "roundtrip"):
        assert times[key] >= 0.0
    versions = worker.versions()
    assert versions["llvm"].split(".")[0].isdigit()


def test_worker_opt_levels_and_ptx_version(worker):
    ptx0, _ = worker.compile_to_ptx(STORE_TID_IR, cpu="sm_80", features="+ptx80", opt_level=0)
    assert ".version 8.0" in ptx0 and ".target sm_80" in ptx0 and ".entry k(" in ptx0


def test_worker_is_deterministic(worker):
    a, _ = worker.compile_to_ptx(SMEM_IR, cpu="sm_90a")
    b, _ = worker.compile_to_ptx(SMEM_IR, cpu="sm_90a")
    assert a == b
    with LLVMWorker() as fresh:
        c, _ = fresh.compile_to_ptx(SMEM_IR, cpu="sm_90a")
    assert a == c


def test_worker_parse_error_is_llvm_message(worker):
    with pytest.raises(LLVMError) as info:
        worker.compile_to_ptx(UNDEFINED_VALUE_IR, cpu="sm_90a")
    assert "use of undefined value '%nowhere'" in str(info.value)
    assert info.value.stage == "parse"


def test_worker_verifier_error(worker):
    with pytest.raises(LLVMError) as info:
        worker.compile_to_ptx(NOT_DOMINATING_IR, cpu="sm_90a")
    assert "does not dominate" in str(info.value)
    assert info.value.stage == "verify"


def test_worker_rejects_bad_cpu_names(worker):
    with pytest.raises(LLVMError, match="invalid NVPTX cpu"):
        worker.compile_to_ptx(STORE_TID_IR, cpu="hopper")
    with pytest.raises(LLVMError, match="not a recognized processor"):
        worker.compile_to_ptx(STORE_TID_IR, cpu="sm_999")


def test_worker_survives_llvm_fatal_error(worker):
    worker.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")
    pid_before = worker.pid
    assert pid_before is not None
    with pytest.raises(LLVMError) as info:
        worker.compile_to_ptx(SETMAXNREG_IR, cpu="sm_80")
    message = str(info.value)
    assert "LLVM ERROR: Cannot select" in message
    assert "setmaxnreg" in message
    assert info.value.returncode not in (0, None)
    assert info.value.stage == "crash"
    assert worker.pid is None
    # ...and the next compile works, in a new process.
    ptx, times = worker.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")
    assert ".entry k(" in ptx
    assert "startup" in times
    assert worker.pid not in (None, pid_before)
    # sm_90a has the instruction.
    ptx, _ = worker.compile_to_ptx(SETMAXNREG_IR, cpu="sm_90a")
    assert "setmaxnreg.inc.sync.aligned.u32" in ptx


def test_worker_is_thread_safe(worker):
    import threading
    results, errors = [], []

    def job():
        try:
            results.append(worker.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")[0])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=job) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(results)) == 1


@posix_only
def test_worker_timeout_kills_child(tmp_path):
    hang = tmp_path / "hanging-python"
    hang.write_text("#!/bin/sh\nexec sleep 60\n")
    hang.chmod(0o755)
    w = LLVMWorker(timeout=0.5, python=str(hang))
    with pytest.raises(LLVMError, match="timed out after 0.5 s"):
        w.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")
    assert w.pid is None
    w.close()


@posix_only
def test_worker_reports_missing_llvmlite(tmp_path):
    # A "python" that ignores the --path hint and runs without site-packages.
    fake = tmp_path / "python-without-llvmlite"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in *.py) exec "%s" -I -S "$a";; esac; done\n'
                    % sys.executable)
    fake.chmod(0o755)
    w = LLVMWorker(timeout=30, python=str(fake))
    with pytest.raises(ToolchainError) as info:
        w.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")
    assert type(info.value) is ToolchainError
    assert 'pip install "llvmlite>=0.50"' in str(info.value)
    # The failure is remembered: no new process per call.
    starts = w.starts
    with pytest.raises(ToolchainError):
        w.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")
    assert w.starts == starts
    w.close()


def test_worker_recycles_worn_out_child():
    with LLVMWorker(max_requests=2) as w:
        outputs = [w.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")[0] for _ in range(3)]
        assert len(set(outputs)) == 1
        assert w.starts == 2 and w.recycled == 1
        if sys.platform.startswith("linux"):
            assert w._child.rss_mb > 0
    with LLVMWorker(max_rss_mb=1.0, max_requests=None) as w:
        w.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")
        w.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")
        assert w.starts == (2 if sys.platform.startswith("linux") else 1)


def test_get_worker_is_a_singleton():
    assert llvm_worker_mod.get_worker() is llvm_worker_mod.get_worker()


# --------------------------------------------------------------------------------------
# ptxas
# --------------------------------------------------------------------------------------

@needs_ptxas
def test_find_ptxas_finds_the_wheel(monkeypatch):
    monkeypatch.delenv("TILEIR_PTXAS", raising=False)
    path = find_ptxas()
    assert os.path.isfile(path) and os.access(path, os.X_OK)
    if ptxas_mod._wheel_candidates() and any(os.path.exists(c) for c in ptxas_mod._wheel_candidates()):
        assert os.sep + "nvidia" + os.sep in path
    assert ptxas_version(path)[:2].rstrip(".").isdigit()


@needs_ptxas
def test_find_ptxas_env_override(monkeypatch, tmp_path):
    real = find_ptxas()
    monkeypatch.setenv("TILEIR_PTXAS", real)
    assert find_ptxas() == os.path.abspath(real)
    monkeypatch.setenv("TILEIR_PTXAS", str(tmp_path / "no-such-ptxas"))
    with pytest.raises(ToolchainError, match="TILEIR_PTXAS.*no-such-ptxas"):
        find_ptxas()


def test_find_ptxas_explicit_missing(tmp_path):
    missing = str(tmp_path / "bin" / "ptxas")
    with pytest.raises(ToolchainError) as info:
        find_ptxas(missing)
    assert missing in str(info.value)


def test_find_ptxas_nothing_installed(monkeypatch, tmp_path):
    monkeypatch.delenv("TILEIR_PTXAS", raising=False)
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(ptxas_mod, "_wheel_candidates", lambda: [])
    with pytest.raises(ToolchainError) as info:
        find_ptxas()
    assert "pip install nvidia-cuda-nvcc-cu12" in str(info.value)


@needs_ptxas
@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_run_ptxas_produces_cubin_and_info(tid_ptx, arch):
    result = run_ptxas(tid_ptx[arch], arch=arch)
    assert isinstance(result, PtxasResult)
    assert result.cubin[:4] == b"\x7fELF"
    info = result.info["k"]
    assert info.is_entry and info.arch == arch
    assert info.registers > 0
    assert info.spill_stores_bytes == 0 and info.spill_loads_bytes == 0
    assert result.advisories == []
    assert "Used" in result.log


@needs_ptxas
def test_run_ptxas_smem_barrier_and_determinism(worker):
    ptx, _ = worker.compile_to_ptx(SMEM_IR, cpu="sm_80")
    first = run_ptxas(ptx, arch="sm_80")
    info = first.info["reverse_scale"]
    assert info.shared_bytes == 512
    assert info.barriers == 1
    assert info.constant_bytes > 0 and 0 in info.cmem
    second = run_ptxas(ptx, arch="sm_80")
    assert first.cubin == second.cubin


SAMPLE_LOG = textwrap.dedent("""\
    ptxas info    : (C7517) warpgroup.wait is injected in around line 42 by compiler to allow use of registers defined by GMMA in function 'gemm'
    ptxas warning : Value of threads per SM for entry gemm is out of range. .minnctapersm will be ignored
    ptxas info    : 16 bytes gmem, 8 bytes cmem[4]
    ptxas info    : Compiling entry function 'gemm' for 'sm_90a'
    ptxas info    : Function properties for gemm
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 168 registers, used 16 barriers, 2048 bytes smem
    ptxas info    : Compile time = 74.900 ms
    ptxas info    : Compiling entry function 'small' for 'sm_80'
    ptxas info    : Function properties for small
        8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
    ptxas info    : Used 26 registers, used 1 barriers, 1024 bytes smem, 380 bytes cmem[0], 24 bytes cmem[2]
    ptxas info    : Compile time = 1.250 ms
    ptxas info    : Function properties for helper
        24 bytes stack frame, 20 bytes spill stores, 20 bytes spill loads
    ptxas info    : Compiling entry function 'bare' for 'sm_75'
    ptxas info    : Used 4 registers, 356 bytes cmem[0]
    """)


def test_ptxas_log_parser_fields():
    info, advisories, warning_lines, gmem = parse_ptxas_log(SAMPLE_LOG)
    assert set(info) == {"gemm", "small", "helper", "bare"}
    gemm = info["gemm"]
    assert (gemm.registers, gemm.barriers, gemm.shared_bytes, gemm.constant_bytes) == (168, 16, 2048, 0)
    assert (gemm.stack_frame_bytes, gemm.spill_stores_bytes, gemm.spill_loads_bytes) == (0, 0, 0)
    assert gemm.is_entry and gemm.arch == "sm_90a" and gemm.compile_time_ms == pytest.approx(74.9)
    small = info["small"]
    assert (small.registers, small.barriers, small.shared_bytes) == (26, 1, 1024)
    assert small.constant_bytes == 380 and small.cmem == {0: 380, 2: 24}
    assert (small.stack_frame_bytes, small.spill_stores_bytes, small.spill_loads_bytes) == (8, 4, 12)
    assert small.spills
    assert any("Used 26 registers" in line for line in small.raw)
    helper = info["helper"]
    assert not helper.is_entry and helper.registers == 0
    assert (helper.stack_frame_bytes, helper.spill_stores_bytes, helper.spill_loads_bytes) == (24, 20, 20)
    bare = info["bare"]
    assert (bare.registers, bare.barriers, bare.constant_bytes, bare.arch) == (4, 0, 356, "sm_75")
    assert len(advisories) == 1 and "(C7517)" in advisories[0]
    assert len(warning_lines) == 1 and "minnctapersm" in warning_lines[0]
    assert gmem == 16


def test_warn_advisories_emits_performance_warnings():
    line = ("ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable "
            "to determine register count at entry.")
    info, advisories, _, _ = parse_ptxas_log(line + "\n")
    assert advisories == [line]
    result = PtxasResult(cubin=b"", info=info, advisories=advisories, log=line, arch="sm_90a")
    with pytest.warns(TileIRPerformanceWarning, match=r"C7508.*setmaxnreg"):
        assert warn_advisories(result, kernel="grow") == 1


@needs_ptxas
def test_run_ptxas_collects_real_advisory_without_warning(worker):
    ptx, _ = worker.compile_to_ptx(SETMAXNREG_IR, cpu="sm_90a")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # run_ptxas itself must not warn
        result = run_ptxas(ptx, arch="sm_90a")
    assert any("(C7508)" in a for a in result.advisories)
    with pytest.warns(TileIRPerformanceWarning, match="C7508"):
        warn_advisories(result)


@needs_ptxas
def test_run_ptxas_bad_ptx():
    bad = (".version 8.6\n.target sm_90a\n.address_size 64\n"
           ".visible .entry k()\n{\n\tfrobnicate.b32 %r1;\n\tret;\n}\n")
    with pytest.raises(PtxasError) as info:
        run_ptxas(bad, arch="sm_90a")
    assert "frobnicate" in str(info.value)
    assert info.value.returncode != 0


@posix_only
def test_run_ptxas_crash_keeps_ptx(tmp_path):
    crashing = tmp_path / "ptxas"
    crashing.write_text("#!/bin/sh\nkill -SEGV $$\n")
    crashing.chmod(0o755)
    with pytest.raises(PtxasError) as info:
        run_ptxas(".version 8.6\n", arch="sm_90a", ptxas=str(crashing))
    err = info.value
    assert "internal error in ptxas" in str(err)
    assert err.ptx_path and os.path.isfile(err.ptx_path) and err.ptx_path in str(err)
    shutil.rmtree(os.path.dirname(err.ptx_path))


def test_run_ptxas_rejects_bad_arch():
    with pytest.raises(PtxasError, match="invalid ptxas arch"):
        run_ptxas("", arch="hopper")


# --------------------------------------------------------------------------------------
# CUDA driver bindings (no GPU needed)
# --------------------------------------------------------------------------------------

def test_cuda_import_needs_no_driver():
    # In a fresh interpreter: importing the module must not load or initialise libcuda.
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(cuda.__file__)))
    code = textwrap.dedent("""
        import sys, types
        try:
            import tileir
        except ImportError:  # native extension not built: load the toolchain alone
            stub = types.ModuleType("tileir")
            stub.__path__ = [%r]
            sys.modules["tileir"] = stub
        import tileir._toolchain.cuda as c
        print(c._lib is None, c.NO_DRIVER_MESSAGE)
        """ % package_dir)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("True no CUDA driver found")


def test_cuda_without_driver_raises_launch_error():
    if cuda.is_available():
        pytest.skip("a CUDA driver is present")
    with pytest.raises(LaunchError, match="no CUDA driver found"):
        cuda.libcuda()
    with pytest.raises(LaunchError, match="no CUDA driver found"):
        cuda.to_device(np.zeros(4, np.float32))


class FakeCAI:
    def __init__(self, cai):
        self.__cuda_array_interface__ = cai


def test_array_info_cuda_array_interface():
    info = cuda.array_info(FakeCAI({"shape": (4, 8), "typestr": "<f2", "version": 3,
                                    "data": (0x7F0000001000, False), "strides": (2, 8)}))
    assert info.ptr == 0x7F0000001000
    assert info.shape == (4, 8) and info.strides_elems == (1, 4)
    assert info.dtype == np.float16 and info.dtype_name == "float16" and info.bits == 16
    assert info.device_type == cuda.DL_CUDA and not info.readonly
    assert not info.is_c_contiguous
    c_order = cuda.array_info(FakeCAI({"shape": (2, 3, 5), "typestr": "<i4", "version": 2,
                                       "data": (4096, True), "strides": None}))
    assert c_order.strides_elems == (15, 5, 1) and c_order.is_c_contiguous
    assert c_order.readonly and c_order.nbytes == 120
    assert cuda.device_pointer(FakeCAI({"shape": (1,), "typestr": "<f4", "version": 3,
                                        "data": (1234, False)})) == 1234
    with pytest.raises(LaunchError, match="multiple of the element size"):
        cuda.array_info(FakeCAI({"shape": (2,), "typestr": "<f4", "version": 3,
                                 "data": (64, False), "strides": (6,)}))


def test_array_info_dlpack_from_numpy():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    info = cuda.array_info(a)
    assert info.source == "dlpack"
    assert info.ptr == a.ctypes.data
    assert info.shape == (2, 3) and info.strides_elems == (3, 1)
    assert info.dtype == np.float32 and info.dtype_name == "float32"
    assert info.device_type == cuda.DL_CPU and info.device_type_name == "CPU"
    t = cuda.array_info(a.T)
    assert t.shape == (3, 2) and t.strides_elems == (1, 3)
    row = cuda.array_info(a[1:])
    assert row.ptr == a.ctypes.data + 3 * 4 and row.shape == (1, 3)
    ints = cuda.array_info(np.zeros((2, 2), dtype=np.uint8))
    assert ints.dtype_name == "uint8" and ints.bits == 8


class _DLPackOnly:
    """Exposes only the DLPack protocol of a wrapped numpy array."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_device_pointer_rejects_host_arrays():
    with pytest.raises(LaunchError, match="host memory"):
        cuda.device_pointer(np.zeros(3, np.float32))
    with pytest.raises(LaunchError, match="CPU device"):
        cuda.device_pointer(_DLPackOnly(np.zeros(3, np.float32)))
    with pytest.raises(LaunchError, match="neither __cuda_array_interface__ nor __dlpack__"):
        cuda.array_info([1.0, 2.0])


def _capsule_of(managed, name):
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(ctypes.addressof(managed), name, None)


class _CapsuleProducer:
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (cuda.DL_CUDA, 0)


def test_array_info_dlpack_bfloat16_versioned_capsule():
    shape = (ctypes.c_int64 * 2)(4, 16)
    strides = (ctypes.c_int64 * 2)(32, 1)
    managed = cuda._DLManagedTensorVersioned()
    managed.version.major, managed.version.minor = 1, 0
    managed.flags = 1  # read-only
    t = managed.dl_tensor
    t.data = 0x10000
    t.device.device_type, t.device.device_id = cuda.DL_CUDA, 1
    t.ndim = 2
    t.dtype.code, t.dtype.bits, t.dtype.lanes = 4, 16, 1
    t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = 64
    capsule_name = ctypes.create_string_buffer(b"dltensor_versioned")
    producer = _CapsuleProducer(_capsule_of(managed, capsule_name))
    info = cuda.array_info(producer)
    assert info.ptr == 0x10000 + 64
    assert info.shape == (4, 16) and info.strides_elems == (32, 1)
    assert info.dtype_name == "bfloat16" and info.bits == 16 and info.itemsize == 2
    assert info.device_type == cuda.DL_CUDA and info.device_id == 1 and info.readonly
    assert cuda.device_pointer(producer) == 0x10000 + 64
    # legacy (unversioned) capsule, strides NULL = C order, fp8
    legacy = cuda._DLManagedTensor()
    lt = legacy.dl_tensor
    lt.data, lt.ndim = 0x20000, 2
    lt.device.device_type = cuda.DL_CUDA
    lt.dtype.code, lt.dtype.bits, lt.dtype.lanes = 10, 8, 1
    lt.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    legacy_name = ctypes.create_string_buffer(b"dltensor")
    info = cuda.array_info(_CapsuleProducer(_capsule_of(legacy, legacy_name)))
    assert info.strides_elems == (16, 1) and info.dtype_name == "float8_e4m3fn"
    assert not info.readonly


class _TorchLikeStream:
    cuda_stream = 0xABC


class _CupyLikeStream:
    ptr = 0xDEF


class _ProtocolStream:
    def __cuda_stream__(self):
        return (0, 0x123)


def test_stream_handle_conversions():
    assert cuda.stream_handle(None) == 0
    assert cuda.stream_handle(0) == 0
    assert cuda.stream_handle(77) == 77
    assert cuda.stream_handle(np.int64(5)) == 5
    assert cuda.stream_handle(_TorchLikeStream()) == 0xABC
    assert cuda.stream_handle(_CupyLikeStream()) == 0xDEF
    assert cuda.stream_handle(_ProtocolStream()) == 0x123
    assert cuda.stream_handle(ctypes.c_void_p(0x55)) == 0x55
    with pytest.raises(LaunchError):
        cuda.stream_handle(True)
    with pytest.raises(LaunchError, match="cannot use a str as a CUDA stream"):
        cuda.stream_handle("default")
    with pytest.raises(LaunchError):
        cuda.stream_handle(-1)


# --------------------------------------------------------------------------------------
# CUDA plumbing against a fake libcuda (host memory; checks ctypes signatures and flows)
# --------------------------------------------------------------------------------------

FAKE_LIBCUDA_C = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
typedef int CUresult;
static int primary_ctx, module_token, function_token;
static void *current = 0, *ctx_stack[16];
static int ctx_depth = 0;
int allocs = 0, frees = 0, loads = 0, launches = 0, waits = 0;
int attr_set = -1, attr_value = -1;
unsigned dims[7];
void *launch_stream = 0;
static size_t psizes[32];
static int nparams = 0;
unsigned char pbuf[32][128];

void fake_set_param_sizes(int n, const size_t *s) { nparams = n; memcpy(psizes, s, n * sizeof(size_t)); }
CUresult cuInit(unsigned f) { return f == 0 ? 0 : 1; }
CUresult cuDriverGetVersion(int *v) { *v = 12090; return 0; }
CUresult cuGetErrorName(CUresult e, const char **s) {
  switch (e) {
  case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
  case 200: *s = "CUDA_ERROR_INVALID_IMAGE"; return 0;
  case 201: *s = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
  case 500: *s = "CUDA_ERROR_NOT_FOUND"; return 0;
  case 700: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return 0;
  default: *s = 0; return 1;
  }
}
CUresult cuGetErrorString(CUresult e, const char **s) { *s = "fake driver error"; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int o) { if (o != 0) return 101; *d = o; return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) { *v = a == 75 ? 9 : a == 38 ? 50 << 20 : 0; return 0; }
CUresult cuDeviceGetName(char *name, int len, int d) { strncpy(name, "Fake H100", len); return 0; }
CUresult cuCtxGetCurrent(void **c) { *c = current; return 0; }
CUresult cuCtxSetCurrent(void *c) { current = c; return 0; }
CUresult cuCtxGetDevice(int *d) { if (!current) return 201; *d = 0; return 0; }
CUresult cuCtxPushCurrent_v2(void *c) { ctx_stack[ctx_depth++] = current; current = c; return 0; }
CUresult cuCtxPopCurrent_v2(void **c) { *c = current; current = ctx_stack[--ctx_depth]; return 0; }
CUresult cuCtxSynchronize(void) { return current ? 0 : 201; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { *c = &primary_ctx; return 0; }
CUresult cuModuleLoadData(void **m, const void *image) {
  if (!current) return 201;
  if (memcmp(image, "\x7f" "ELF", 4) != 0) return 200;
  loads++; *m = &module_token; return 0;
}
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
  if (m != &module_token) return 1;
  if (strcmp(name, "k") != 0 && strcmp(name, "vector_add") != 0) return 500;
  *f = &function_token; return 0;
}
CUresult cuFuncGetAttribute(int *v, int a, void *f) { *v = a == 4 ? 8 : 0; return 0; }
CUresult cuFuncSetAttribute(void *f, int a, int v) { attr_set = a; attr_value = v; return 0; }
int tmap_calls = 0, tmap_dtype = -1, tmap_swizzle = -1;
unsigned long long tmap_dims[2], tmap_stride;
unsigned tmap_box[2];
CUresult cuTensorMapEncodeTiled(void *m, int dt, unsigned rank, void *addr, const unsigned long long *dims,
                                const unsigned long long *strides, const unsigned *box, const unsigned *es,
                                int il, int sw, int l2, int oob) {
  if (rank != 2 || es[0] != 1 || es[1] != 1 || il != 0 || oob != 0) return 1;
  tmap_calls++; tmap_dtype = dt; tmap_swizzle = sw; tmap_stride = strides[0];
  tmap_dims[0] = dims[0]; tmap_dims[1] = dims[1]; tmap_box[0] = box[0]; tmap_box[1] = box[1];
  memset(m, 0, 128); memcpy(m, &addr, 8); ((unsigned char *)m)[8] = 0xA5; return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned smem, void *stream,
                        void **params, void **extra) {
  if (!current) return 201;
  if (f != &function_token) return 1;
  dims[0] = gx; dims[1] = gy; dims[2] = gz; dims[3] = bx; dims[4] = by; dims[5] = bz;
  dims[6] = smem; launch_stream = stream;
  for (int i = 0; i < nparams; i++) memcpy(pbuf[i], params[i], psizes[i]);
  launches++; return 0;
}
CUresult cuMemAlloc_v2(uint64_t *p, size_t n) {
  if (!current) return 201;
  if (n == 0) return 1;
  *p = (uint64_t)(uintptr_t)malloc(n); allocs++; return 0;
}
CUresult cuMemFree_v2(uint64_t p) { free((void *)(uintptr_t)p); frees++; return 0; }
CUresult cuMemcpyHtoD_v2(uint64_t d, const void *s, size_t n) { memcpy((void *)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, uint64_t s, size_t n) { memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyDtoDAsync_v2(uint64_t d, uint64_t s, size_t n, void *st) {
  memcpy((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0;
}
CUresult cuMemsetD8_v2(uint64_t d, unsigned char v, size_t n) { memset((void *)(uintptr_t)d, v, n); return 0; }
int memsets_async = 0;
size_t memset_async_bytes = 0;
CUresult cuMemsetD8Async(uint64_t d, unsigned char v, size_t n, void *st) {
  memset((void *)(uintptr_t)d, v, n); memsets_async++; memset_async_bytes = n; return 0;
}
CUresult cuStreamSynchronize(void *s) { return 0; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) { waits++; return 0; }
CUresult cuEventCreate(void **e, unsigned f) { *e = malloc(8); return 0; }
CUresult cuEventRecord(void *e, void *s) { return 0; }
CUresult cuEventSynchronize(void *e) { return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { *ms = 1.5f; return 0; }
CUresult cuEventDestroy_v2(void *e) { free(e); return 0; }
"""


@pytest.fixture(scope="module")
def fake_libcuda_path(tmp_path_factory):
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None or not sys.platform.startswith("linux"):
        pytest.skip("needs a C compiler on Linux to build the fake libcuda")
    tmp = tmp_path_factory.mktemp("fakecuda")
    src = tmp / "fake_libcuda.c"
    src.write_text(FAKE_LIBCUDA_C)
    lib_path = tmp / "libfakecuda.so"
    proc = subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", str(lib_path), str(src)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip("could not build the fake libcuda: " + proc.stderr[-500:])
    return str(lib_path)


@pytest.fixture
def fake_driver(fake_libcuda_path):
    cuda._reset_for_tests(fake_libcuda_path)
    try:
        yield ctypes.CDLL(fake_libcuda_path)
    finally:
        cuda._reset_for_tests(None)


def _counter(lib, name):
    return ctypes.c_int.in_dll(lib, name).value


def test_fake_driver_device_array_roundtrip(fake_driver):
    allocs0, frees0 = _counter(fake_driver, "allocs"), _counter(fake_driver, "frees")
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    dev = cuda.to_device(host)
    assert dev.shape == (3, 4) and dev.dtype == np.float32 and dev.strides == (16, 4)
    np.testing.assert_array_equal(dev.copy_to_host(), host)
    cai = dev.__cuda_array_interface__
    assert cai["version"] == 3 and cai["data"] == (dev.ptr, False) and cai["typestr"] == "<f4"
    assert cuda.array_info(dev).ptr == dev.ptr
    assert cuda.array_info(FakeCAI(cai)).shape == (3, 4)
    other = cuda.zeros((3, 4), np.float32)
    np.testing.assert_array_equal(other.copy_to_host(), 0)
    cuda.memcpy_dtod(other, dev, dev.nbytes)
    cuda.synchronize()
    np.testing.assert_array_equal(other.copy_to_host(), host)
    assert cuda.empty((0,), np.int32).ptr == 0
    assert _counter(fake_driver, "allocs") - allocs0 == 2
    del dev, other
    import gc
    gc.collect()
    assert _counter(fake_driver, "frees") - frees0 == 2
    assert cuda.compute_capability() == (9, 0)
    assert cuda.driver_version() == 12090


def test_fake_driver_load_and_launch(fake_driver):
    loads0 = _counter(fake_driver, "loads")
    cubin = b"\x7fELF" + bytes(60)
    module = cuda.load_module(cubin)
    assert cuda.load_module(cubin) is module
    assert _counter(fake_driver, "loads") - loads0 == 1
    fn = module.get_function("k")
    assert module.get_function("k") is fn and fn.num_regs == 8
    with pytest.raises(LaunchError, match="not in the loaded module"):
        module.get_function("missing")
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_IMAGE"):
        cuda.load_module(b"not a cubin")

    out = cuda.empty((32,), np.int32)
    blob = bytes(range(128))
    params = [("ptr", out), ("i32", -7), ("f32", 2.5), ("i64", 1 << 40), ("f64", 0.125),
              ("bytes", blob), ("ptr", 0x1234)]
    sizes = (ctypes.c_size_t * len(params))(8, 4, 4, 8, 8, 128, 8)
    fake_driver.fake_set_param_sizes(len(params), sizes)
    cuda.launch(fn, (4, 2), 128, shared_mem=100 * 1024, stream=_TorchLikeStream(), params=params)
    dims = list((ctypes.c_uint * 7).in_dll(fake_driver, "dims"))
    assert dims == [4, 2, 1, 128, 1, 1, 100 * 1024]
    assert ctypes.c_void_p.in_dll(fake_driver, "launch_stream").value == 0xABC
    assert ctypes.c_int.in_dll(fake_driver, "attr_set").value == 8   # max dynamic smem
    assert ctypes.c_int.in_dll(fake_driver, "attr_value").value == 100 * 1024
    pbuf = (ctypes.c_ubyte * 128 * 32).in_dll(fake_driver, "pbuf")
    raw = [bytes(pbuf[i]) for i in range(len(params))]
    assert int.from_bytes(raw[0][:8], "little") == out.ptr
    assert int.from_bytes(raw[1][:4], "little", signed=True) == -7
    assert np.frombuffer(raw[2][:4], np.float32)[0] == 2.5
    assert int.from_bytes(raw[3][:8], "little") == 1 << 40
    assert np.frombuffer(raw[4][:8], np.float64)[0] == 0.125
    assert raw[5] == blob
    assert int.from_bytes(raw[6][:8], "little") == 0x1234

    with pytest.raises(LaunchError, match="host memory"):
        cuda.launch(fn, 1, 1, params=[("ptr", np.zeros(4))])
    with pytest.raises(LaunchError, match="out of range"):
        cuda.launch(fn, 1, 1, params=[("i32", 1 << 31)])
    with pytest.raises(LaunchError, match="unknown kind"):
        cuda.launch(fn, 1, 1, params=[("half", 1)])
    with pytest.raises(LaunchError, match="grid dimensions must be positive"):
        cuda.launch(fn, (0, 1), 1)

    start, end = cuda.Event(), cuda.Event()
    start.record()
    end.record(_CupyLikeStream())
    assert start.elapsed_ms(end) == 1.5
    cuda.check(0, "nothing")
    with pytest.raises(LaunchError, match="CUDA_ERROR_ILLEGAL_ADDRESS.*restart the process"):
        cuda.check(700, "cuLaunchKernel")


def test_fake_driver_cai_v3_stream_ordering(fake_driver):
    cai = {"shape": (4,), "typestr": "<f4", "version": 3, "data": (4096, False), "stream": 0x77}
    before = ctypes.c_int.in_dll(fake_driver, "waits").value
    cuda.array_info(FakeCAI(cai), stream=0x99)
    assert ctypes.c_int.in_dll(fake_driver, "waits").value == before + 1
    cuda.array_info(FakeCAI(cai), stream=0x77)   # same stream: nothing to order
    assert ctypes.c_int.in_dll(fake_driver, "waits").value == before + 1


# --------------------------------------------------------------------------------------
# End to end on a real GPU
# --------------------------------------------------------------------------------------

@pytest.mark.gpu
@needs_ptxas
def test_gpu_end_to_end(worker):
    major, minor = cuda.compute_capability()
    arch = "sm_%d%d" % (major, minor)
    ptx, _ = worker.compile_to_ptx(STORE_TID_IR, cpu=arch)
    result = run_ptxas(ptx, arch=arch)
    fn = cuda.load_module(result.cubin).get_function("k")
    out = cuda.zeros((128,), np.int32)
    cuda.launch(fn, (1, 1, 1), (128, 1, 1), 0, None, [("ptr", out)])
    cuda.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(128, dtype=np.int32))

    ptx, _ = worker.compile_to_ptx(SMEM_IR, cpu=arch)
    fn = cuda.load_module(run_ptxas(ptx, arch=arch).cubin).get_function("reverse_scale")
    res = cuda.empty((128,), np.float32)
    start, end = cuda.Event(), cuda.Event()
    start.record()
    cuda.launch(fn, 1, 128, params=[("ptr", res), ("f32", 0.5)])
    end.record()
    assert start.elapsed_ms(end) >= 0.0
    expected = (127 - np.arange(128, dtype=np.float32)) * 0.5
    np.testing.assert_array_equal(res.copy_to_host(), expected)


# --------------------------------------------------------------------------------------
# NVIDIA's PTX compiler library (in the LLVM worker process)
# --------------------------------------------------------------------------------------

FAKE_PTX_LIBRARY_C = r"""
#include <signal.h>
#include <stdlib.h>
#include <string.h>
typedef struct { int mode; } H;
static const char *ERR = "ptxas fatal   : fake rejection";
static const char *INFO = "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
                          "ptxas info    : Used 7 registers, used 0 barriers";
int nvPTXCompilerGetVersion(unsigned *ma, unsigned *mi) { *ma = 99; *mi = 1; return 0; }
int nvPTXCompilerCreate(void **h, size_t n, const char *p) {
    H *x = malloc(sizeof(H));
    x->mode = strstr(p, "CRASH") ? 1 : strstr(p, "REJECT") ? 2 : 0;
    *h = x; return 0;
}
int nvPTXCompilerDestroy(void **h) { free(*h); *h = 0; return 0; }
int nvPTXCompilerCompile(void *h, int n, const char *const *o) {
    H *x = h;
    if (x->mode == 1) raise(SIGSEGV);
    if (x->mode == 2) return 3;
    return n == 3 && strcmp(o[0], "-arch=sm_90a") == 0 && strcmp(o[2], "-v") == 0 ? 0 : 2;
}
int nvPTXCompilerGetCompiledProgramSize(void *h, size_t *s) { *s = 4; return 0; }
int nvPTXCompilerGetCompiledProgram(void *h, void *b) { memcpy(b, "\x7f" "ELF", 4); return 0; }
int nvPTXCompilerGetErrorLogSize(void *h, size_t *s) { *s = ((H *)h)->mode == 2 ? strlen(ERR) + 1 : 0; return 0; }
int nvPTXCompilerGetErrorLog(void *h, char *b) { strcpy(b, ERR); return 0; }
int nvPTXCompilerGetInfoLogSize(void *h, size_t *s) { *s = strlen(INFO) + 1; return 0; }
int nvPTXCompilerGetInfoLog(void *h, char *b) { strcpy(b, INFO); return 0; }
"""


@pytest.fixture
def fake_ptx_library(tmp_path, monkeypatch):
    """A stand-in libnvptxcompiler_static.a (C, built here) whose compile crashes on PTX
    containing CRASH and rejects PTX containing REJECT."""
    cc, ar = shutil.which("cc"), shutil.which("ar")
    if not cc or not ar or os.name != "posix":
        pytest.skip("needs a C compiler and ar")
    src = tmp_path / "fake.c"
    src.write_text(FAKE_PTX_LIBRARY_C)
    subprocess.run([cc, "-fPIC", "-c", str(src), "-o", str(tmp_path / "fake.o")], check=True)
    archive = tmp_path / "libnvptxcompiler_static.a"
    subprocess.run([ar, "rcs", str(archive), str(tmp_path / "fake.o")], check=True)
    monkeypatch.setenv("TILEIR_NVPTXCOMPILER_STATIC", str(archive))
    monkeypatch.setenv("TILEIR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TILEIR_TOOLCHAIN_DIR", str(tmp_path / "toolchain"))
    monkeypatch.delenv("TILEIR_PTXAS", raising=False)
    monkeypatch.delenv("TILEIR_PTX_COMPILER", raising=False)
    monkeypatch.setattr(ptxas_mod, "_LIBRARY_STATE", {})
    return archive


def test_ptx_library_is_built_and_used(fake_ptx_library, tmp_path):
    result = ptxas_mod.compile_ptx("// fine\n", arch="sm_90a")
    assert result.cubin == b"\x7fELF"
    assert result.command[0] == "nvPTXCompiler 99.1"
    assert result.info["k"].registers == 7
    so = ptxas_mod.ptx_library()
    assert so.startswith(str(tmp_path / "toolchain")) and os.path.isfile(so)
    assert ptxas_mod.ptx_compiler_fingerprint().startswith("nvptxcompiler:")


def test_ptx_library_rejection_is_a_ptxas_error(fake_ptx_library):
    with pytest.raises(PtxasError, match="(?s)rejected the PTX for sm_90a.*COMPILATION_FAILURE.*fake rejection"):
        ptxas_mod.compile_ptx("// REJECT\n", arch="sm_90a")


def test_ptx_library_crash_leaves_this_process_alive(fake_ptx_library):
    """A crash in the PTX compiler (ptxas 12.9's P2 SIGSEGV) ends the worker process only."""
    with pytest.raises(PtxasError, match="(?s)crashed.*this process is unaffected") as info:
        ptxas_mod.compile_ptx("// CRASH\n", arch="sm_90a")
    assert os.path.isfile(info.value.ptx_path)
    # The next compile starts a new worker: both LLVM and the library work again.
    ptx, _ = llvm_worker_mod.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")
    assert ".entry k(" in ptx
    assert ptxas_mod.compile_ptx("// fine\n", arch="sm_90a").cubin == b"\x7fELF"


def test_ptx_compiler_choice(fake_ptx_library, monkeypatch, tmp_path):
    monkeypatch.setenv("TILEIR_PTX_COMPILER", "process")
    assert ptxas_mod.ptx_library() is None
    assert ptxas_mod.ptx_compiler_fingerprint().startswith("ptxas:")
    monkeypatch.setenv("TILEIR_PTX_COMPILER", "library")
    assert ptxas_mod.ptx_library() is not None
    monkeypatch.setenv("TILEIR_NVPTXCOMPILER_STATIC", str(tmp_path / "missing.a"))
    with pytest.raises(ToolchainError, match="pip install nvidia-nvptxcompiler"):
        ptxas_mod.ptx_library()
    monkeypatch.setenv("TILEIR_PTX_COMPILER", "auto")
    assert ptxas_mod.ptx_library() is None  # not installed: the ptxas executable is used


def _elf_sections(data):
    import struct

    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]
    out = {}
    for h in headers:
        name = data[strtab + h[0]:data.index(b"\0", strtab + h[0])].decode()
        out[name] = data[h[4]:h[4] + h[5]] if h[1] != 8 else b""
    return out


def _same_version_ptxas(version, explicit):
    """A ptxas executable whose release matches the library's (TILEIR_PTXAS, the wheels)."""
    candidates = [explicit or ""] + ptxas_mod._wheel_candidates()
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            try:
                if ptxas_version(c).startswith(version + "."):
                    return c
            except ToolchainError:
                continue
    return None


def test_ptx_library_cubins_match_ptxas(monkeypatch, tmp_path):
    """Same PTX, same options: the library's cubin equals the executable's, section for
    section, except the toolkit note that records how the compiler was invoked."""
    explicit = os.environ.get("TILEIR_PTXAS")
    monkeypatch.delenv("TILEIR_PTXAS", raising=False)
    monkeypatch.setenv("TILEIR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILEIR_PTX_COMPILER", raising=False)
    archive = ptxas_mod.find_ptx_archive()
    if archive is None:
        pytest.skip("NVIDIA's PTX compiler library is not installed (pip install nvidia-nvptxcompiler)")
    major = ptxas_mod._cuda_major_of_path(archive)
    exe = _same_version_ptxas(f"{major}", explicit) if major else None
    if exe is None and not os.environ.get("TILEIR_NVPTXCOMPILER_STATIC"):
        pytest.skip(f"no ptxas of the library's CUDA {major} release to compare it with (set TILEIR_PTXAS)")
    monkeypatch.setenv("TILEIR_PTX_COMPILER", "library")
    try:
        ptxas_mod.ptx_library()
    except ToolchainError as e:
        pytest.skip(f"the PTX compiler library could not be linked: {e}")
    ptx, _ = llvm_worker_mod.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")
    version = ptxas_mod.compile_ptx(ptx, arch="sm_90a").command[0].split()[-1]
    exe = _same_version_ptxas(version, explicit)
    if exe is None:
        pytest.skip(f"no ptxas {version} to compare the library with (set TILEIR_PTXAS)")
    import tileir as ct
    from kernels import vector_add

    z = np.zeros(1000, np.float32)
    monkeypatch.setenv("TILEIR_CACHE", "0")
    ptx = ct.compile(vector_add.replace_hints(), (z, z, z, 256), ptxas=exe).asm["ptx"]
    for extra in ([], ["-lineinfo"], ["--maxrregcount=32"]):
        lib = ptxas_mod.compile_ptx(ptx, arch="sm_90a", extra_args=extra)
        proc = run_ptxas(ptx, arch="sm_90a", ptxas=exe, extra_args=extra)
        assert lib.command[0].startswith("nvPTXCompiler") and proc.command[0] == exe
        a, b = _elf_sections(lib.cubin), _elf_sections(proc.cubin)
        assert set(a) == set(b)
        assert {n for n in a if a[n] != b[n]} <= {".note.nv.tkinfo"}, extra
        assert lib.info["vector_add"].registers == proc.info["vector_add"].registers


# --------------------------------------------------------------------------------------
# tileir.launch's fast path (against the fake driver)
# --------------------------------------------------------------------------------------

def _launch_params(fake_driver, n):
    pbuf = (ctypes.c_ubyte * 128 * 32).in_dll(fake_driver, "pbuf")
    return [bytes(pbuf[i]) for i in range(n)]


def test_launch_fast_path_packs_like_the_general_path(fake_driver, tmp_path, monkeypatch):
    import tileir as ct
    from tileir import _compile
    from kernels import vector_add

    monkeypatch.setenv("TILEIR_CACHE_DIR", str(tmp_path / "cache"))
    kern = vector_add.replace_hints()
    sizes = (ctypes.c_size_t * 9)(8, 4, 4, 8, 4, 4, 8, 4, 4)
    fake_driver.fake_set_param_sizes(9, sizes)
    a, b, c = (cuda.empty((1000,), np.float32) for _ in range(3))
    launches0 = _counter(fake_driver, "launches")
    ct.launch(None, (4,), kern, (a, b, c, 256))  # general path: compiles, leaves a plan
    assert len(kern._plans) == 1
    general = _launch_params(fake_driver, 9)
    general_dims = list((ctypes.c_uint * 7).in_dll(fake_driver, "dims"))

    calls = []
    real = _compile._launch
    monkeypatch.setattr(_compile, "_launch", lambda *args: calls.append(args) or real(*args))
    ct.launch(None, (4,), kern, (a, b, c, 256))
    assert not calls, "the second launch should take the fast path"
    assert _launch_params(fake_driver, 9) == general
    dims = list((ctypes.c_uint * 7).in_dll(fake_driver, "dims"))
    assert dims == general_dims and dims[:3] == [4, 1, 1] and dims[3] == ct.compile(kern, (a, b, c, 256), target="sm_90a").num_threads

    # other arrays of the same kind: fast path, their own addresses and sizes
    x, y, z = (cuda.empty((1000,), np.float32) for _ in range(3))
    ct.launch(0, 7, kern, (z, y, x, 256))
    assert not calls
    raw = _launch_params(fake_driver, 9)
    assert [int.from_bytes(raw[i][:8], "little") for i in (0, 3, 6)] == [z.ptr, y.ptr, x.ptr]
    assert int.from_bytes(raw[1][:4], "little") == 1000
    assert list((ctypes.c_uint * 7).in_dll(fake_driver, "dims"))[0] == 7

    # a new Constant or new facts (size divisible by 16) go the general way once
    ct.launch(None, (4,), kern, (a, b, c, 128))
    d, e, f = (cuda.empty((1024,), np.float32) for _ in range(3))
    ct.launch(None, (4,), kern, (d, e, f, 256))
    assert len(calls) == 2 and len(kern._plans) == 3
    ct.launch(None, (4,), kern, (d, e, f, 256))
    assert len(calls) == 2
    assert _counter(fake_driver, "launches") - launches0 == 6

    # errors still come from the general path
    with pytest.raises(LaunchError, match="grid"):
        ct.launch(None, (0,), kern, (a, b, c, 256))
    with pytest.raises(LaunchError, match="host"):
        ct.launch(None, (4,), kern, (np.zeros(1000, np.float32), b, c, 256))


def _scalar_kernel():
    import tileir as ct

    # named k: the fake driver's modules have functions "k" and "vector_add"
    def k(x, y, alpha, n, TILE: ct.Constant[int]):
        i = ct.bid(0)
        tx = ct.load(x, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(i,), tile=tx * alpha)

    return ct.kernel(k)


def _spy_general_path(monkeypatch):
    from tileir import _compile

    calls = []
    real = _compile._launch
    monkeypatch.setattr(_compile, "_launch", lambda *args: calls.append(args) or real(*args))
    return calls


def test_launch_fast_path_checks_scalars_grid_and_stream(fake_driver, tmp_path, monkeypatch):
    import tileir as ct

    monkeypatch.setenv("TILEIR_CACHE_DIR", str(tmp_path / "cache"))
    kern = _scalar_kernel()
    x, y = (cuda.empty((1000,), np.float32) for _ in range(2))
    calls = _spy_general_path(monkeypatch)
    fake_driver.fake_set_param_sizes(8, (ctypes.c_size_t * 8)(8, 4, 4, 8, 4, 4, 4, 4))
    ct.launch(None, (4,), kern, (x, y, 2.0, 5, 256))
    assert len(calls) == 1 and len(kern._plans) == 1 and kern._fast is not None

    def scalars(n_bytes=4):
        raw = _launch_params(fake_driver, 8)
        return (np.frombuffer(raw[6][:4], np.float32)[0],
                int.from_bytes(raw[7][:n_bytes], "little", signed=True))

    # new values of the same kinds, a list grid, an int stream, a list of arguments: fast
    ct.launch(0x55, [3, 2], kern, [x, y, 3.5, -7, 256])
    assert len(calls) == 1 and scalars() == (3.5, -7)
    assert list((ctypes.c_uint * 7).in_dll(fake_driver, "dims"))[:3] == [3, 2, 1]
    assert ctypes.c_void_p.in_dll(fake_driver, "launch_stream").value == 0x55
    ct.launch(_TorchLikeStream(), 5, kern, (x, y, 1.0, 1, 256))
    assert len(calls) == 1 and ctypes.c_void_p.in_dll(fake_driver, "launch_stream").value == 0xABC

    # an int beyond int32 specializes n as int64: the general path, once
    fake_driver.fake_set_param_sizes(8, (ctypes.c_size_t * 8)(8, 4, 4, 8, 4, 4, 4, 8))
    ct.launch(None, (4,), kern, (x, y, 2.0, 1 << 40, 256))
    assert len(calls) == 2 and len(kern._plans) == 2 and scalars(8) == (2.0, 1 << 40)
    ct.launch(None, (4,), kern, (x, y, 2.0, (1 << 40) + 3, 256))
    assert len(calls) == 2 and scalars(8) == (2.0, (1 << 40) + 3)
    # back to an int32 value: the first plan, without the general path
    fake_driver.fake_set_param_sizes(8, (ctypes.c_size_t * 8)(8, 4, 4, 8, 4, 4, 4, 4))
    ct.launch(None, (4,), kern, (x, y, 2.0, 9, 256))
    assert len(calls) == 2 and scalars() == (2.0, 9)
    first, wide = kern._plans.values()
    assert kern._fast is first.run
    ct.launch(None, (4,), kern, (x, y, 2.0, 1 << 33, 256))
    assert len(calls) == 2 and kern._fast is wide.run

    # an int where a float was, a new Constant: new specializations
    ct.launch(None, (4,), kern, (x, y, 2, 9, 256))
    ct.launch(None, (4,), kern, (x, y, 2.0, 9, 128))
    assert len(calls) == 4 and len(kern._plans) == 4
    # what the general path judges still goes there
    ct.launch(None, (4,), kern, (x, y, np.float32(2.0), 9, 256))
    assert len(calls) == 5
    with pytest.raises(LaunchError, match="grid"):
        ct.launch(None, (0, 1), kern, (x, y, 2.0, 9, 256))
    with pytest.raises(Exception, match="argument"):
        ct.launch(None, (4,), kern, (x, y, 2.0, 9))
    assert len(calls) == 7


class _FakeTorchDtype:
    def __repr__(self):
        return "torch.float32"


class _FakeTensor:
    """What the launch fast path reads of a torch.Tensor, over fake-driver memory; its
    metadata may change in place (like ``Tensor.set_``)."""

    float32 = _FakeTorchDtype()

    def __init__(self, base, offset=0, shape=None, strides=(1,), is_cuda=True):
        self.base, self.ptr = base, base.ptr + 4 * offset
        self.shape, self.strides, self.is_cuda = shape or base.shape, strides, is_cuda
        self.dtype = self.float32

    def data_ptr(self):
        return self.ptr

    def stride(self):
        return self.strides

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": "<f4", "data": (self.ptr, False),
                "strides": tuple(4 * s for s in self.strides), "version": 2}


def test_launch_fast_path_checks_torch_tensors(fake_driver, tmp_path, monkeypatch):
    import types

    import tileir as ct
    from kernels import vector_add

    torch = types.ModuleType("torch")
    torch.Tensor = _FakeTensor
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setenv("TILEIR_CACHE_DIR", str(tmp_path / "cache"))
    kern = vector_add.replace_hints()
    fake_driver.fake_set_param_sizes(9, (ctypes.c_size_t * 9)(8, 4, 4, 8, 4, 4, 8, 4, 4))
    mem = [cuda.empty((1100,), np.float32) for _ in range(3)]
    a, b, c = (_FakeTensor(m, shape=(1000,)) for m in mem)
    calls = _spy_general_path(monkeypatch)

    def ptrs():
        raw = _launch_params(fake_driver, 9)
        return [(int.from_bytes(raw[i][:8], "little"), int.from_bytes(raw[i + 1][:4], "little"),
                 int.from_bytes(raw[i + 2][:4], "little")) for i in (0, 3, 6)]

    ct.launch(None, (4,), kern, (a, b, c, 256))
    general = ptrs()
    assert len(calls) == 1 and len(kern._plans) == 1
    assert general == [(m.ptr, 1000, 1) for m in mem]
    ct.launch(None, (4,), kern, (a, b, c, 256))
    assert len(calls) == 1 and ptrs() == general
    d = _FakeTensor(mem[0], offset=16, shape=(1000,))   # still 16-byte aligned
    ct.launch(None, (4,), kern, (d, b, c, 256))
    assert len(calls) == 1 and ptrs()[0] == (mem[0].ptr + 64, 1000, 1)

    # changed facts: a misaligned pointer, a size divisible by 16, metadata changed in place
    e = _FakeTensor(mem[0], offset=1, shape=(1000,))
    ct.launch(None, (4,), kern, (e, b, c, 256))
    assert len(calls) == 2 and ptrs()[0] == (mem[0].ptr + 4, 1000, 1)
    f = _FakeTensor(mem[1], shape=(1024,))
    ct.launch(None, (4,), kern, (a, f, c, 256))
    assert len(calls) == 3 and ptrs()[1] == (mem[1].ptr, 1024, 1)
    assert len(kern._plans) == 3
    c.ptr += 4
    ct.launch(None, (4,), kern, (a, b, c, 256))
    assert len(calls) == 4 and ptrs()[2] == (mem[2].ptr + 4, 1000, 1)
    c.ptr -= 4
    # every known signature again: plans, not the general path
    for args in ((a, b, c, 256), (e, b, c, 256), (a, f, c, 256), (a, b, c, 256)):
        ct.launch(None, (4,), kern, args)
    assert len(calls) == 4 and ptrs() == general

    # not on the device (per is_cuda), or a mix of tensors and tileir arrays: general path
    ct.launch(None, (4,), kern, (_FakeTensor(mem[0], shape=(1000,), is_cuda=False), b, c, 256))
    assert len(calls) == 5
    ct.launch(None, (4,), kern, (mem[0], b, c, 256))
    assert len(calls) == 6
    ct.launch(None, (4,), kern, (mem[0], b, c, 256))
    assert len(calls) == 6


def test_auto_keeps_a_cuda12_ptxas_over_a_cuda13_library(fake_ptx_library, monkeypatch, tmp_path):
    """CUDA 13's compiler writes cubins in a new ELF ABI that drivers before r580 refuse:
    ``auto`` uses an installed library only with a ptxas of the same CUDA release."""
    root = tmp_path / "site" / "nvidia"
    (root / "cu13" / "lib").mkdir(parents=True)
    shutil.copy(fake_ptx_library, root / "cu13" / "lib" / "libnvptxcompiler_static.a")
    monkeypatch.delenv("TILEIR_NVPTXCOMPILER_STATIC")
    monkeypatch.setattr(ptxas_mod, "_NVIDIA_ROOTS", [str(root)])
    monkeypatch.setattr(ptxas_mod, "_DRIVER_MAJOR", [None])  # no driver on this machine
    assert ptxas_mod.find_ptx_archive() == str(root / "cu13" / "lib" / "libnvptxcompiler_static.a")
    for exe_layout, expect_library in (("cuda_nvcc", False), ("cu12", False), ("cu13", True)):
        exe = tmp_path / exe_layout / "nvidia" / exe_layout / "bin" / "ptxas"
        exe.parent.mkdir(parents=True)
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
        monkeypatch.setattr(ptxas_mod, "find_ptxas", lambda explicit=None, exe=exe: str(exe))
        assert (ptxas_mod.ptx_library() is not None) == expect_library, exe_layout
        assert ptxas_mod.ptx_compiler_fingerprint().startswith("nvptxcompiler:") == expect_library
    monkeypatch.setattr(ptxas_mod, "find_ptxas", lambda explicit=None: str(tmp_path / "cuda_nvcc" / "nvidia" /
                                                                              "cuda_nvcc" / "bin" / "ptxas"))
    assert ptxas_mod.ptx_library() is None
    # a driver that runs CUDA 13 cubins (r580+): the library, whatever the ptxas
    monkeypatch.setattr(ptxas_mod, "_DRIVER_MAJOR", [580])
    assert ptxas_mod.ptx_library() is not None
    monkeypatch.setattr(ptxas_mod, "_DRIVER_MAJOR", [570])
    assert ptxas_mod.ptx_library() is None
    monkeypatch.setenv("TILEIR_PTX_COMPILER", "library")
    assert ptxas_mod.ptx_library() is not None


def test_driver_branch_from_proc(monkeypatch, tmp_path):
    import builtins

    lines = {"text": "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build\n"}
    real_open = builtins.open

    def fake_open(path, *args, **kwargs):
        if path == "/proc/driver/nvidia/version":
            fake = tmp_path / "version"
            fake.write_text(lines["text"])
            return real_open(fake, *args, **kwargs)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(ptxas_mod, "_DRIVER_MAJOR", [])
    assert ptxas_mod.installed_driver_branch() == 580
    lines["text"] = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024\n"
    monkeypatch.setattr(ptxas_mod, "_DRIVER_MAJOR", [])
    assert ptxas_mod.installed_driver_branch() == 535


def test_worker_prestart_then_request():
    with LLVMWorker() as w:
        w.prestart()
        w.prestart()  # already starting: nothing more
        assert w.starts == 1 and w.pid is not None
        ptx, times = w.compile_to_ptx(STORE_TID_IR, cpu="sm_90a")
        assert ".entry k(" in ptx and "startup" in times
        assert w.starts == 1


def test_worker_custom_pass_pipeline():
    with LLVMWorker() as w:
        default, _ = w.compile_to_ptx(STORE_TID_IR, cpu="sm_90a", opt_level=2)
        mine, _ = w.compile_to_ptx(STORE_TID_IR, cpu="sm_90a", passes=["instruction_combine", "simplify_cfg"])
        none, _ = w.compile_to_ptx(STORE_TID_IR, cpu="sm_90a", passes=[])
        assert ".entry k(" in default and ".entry k(" in mine and ".entry k(" in none
        with pytest.raises(LLVMError, match="unknown LLVM pass 'no_such'"):
            w.compile_to_ptx(STORE_TID_IR, cpu="sm_90a", passes=["no_such"])


def test_ptx_library_that_cannot_be_linked_falls_back_once(fake_ptx_library, monkeypatch, tmp_path):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    monkeypatch.setenv("TILEIR_TOOLCHAIN_DIR", str(tmp_path / "tc2"))
    import tempfile

    (tmp_path / "tmpdir").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmpdir"))  # the second place it would link to
    assert ptxas_mod.ptx_library() is None  # auto: the ptxas executable
    markers = list((tmp_path / "tc2").glob("*.failed"))
    assert len(markers) == 1
    monkeypatch.setattr(ptxas_mod, "_LIBRARY_STATE", {})  # a new process: the marker saves the attempt
    monkeypatch.setenv("CC", "cc")
    assert ptxas_mod.ptx_library() is None
    monkeypatch.setenv("TILEIR_PTX_COMPILER", "library")  # asked for: tries again (and works with cc)
    monkeypatch.setattr(ptxas_mod, "_LIBRARY_STATE", {})
    assert ptxas_mod.ptx_library() is not None


def test_launch_provides_dynamic_shared_memory(fake_driver, tmp_path, monkeypatch):
    # A 128x128 f32 accumulator staged through shared memory needs 64 KiB: dynamic shared
    # memory, which each launch passes, the function opted into first.
    import tileir as ct

    monkeypatch.setenv("TILEIR_CACHE_DIR", str(tmp_path / "cache"))

    # named k: the fake driver's modules have functions "k" and "vector_add"
    def k(A, B, Z, M: ct.Constant[int], N: ct.Constant[int], K: ct.Constant[int]):
        a = ct.load(A, (0, 0), (M, K))
        b = ct.load(B, (0, 0), (K, N))
        ct.store(Z, (0, 0), ct.mma(a, b, ct.full((M, N), 0, dtype=ct.float32)))

    kern = ct.kernel(k)
    a, b = cuda.empty((128, 64), np.float16), cuda.empty((64, 128), np.float16)
    z = cuda.empty((128, 128), np.float32)
    # Three arrays (address, sizes, strides), then the tensor maps of A and B (TMA loads).
    fake_driver.fake_set_param_sizes(17, (ctypes.c_size_t * 17)(*([8, 4, 4, 4, 4] * 3 + [128, 128])))
    calls = _spy_general_path(monkeypatch)
    attr = lambda name: ctypes.c_int.in_dll(fake_driver, name).value  # noqa: E731
    ct.launch(None, (1,), kern, (a, b, z, 128, 128, 64))
    assert len(calls) == 1
    assert (attr("attr_set"), attr("attr_value")) == (8, 128 * 128 * 4)  # max dynamic smem
    assert list((ctypes.c_uint * 7).in_dll(fake_driver, "dims"))[6] == 128 * 128 * 4
    assert attr("tmap_calls") == 2 and attr("tmap_dtype") == 6  # A's and B's; FLOAT16
    (ctypes.c_uint * 7).in_dll(fake_driver, "dims")[6] = 0
    ct.launch(None, (1,), kern, (a, b, z, 128, 128, 64))
    assert len(calls) == 1, "the second launch should take the fast path"
    assert list((ctypes.c_uint * 7).in_dll(fake_driver, "dims"))[6] == 128 * 128 * 4
    assert ct.compile(kern, (a, b, z, 128, 128, 64), target="sm_90a").dynamic_smem == 128 * 128 * 4
    # The tensor maps, passed by value after the arrays: the fast path encodes them once per
    # array and reuses them (its first launch encodes, the next ones do not).
    assert attr("tmap_calls") == 4
    ct.launch(None, (1,), kern, (a, b, z, 128, 128, 64))
    assert len(calls) == 1 and attr("tmap_calls") == 4
    raw = _launch_params(fake_driver, 17)
    assert [int.from_bytes(raw[i][:8], "little") for i in (15, 16)] == [a.ptr, b.ptr]
    assert raw[15][8] == raw[16][8] == 0xA5
    # Other arrays of the same kind: still the fast path, with their own maps.
    a2, b2 = cuda.empty((128, 64), np.float16), cuda.empty((64, 128), np.float16)
    ct.launch(None, (1,), kern, (a2, b2, z, 128, 128, 64))
    assert len(calls) == 1 and attr("tmap_calls") == 6
    raw = _launch_params(fake_driver, 17)
    assert [int.from_bytes(raw[i][:8], "little") for i in (15, 16)] == [a2.ptr, b2.ptr]
    # B's map (the last encoded): 64 x 128 halves, rows 256 bytes apart, boxes of 64 rows x 64
    # columns (128 bytes: the 128-byte swizzle, CU_TENSOR_MAP_SWIZZLE_128B = 3).
    assert list((ctypes.c_ulonglong * 2).in_dll(fake_driver, "tmap_dims")) == [128, 64]
    assert ctypes.c_ulonglong.in_dll(fake_driver, "tmap_stride").value == 256
    assert list((ctypes.c_uint * 2).in_dll(fake_driver, "tmap_box")) == [64, 64]
    assert attr("tmap_swizzle") == 3


def _bf16_capsule(code=4, bits=16):
    """A versioned DLPack capsule of a 4x16 CUDA tensor at 0x10000 of DLPack type (code,
    bits), by default bfloat16; the returned tuple (buffers, capsule last) keeps its memory
    alive."""
    shape = (ctypes.c_int64 * 2)(4, 16)
    managed = cuda._DLManagedTensorVersioned()
    managed.version.major, managed.version.minor = 1, 0
    t = managed.dl_tensor
    t.data = 0x10000
    t.device.device_type, t.device.device_id = cuda.DL_CUDA, 0
    t.ndim = 2
    t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
    t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    name = ctypes.create_string_buffer(b"dltensor_versioned")
    return shape, managed, name, _capsule_of(managed, name)


def test_bfloat16_device_arrays_specialize_as_bfloat16():
    # Without ml_dtypes NumPy has no bfloat16: the specialization takes DLPack's name, never
    # NumPy's default (float64) for a missing dtype.
    import tileir as ct
    from tileir._frontend.specialize import array_facts

    keep = _bf16_capsule()
    producer = _CapsuleProducer(keep[-1])
    assert ct.dtype_of(array_facts(producer).dtype) is ct.bfloat16
    assert ct.dtype_of(None) is None


def test_any_dynamic_shared_memory_is_opted_into(fake_driver):
    # Without the opt-in a launch may use 48 KiB less the function's static shared memory:
    # 48 KiB of dynamic next to a kernel's mbarriers failed with CUDA_ERROR_INVALID_VALUE on
    # an H100. So every launch with dynamic shared memory opts the function in first, once.
    module = cuda.load_module(b"\x7fELF" + bytes(60) + b"optin")
    fn = module.get_function("k")
    out = cuda.empty((4,), np.int32)
    fake_driver.fake_set_param_sizes(1, (ctypes.c_size_t * 1)(8))
    ctypes.c_int.in_dll(fake_driver, "attr_set").value = -1
    cuda.launch(fn, (1,), 32, shared_mem=48 * 1024, params=[("ptr", out)])
    assert ctypes.c_int.in_dll(fake_driver, "attr_set").value == 8
    assert ctypes.c_int.in_dll(fake_driver, "attr_value").value == 48 * 1024
    ctypes.c_int.in_dll(fake_driver, "attr_set").value = -1
    cuda.launch(fn, (1,), 32, shared_mem=48 * 1024, params=[("ptr", out)])
    assert ctypes.c_int.in_dll(fake_driver, "attr_set").value == -1


def test_void_typestr_arrays_take_their_dtype_from_dlpack():
    # torch exports bfloat16 through __cuda_array_interface__ as "<V2" (no element type):
    # the DLPack capsule names it (on an H100 torch 2.11's bf16 tensors read as None).
    import tileir as ct
    from tileir._frontend.specialize import array_facts

    keep = _bf16_capsule()

    class VoidCai(_CapsuleProducer):
        __cuda_array_interface__ = {"shape": (4, 16), "typestr": "<V2", "data": (0x10000, False), "version": 3,
                                    "strides": None}

    assert ct.dtype_of(array_facts(VoidCai(keep[-1])).dtype) is ct.bfloat16


def test_float8_arrays_whose_array_interface_raises_take_dlpack():
    # torch's __cuda_array_interface__ property raises KeyError for float8 tensors (its
    # typestr table has no float8), and hasattr() lets any exception but AttributeError
    # through: found on an H100 (KeyError: torch.float8_e4m3fn). DLPack names the type.
    import tileir as ct
    from tileir._frontend.specialize import array_facts

    for code, dtype in [(10, ct.float8_e4m3fn), (12, ct.float8_e5m2)]:
        keep = _bf16_capsule(code, 8)

        class Float8Tensor(_CapsuleProducer):
            @property
            def __cuda_array_interface__(self):
                raise KeyError("torch.float8_e4m3fn")

        arr = Float8Tensor(keep[-1])
        assert ct.dtype_of(array_facts(arr).dtype) is dtype
        keep2 = _bf16_capsule(code, 8)
        info = cuda.array_info(Float8Tensor(keep2[-1]))
        assert (info.ptr, info.shape, info.bits) == (0x10000, (4, 16), 8)


def test_tuning_times_with_events_and_flushes_l2_between_runs(fake_driver, tmp_path, monkeypatch):
    # ct.tune end to end on the fake driver: real compiles (sm_90a: compute capability 9.0),
    # launches, an L2 flush (twice the 50 MiB L2) before each run, and CUDA events, which
    # the fake driver times at 1.5 ms each.
    import tileir as ct
    from kernels import vector_add

    monkeypatch.setenv("TILEIR_CACHE_DIR", str(tmp_path))
    assert cuda.device_name() == "Fake H100" and cuda.l2_cache_bytes() == 50 << 20
    x = cuda.to_device(np.arange(4096, dtype=np.float32))
    out = cuda.empty((4096,), np.float32)
    launches0, memsets0 = _counter(fake_driver, "launches"), _counter(fake_driver, "memsets_async")
    space = [{"tile": 256}, {"tile": 1024}]
    result = ct.tune.exhaustive_search(space, None, lambda c: (4096 // c["tile"],), vector_add,
                                       lambda c: (x, x, out, c["tile"]), quiet=True)
    runs = len(space) * (ct.tune.WARMUP_RUNS + ct.tune.BATCH_RUNS)
    assert _counter(fake_driver, "launches") - launches0 == runs
    assert _counter(fake_driver, "memsets_async") - memsets0 == runs
    assert ctypes.c_size_t.in_dll(fake_driver, "memset_async_bytes").value == 100 << 20
    # Identical times: no spread, converged at the first batch; ties keep the space's order.
    assert [(m.config, m.mean_us, m.num_samples, m.error_margin_us) for m in result.successes] == [
        ({"tile": 256}, 1500.0, 5, 0.0), ({"tile": 1024}, 1500.0, 5, 0.0)]
    # The same search again: from the cache, nothing launched.
    again = ct.tune.exhaustive_search(space, None, lambda c: (4096 // c["tile"],), vector_add,
                                      lambda c: (x, x, out, c["tile"]), quiet=True)
    assert again.cached and again.best.config == {"tile": 256}
    assert _counter(fake_driver, "launches") - launches0 == runs


def test_a_kernel_that_spills_warns_and_keeps_the_report():
    """ptxas's spill report reaches the CompiledKernel and a TileIRPerformanceWarning."""
    import tileir as ct
    from tileir.errors import TileIRPerformanceWarning

    @ct.kernel
    def too_big(X, Y, Z):
        # 128 x 512 f32 held by 128 threads: 512 live values per thread.
        x = ct.load(X, (0, 0), (128, 512))
        y = ct.exp(x) * x
        s = ct.sum(y, axis=1)
        ct.store(Z, (0,), s + ct.max(y, axis=1))
        ct.store(Y, (0, 0), y + ct.reshape(s, (128, 1)))

    x = np.zeros((128, 512), np.float32)
    with pytest.warns(TileIRPerformanceWarning, match="spills registers on sm_90a"):
        k = ct.compile(too_big, (x, x, np.zeros(128, np.float32)), target="sm_90a")
    assert k.spills and k.ptxas_info.spill_stores_bytes > 0, k.ptxas_info
    assert any("spills registers" in w for w in k.warnings), k.warnings


def test_launch_fast_path_checks_which_arrays_share_memory(fake_driver, tmp_path, monkeypatch):
    # Which arrays overlap is part of the specialization (the token order depends on it):
    # the launcher's fast path must not run code compiled for disjoint arrays on an array
    # passed twice, nor on a zero-stride one.
    import tileir as ct
    from kernels import vector_add

    monkeypatch.setenv("TILEIR_CACHE_DIR", str(tmp_path / "cache"))
    kern = vector_add.replace_hints()
    fake_driver.fake_set_param_sizes(9, (ctypes.c_size_t * 9)(8, 4, 4, 8, 4, 4, 8, 4, 4))
    a, b, c = (cuda.empty((1000,), np.float32) for _ in range(3))
    calls = _spy_general_path(monkeypatch)
    ct.launch(None, (4,), kern, (a, b, c, 256))
    ct.launch(None, (4,), kern, (a, b, c, 256))
    assert len(calls) == 1 and len(kern._plans) == 1
    ct.launch(None, (4,), kern, (a, b, a, 256))  # c is a: a new specialization
    assert len(calls) == 2 and len(kern._plans) == 2
    ct.launch(None, (4,), kern, (a, b, a, 256))
    assert len(calls) == 2
    ct.launch(None, (4,), kern, (a, b, c, 256))  # disjoint again: the first plan
    assert len(calls) == 2
    specs = [p.compiled.spec for p in kern._plans.values()]
    assert [s.aliasing for s in specs] == [(0, 1, 2, -1), (0, 1, 0, -1)]
