"""The persistent compile cache (tileir.cache): hits and misses for every key component,
fresh processes, concurrent writers, corrupt entries, unwritable folders, LRU eviction
and the show/clear command."""

import importlib.util
import linecache
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import tileir

import tileir as ct
from arrays import assert_same_bits, emulate_and_interpret
from tileir import _compile, cache

HERE = Path(__file__).parent
REPO = HERE.parent.parent

VECTOR_ADD = '''
import tileir as ct
{prelude}

@ct.kernel
def vector_add(a, b, c, TILE: ct.Constant[int]):
    i = ct.bid(0)
    ta = ct.load(a, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(i,), tile={body})
'''

_counter = [0]


def load_kernel(tmp_path, prelude="", body="ta + tb", name="vector_add", source=None, stem=None):
    """A kernel defined in a module file (the cache reads kernels' source): a fresh file,
    or the file ``stem`` rewritten (a user editing a file) and imported again."""
    _counter[0] += 1
    mod_name = stem or f"_cache_kernel_{os.getpid()}_{_counter[0]}"
    path = tmp_path / f"{mod_name}.py"
    path.write_text(source if source is not None else VECTOR_ADD.format(prelude=prelude, body=body))
    linecache.checkcache(str(path))
    spec = importlib.util.spec_from_file_location(mod_name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, name), mod


def arrays(n=256, dtype=np.float32):
    z = np.zeros(n, dtype)
    return z, z, z


def runs_like_the_interpreter(compiled, kern, tile=256, n=256):
    """``compiled`` (fresh or loaded from the cache) runs: on the PTX emulator it writes what
    ``kern`` writes under ct.interpret, bit for bit (an add rounds once, the same way)."""
    rng = np.random.default_rng(tile)
    args = [rng.standard_normal(n).astype(np.float32) for _ in range(3)] + [tile]
    want, got = emulate_and_interpret((ct.cdiv(n, tile),), kern, compiled, args)
    assert_same_bits(got[2], want[2])


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("TILEIR_CACHE_DIR", str(d))
    monkeypatch.delenv("TILEIR_CACHE", raising=False)
    monkeypatch.delenv("TILEIR_CACHE_MAX_BYTES", raising=False)
    return d


def key_of(kern, args, target="sm_90a", pipeline="", opt_level=3, ptxas=None):
    spec = ct._compile.specialize(kern.fn, tuple(args))
    return cache.compile_key(kern, spec, target=target, pipeline=pipeline, opt_level=opt_level, ptxas=ptxas,
                             options=_compile._PTX_OPTIONS)


def entry_files(d):
    return sorted(p for p in Path(d).rglob("*.tlc") if not p.name.startswith(".tmp-"))


# ------------------------------------------------------------------------------------------
# Hits and misses
# ------------------------------------------------------------------------------------------

def test_second_compile_is_a_hit_with_the_same_results(cache_dir, tmp_path):
    kern, _ = load_kernel(tmp_path)
    before = dict(cache.stats)
    k1 = ct.compile(kern, (*arrays(), 256))
    assert not k1.from_cache
    assert cache.stats["writes"] == before["writes"] + 1
    assert len(entry_files(cache_dir)) == 1
    k2 = ct.compile(kern.replace_hints(), (*arrays(), 256))  # a new Kernel: empty in-memory cache
    assert k2.from_cache and k2 is not k1
    assert cache.stats["hits"] == before["hits"] + 1
    assert k2.cubin == k1.cubin
    assert k2.asm == k1.asm and set(k2.asm) == {"cuda_tile", "nv_tileaa", "nv_tileas", "nv_tileas-registers", "llvm", "ptx"}
    assert (k2.name, k2.target, k2.num_threads, k2.params, k2.pipeline) == \
        (k1.name, k1.target, k1.num_threads, k1.params, k1.pipeline)
    assert k2.ptxas_info == k1.ptxas_info and k2.registers == k1.registers > 0
    assert k2.warnings == k1.warnings
    assert set(k2.timings) >= {"frontend", "rust_passes", "llvm", "ptxas", "total", "cache_load"}
    runs_like_the_interpreter(k1, kern)
    runs_like_the_interpreter(k2, kern)


def test_hit_in_a_fresh_process(cache_dir, tmp_path):
    src = tmp_path / "fresh_kernel.py"
    src.write_text(VECTOR_ADD.format(prelude="", body="ta + tb") + textwrap.dedent('''
        import numpy as np
        z = np.zeros(300, np.float32)
        k = ct.compile(vector_add, (z, z, z, 128))
        import hashlib
        # The kernel (compiled, then loaded from the cache) runs like the interpreter.
        x, y = np.arange(300, dtype=np.float32) / 7, np.full(300, 0.1, np.float32)
        want, got = np.zeros(300, np.float32), np.zeros(300, np.float32)
        ct.interpret((3,), vector_add, (x, y, want, 128))
        ct.emulate((3,), k, (x, y, got, 128))
        assert got.tobytes() == want.tobytes()
        print("RESULT", k.from_cache, hashlib.sha256(k.cubin).hexdigest(), len(k.asm["ptx"]))
    '''))
    env = dict(os.environ, TILEIR_CACHE_DIR=str(cache_dir))
    outs = []
    for _ in range(2):
        p = subprocess.run([sys.executable, str(src)], capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0, p.stderr
        outs.append(next(line.split()[1:] for line in p.stdout.splitlines() if line.startswith("RESULT")))
    assert outs[0][0] == "False" and outs[1][0] == "True"
    assert outs[0][1:] == outs[1][1:]


def test_every_key_component_changes_the_key(cache_dir, tmp_path, monkeypatch):
    """Change one thing → another key (a miss); change nothing → the same key."""
    kern, mod = load_kernel(tmp_path)
    args = (*arrays(), 256)
    base = key_of(kern, args)
    assert base is not None and base == key_of(kern.replace_hints(), args)

    # the specialization: a Constant's value, a dtype, an alignment/divisibility fact
    assert key_of(kern, (*arrays(), 128)) != base
    assert key_of(kern, (*arrays(dtype=np.float16), 256)) != base
    assert key_of(kern, (*arrays(250), 256)) != base
    # target, pipeline, optimization level, PTX compiler
    assert key_of(kern, args, target="sm_80") != base
    assert key_of(kern, args, pipeline="builtin.module(canonicalize)") != base
    assert key_of(kern, args, opt_level=2) != base
    fake_ptxas = tmp_path / "bin" / "ptxas"
    fake_ptxas.parent.mkdir()
    fake_ptxas.write_text("#!/bin/sh\n")
    fake_ptxas.chmod(0o755)
    assert key_of(kern, args, ptxas=str(fake_ptxas)) != base
    # hints
    assert key_of(kern.replace_hints(occupancy=2), args) != base

    # the kernel's source: same file, one character changed
    stem = f"_cache_edit_{os.getpid()}"
    k1, _ = load_kernel(tmp_path, stem=stem)
    k2, _ = load_kernel(tmp_path, stem=stem)
    k3, _ = load_kernel(tmp_path, stem=stem, body="ta - tb")
    assert key_of(k1, args) == key_of(k2, args) != key_of(k3, args)


@pytest.mark.parametrize("what", ["tileir", "native", "llvm", "ptx"])
def test_toolchain_versions_are_in_the_key(cache_dir, tmp_path, monkeypatch, what):
    kern, _ = load_kernel(tmp_path)
    args = (*arrays(), 256)
    base = key_of(kern, args)
    monkeypatch.setattr(cache, "_toolchain_memo", {})
    if what == "tileir":
        monkeypatch.setattr(cache, "_tileir_version", lambda: "999.0")
    elif what == "native":
        real = cache._stat_id
        monkeypatch.setattr(cache, "_stat_id", lambda p: real(p) + ("-rebuilt" if p and "_native" in p else ""))
    elif what == "llvm":
        monkeypatch.setattr(cache, "_llvm_fingerprint", lambda: "llvmlite 9.9 LLVM 99")
    else:
        monkeypatch.setattr(cache._ptxas, "ptx_compiler_fingerprint", lambda p=None: "ptxas:other:1:2")
    assert key_of(kern, args) != base


def test_closure_and_global_values_are_in_the_key(cache_dir, tmp_path):
    src = '''
import tileir as ct
SCALE = {scale}

def helper(x):
    return x * SCALE

def make(tile_bias):
    @ct.kernel
    def k(a, b, c, TILE: ct.Constant[int]):
        i = ct.bid(0)
        ta = ct.load(a, index=(i,), shape=(TILE + tile_bias,))
        ct.store(c, index=(i,), tile=helper(ta))
    return k

kern = make({bias})
'''
    stem = f"_cache_closure_{os.getpid()}"
    args = (*arrays(), 256)
    keys = []
    for scale, bias in [(2.0, 0), (2.0, 0), (3.0, 0), (2.0, 1)]:  # a global a helper reads; a closure constant
        k, _ = load_kernel(tmp_path, source=src.format(scale=scale, bias=bias), name="kern", stem=stem)
        keys.append(key_of(k, args))
    assert None not in keys
    assert keys[0] == keys[1]
    assert len(set(keys[1:])) == 3

    # a global changed after definition (same module object): another key
    _, mod = load_kernel(tmp_path, source=src.format(scale=2.0, bias=0), name="kern")
    before = key_of(mod.kern, args)
    mod.SCALE = 5.0
    assert key_of(mod.kern, args) != before


def test_user_module_attributes_are_in_the_key(cache_dir, tmp_path):
    cfg_name = f"_cache_cfg_{os.getpid()}"
    (tmp_path / f"{cfg_name}.py").write_text("BIAS = 0\n")
    sys.path.insert(0, str(tmp_path))
    try:
        kern, _ = load_kernel(tmp_path, prelude=f"import {cfg_name} as cfg", body="ta + tb * cfg.BIAS")
        args = (*arrays(), 256)
        before = key_of(kern, args)
        sys.modules[cfg_name].BIAS = 1
        assert key_of(kern, args) != before
    finally:
        sys.path.remove(str(tmp_path))


def test_a_value_without_a_stable_description_is_not_cached(cache_dir, tmp_path):
    kern, mod = load_kernel(tmp_path, prelude="class Opaque: pass\nTHING = Opaque()", body="ta + tb if THING else ta")
    before = cache.stats["uncacheable"]
    assert key_of(kern, (*arrays(), 256)) is None
    assert cache.stats["uncacheable"] == before + 1


def test_real_misses_compile_and_store_each(cache_dir, tmp_path):
    kern, _ = load_kernel(tmp_path)
    ct.compile(kern, (*arrays(), 256))
    k = ct.compile(kern.replace_hints(), (*arrays(), 128))
    assert not k.from_cache
    runs_like_the_interpreter(k, kern, tile=128)
    k = ct.compile(kern.replace_hints(), (*arrays(), 256), target="sm_80")
    assert not k.from_cache and ".target sm_80" in k.asm["ptx"]
    assert len(entry_files(cache_dir)) == 3
    k = ct.compile(kern.replace_hints(), (*arrays(), 256), target="sm_80")
    assert k.from_cache
    runs_like_the_interpreter(k, kern)


def test_cache_can_be_turned_off(cache_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("TILEIR_CACHE", "0")
    kern, _ = load_kernel(tmp_path)
    ct.compile(kern, (*arrays(), 256))
    k = ct.compile(kern.replace_hints(), (*arrays(), 256))
    assert not k.from_cache
    assert not cache_dir.exists()
    runs_like_the_interpreter(k, kern)


# ------------------------------------------------------------------------------------------
# Robustness
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_a_corrupt_entry_is_recompiled_never_loaded(cache_dir, tmp_path, damage):
    kern, _ = load_kernel(tmp_path)
    k1 = ct.compile(kern, (*arrays(), 256))
    (entry,) = entry_files(cache_dir)
    data = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(data[:len(data) // 2])
    elif damage == "flip":
        entry.write_bytes(data[:-10] + bytes([data[-10] ^ 0x40]) + data[-9:])
    elif damage == "empty":
        entry.write_bytes(b"")
    else:
        entry.write_bytes(cache._MAGIC + os.urandom(len(data)))
    before = dict(cache.stats)
    k2 = ct.compile(kern.replace_hints(), (*arrays(), 256))
    assert not k2.from_cache
    assert cache.stats["corrupt"] == before["corrupt"] + 1
    assert k2.cubin == k1.cubin
    assert entry.read_bytes() != b"" and cache._decode(entry.read_bytes(), entry.stem)  # replaced by a good one
    runs_like_the_interpreter(k2, kern)
    k3 = ct.compile(kern.replace_hints(), (*arrays(), 256))
    assert k3.from_cache
    runs_like_the_interpreter(k3, kern)


def test_an_entry_for_another_key_is_not_loaded(cache_dir):
    data = cache._encode("a" * 64, {"name": "x"}, {"cubin": b"\x7fELF"})
    with pytest.raises(cache._Corrupt):
        cache._decode(data, "b" * 64)
    header, blobs = cache._decode(data, "a" * 64)
    assert header["name"] == "x" and blobs["cubin"] == b"\x7fELF"


CONCURRENT = r'''
import os, sys, random
sys.path.insert(0, {repo!r})
from tileir import cache
me = int(sys.argv[1])
keys = ["%064x" % k for k in range(4)]
bad = 0
for i in range(150):
    key = random.choice(keys)
    payload = bytes([me]) * random.randint(1, 200000)
    cache.store(key, {{"name": "k", "writer": me}}, {{"cubin": payload}})
    got = cache.load(random.choice(keys))
    if got is not None:
        header, blobs = got
        if blobs["cubin"] != bytes([header["writer"]]) * len(blobs["cubin"]):
            bad += 1
print("BAD", bad, cache.stats["corrupt"])
'''


def test_concurrent_writers_never_leave_a_torn_entry(cache_dir, tmp_path):
    script = tmp_path / "writer.py"
    # The tileir this test imported (the installed package under CI, the source tree in an
    # editable install): the source tree alone lacks the native module in a plain install.
    script.write_text(CONCURRENT.format(repo=str(Path(tileir.__file__).resolve().parent.parent)))
    env = dict(os.environ, TILEIR_CACHE_DIR=str(cache_dir), TILEIR_CACHE_MAX_BYTES="1G")
    procs = [subprocess.Popen([sys.executable, str(script), str(i + 1)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for i in range(4)]
    results = [(p, *p.communicate(timeout=300)) for p in procs]  # every pipe drained and closed first
    for p, out, err in results:
        assert p.returncode == 0, err
        assert "BAD 0 0" in out, out
    for f in entry_files(cache_dir):
        header, blobs = cache._decode(f.read_bytes(), f.stem)
        assert header["writer"] in (1, 2, 3, 4)
    assert not list(Path(cache_dir).rglob(".tmp-*"))


def test_concurrent_compiles_of_one_kernel(cache_dir, tmp_path):
    src = tmp_path / "conc_kernel.py"
    src.write_text(VECTOR_ADD.format(prelude="", body="ta + tb") + textwrap.dedent('''
        import numpy as np, hashlib
        z = np.zeros(300, np.float32)
        k = ct.compile(vector_add, (z, z, z, 64))
        print("RESULT", hashlib.sha256(k.cubin).hexdigest())
    '''))
    env = dict(os.environ, TILEIR_CACHE_DIR=str(cache_dir))
    procs = [subprocess.Popen([sys.executable, str(src)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for _ in range(3)]
    digests = set()
    results = [(p, *p.communicate(timeout=300)) for p in procs]
    for p, out, err in results:
        assert p.returncode == 0, err
        digests.add(next(line.split()[1] for line in out.splitlines() if line.startswith("RESULT")))
    assert len(digests) == 1
    (entry,) = entry_files(cache_dir)
    assert cache._decode(entry.read_bytes(), entry.stem)


def _assert_one_warning_then_quiet(kern, cache_dir):
    with pytest.warns(cache.CacheWarning, match="cannot be written"):
        k1 = ct.compile(kern, (*arrays(), 256))
    assert k1.cubin[:4] == b"\x7fELF"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k2 = ct.compile(kern.replace_hints(), (*arrays(), 128))  # another miss: no second warning
    assert not k2.from_cache and k2.cubin[:4] == b"\x7fELF"
    runs_like_the_interpreter(k1, kern)
    runs_like_the_interpreter(k2, kern, tile=128)


def test_unwritable_cache_folder_warns_once_and_compiles(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("TILEIR_CACHE_DIR", str(blocker / "cache"))
    kern, _ = load_kernel(tmp_path)
    _assert_one_warning_then_quiet(kern, blocker / "cache")


@pytest.mark.skipif(os.name == "nt" or (hasattr(os, "geteuid") and os.geteuid() == 0),
                    reason="permission bits do not stop root (or Windows) from writing")
def test_read_only_cache_folder_warns_once_and_still_hits(tmp_path, monkeypatch):
    d = tmp_path / "ro-cache"
    monkeypatch.setenv("TILEIR_CACHE_DIR", str(d))
    kern, _ = load_kernel(tmp_path)
    ct.compile(kern, (*arrays(), 64))  # one entry while writable
    for p in [d, *d.rglob("*")]:
        if p.is_dir():
            p.chmod(0o555)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            k = ct.compile(kern.replace_hints(), (*arrays(), 64))
            assert k.from_cache  # reads still work
        runs_like_the_interpreter(k, kern, tile=64)
        _assert_one_warning_then_quiet(kern.replace_hints(), d)
    finally:
        for p in [d, *d.rglob("*")]:
            if p.is_dir():
                p.chmod(0o755)


def test_write_errors_warn_once_per_folder(cache_dir, tmp_path, monkeypatch):
    """A read-only file system (EROFS) as root sees it: the rename fails."""
    def refuse(src, dst):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(cache.os, "replace", refuse)
    kern, _ = load_kernel(tmp_path)
    _assert_one_warning_then_quiet(kern, cache_dir)
    assert not entry_files(cache_dir) and not list(Path(cache_dir).rglob(".tmp-*"))


# ------------------------------------------------------------------------------------------
# Size bound and the command
# ------------------------------------------------------------------------------------------

def test_lru_eviction_keeps_the_recently_used(cache_dir, monkeypatch):
    monkeypatch.setenv("TILEIR_CACHE_MAX_BYTES", "100K")
    keys = ["%064x" % i for i in range(8)]
    blob = os.urandom(20000)  # incompressible: each entry is ~20 KB on disk
    for i, key in enumerate(keys[:4]):
        assert cache.store(key, {"name": f"k{i}"}, {"cubin": blob})
        path = Path(cache._entry_path(str(cache_dir), key))
        os.utime(path, (1000 + i, 1000 + i))  # oldest first
    assert cache.load(keys[0]) is not None  # use the oldest: it becomes the newest
    for key in keys[4:6]:  # the sixth entry passes the bound: evict down to 80%
        assert cache.store(key, {"name": "new"}, {"cubin": blob})
    left = {f.stem for f in entry_files(cache_dir)}
    total = sum(f.stat().st_size for f in entry_files(cache_dir))
    assert total <= 100 * 1024
    assert left == {keys[0], keys[3], keys[4], keys[5]}


def test_show_and_clear(cache_dir, tmp_path, capsys):
    kern, _ = load_kernel(tmp_path)
    ct.compile(kern, (*arrays(), 256))
    assert cache.main(["show"]) == 0
    out = capsys.readouterr().out
    assert str(cache_dir) in out and "1 entry" in out and "vector_add sm_90a" in out
    (entry,) = entry_files(cache_dir)
    entry.write_bytes(b"junk")
    cache.main(["show"])
    assert "corrupt" in capsys.readouterr().out
    assert cache.main(["clear"]) == 0
    assert "removed 1 entry" in capsys.readouterr().out
    assert not entry_files(cache_dir)
    assert cache.main(["path"]) == 0 and capsys.readouterr().out.strip() == str(cache_dir)


def test_module_command_runs(cache_dir):
    p = subprocess.run([sys.executable, "-m", "tileir.cache", "show"], capture_output=True, text=True,
                       env=dict(os.environ, TILEIR_CACHE_DIR=str(cache_dir)), timeout=120)
    assert p.returncode == 0, p.stderr
    assert "0 entries" in p.stdout and "PTX -> cubin:" in p.stdout
    assert "Warning" not in p.stderr, p.stderr


def test_max_bytes_knob_parses_sizes(monkeypatch):
    from tileir import knobs

    for text, value in [("123", 123), ("4K", 4096), ("2MiB", 2 << 20), ("1G", 1 << 30), ("1.5k", 1536)]:
        monkeypatch.setenv("TILEIR_CACHE_MAX_BYTES", text)
        assert knobs.cache_max_bytes() == value
    monkeypatch.setenv("TILEIR_CACHE_MAX_BYTES", "lots")
    with pytest.raises(ValueError, match="TILEIR_CACHE_MAX_BYTES"):
        knobs.cache_max_bytes()


def test_stage_texts_of_a_hit_read_like_a_dict(cache_dir, tmp_path):
    import copy
    import pickle

    kern, _ = load_kernel(tmp_path)
    k1 = ct.compile(kern, (*arrays(), 256))
    k2 = ct.compile(kern.replace_hints(), (*arrays(), 256))
    assert k2.from_cache
    runs_like_the_interpreter(k2, kern)
    plain = dict(k1.asm)
    assert dict(k2.asm) == plain and {**k2.asm} == plain and sorted(k2.asm) == sorted(plain)
    assert pickle.loads(pickle.dumps(k2.asm)) == plain and copy.deepcopy(k2.asm) == plain
    assert "ptx" in k2.asm and k2.asm.get("ptx") == plain["ptx"] and len(k2.asm) == len(plain)
