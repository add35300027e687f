"""Bad input gets located diagnostics, never a crash."""

from pathlib import Path

import numpy as np
import pytest

import tileir as ct
from tileir import _native, errors

from kernels import vector_add

Z = np.zeros(64, np.float32)


@ct.kernel
def uses_try(a, b, c, TILE: ct.Constant[int]):
    i = ct.bid(0)
    try:
        pass
    finally:
        pass


@ct.kernel
def bad_tile(a, b, c, TILE: ct.Constant[int]):
    ta = ct.load(a, index=(ct.bid(0),), shape=(48,))
    ct.store(c, index=(ct.bid(0),), tile=ta)


@ct.kernel
def bad_keyword(a, b, c, TILE: ct.Constant[int]):
    ta = ct.load(a, index=(ct.bid(0),), shape=(TILE,), padding=ct.PaddingMode.ZERO)


@ct.kernel
def mismatched(a, b, c, TILE: ct.Constant[int]):
    ta = ct.load(a, index=(ct.bid(0),), shape=(TILE,))
    tb = ct.load(b, index=(ct.bid(0),), shape=(TILE,))
    ct.store(c, index=(ct.bid(0),), tile=ta + tb)


def caret_col(err):
    lines = str(err).splitlines()
    return lines[-1].index("^") + 1


def test_unsupported_syntax_points_at_the_statement():
    with pytest.raises(errors.FrontendError) as e:
        ct.compile(uses_try, (Z, Z, Z, 64))
    err = e.value
    file, line, col = err.location
    assert file.endswith("test_diagnostics.py")
    assert err.source_line.strip() == "try:"
    assert col == err.source_line.index("try") + 1 == caret_col(err)
    assert f"{file}:{line}:{col}: error: unsupported Python statement 'Try'" in str(err)


def test_non_power_of_two_tile_points_at_the_shape():
    with pytest.raises(errors.FrontendError, match="tile dimension 48 is not a power of two") as e:
        ct.compile(bad_tile, (Z, Z, Z, 64))
    err = e.value
    assert err.source_line.strip().startswith("ta = ct.load(")
    assert caret_col(err) == err.source_line.index("(48,)") + 1


def test_unknown_keyword_is_named_with_the_alternatives():
    with pytest.raises(errors.FrontendError, match="unexpected keyword argument 'padding'; expected one of: "
                                                   "array, index, shape, padding_mode") as e:
        ct.compile(bad_keyword, (Z, Z, Z, 64))
    assert caret_col(e.value) == e.value.source_line.index("ct.PaddingMode.ZERO") + 1


def test_type_mismatch_names_both_types():
    # float32 + float16 promotes to float32 (cuTile's table); int32 with uint32 does not promote.
    i, u = np.zeros(64, np.int32), np.zeros(64, np.uint32)
    with pytest.raises(errors.FrontendError, match=r"Implicit promotion of int32 and uint32 is not supported"):
        ct.compile(mismatched, (i, u, Z, 64))


def test_wrong_argument_count():
    with pytest.raises(errors.FrontendError, match=r"takes 4 argument\(s\) \(a, b, c, TILE\), got 3"):
        ct.compile(vector_add, (Z, Z, Z))


def test_bad_pipeline_strings_are_pipeline_errors():
    with pytest.raises(errors.PipelineError, match="unknown pass 'convert-cuda-tile-to-tilea'; did you mean "
                                                   "'convert-cuda-tile-to-tileaa'") as e:
        ct.compile(vector_add, (Z, Z, Z, 64), pipeline="convert-cuda-tile-to-tilea")
    assert isinstance(e.value, ValueError)
    with pytest.raises(errors.PipelineError, match="offset 28"):
        _native.canonical_pipeline("convert-cuda-tile-to-tileaa{")
    with pytest.raises(errors.PipelineError, match="option 'num-warps': expected an unsigned integer, got 'four'"):
        _native.canonical_pipeline("convert-tileaa-to-tileas{num-warps=four}")
    assert _native.canonical_pipeline("") == _native.canonical_pipeline(_native.default_pipeline())


def test_pipeline_that_stops_early_cannot_emit_llvm():
    with pytest.raises(errors.CompilationError, match="must be lowered"):
        ct.compile(vector_add, (Z, Z, Z, 64), pipeline="convert-cuda-tile-to-tileaa")


def test_malformed_ir_from_the_builder_is_diagnosed():
    b = _native.ModuleBuilder()
    with pytest.raises(errors.CompilationError, match=r"invalid type 'tile<4xf33>': at offset 7: expected an element type"):
        b.type_("tile<4xf33>")
    f32 = b.type_("tile<4xf32>")
    loc = b.loc("k.py", 3, 9)
    b.begin_module("kernels", loc)
    (x,) = b.begin_entry("k", [b.type_("tile<f32>")], ["x"], loc)
    with pytest.raises(errors.CompilationError, match="unknown op 'cuda_tile.adf'; did you mean 'addf'"):
        b.op("adf", [x, x], [f32], {}, loc)
    with pytest.raises(errors.CompilationError, match="has unknown value 'sideways'"):
        b.op("addf", [x, x], [f32], {"rounding_mode": "sideways"}, loc)
    with pytest.raises(errors.CompilationError, match="invalid value handle 999"):
        b.op("addf", [999, x], [f32], {}, loc)
    b.op("addf", [x, x], [f32], {}, loc)  # result type does not match the operands
    b.op("return", [], [], {}, loc)
    b.end_region()
    b.end_region()
    m = b.finish()
    with pytest.raises(errors.VerificationError) as e:
        m.verify()
    (d,) = e.value.diagnostics
    assert (d.file, d.line, d.column, d.severity) == ("k.py", 3, 9, "error")
    assert "'cuda_tile.addf' op failed to verify that all of {lhs, rhs, result} have same type" == d.message
    assert str(d).startswith("k.py:3:9: error: ")


def test_module_text_forms():
    b = _native.ModuleBuilder()
    loc = b.loc("k.py", 1, 1)
    b.begin_module("kernels", loc)
    (x,) = b.begin_entry("k", [b.type_("tile<f32>")], ["x"], loc)
    b.op("addf", [x, x], [b.type_("tile<f32>")], {"rounding_mode": "zero"}, loc)
    b.op("return", [], [], {}, loc)
    b.end_region()
    b.end_region()
    m = b.finish()
    m.verify()
    assert "%0 = addf %x, %x rounding<zero> : tile<f32>" in str(m)
    generic = m.to_text(generic=True)
    assert '"cuda_tile.addf"(%x, %x) <{rounding_mode = #cuda_tile.rounding<zero>}> : ' \
           "(!cuda_tile.tile<f32>, !cuda_tile.tile<f32>) -> !cuda_tile.tile<f32>" in generic
    assert 'loc("k.py":1:1)' in m.to_text(debug_info=True)


def test_rust_panic_becomes_internal_compiler_error():
    with pytest.raises(errors.InternalCompilerError) as e:
        _native._debug_force_panic("boom for the test")
    err = e.value
    assert "internal compiler error: boom for the test" in str(err)
    assert err.reproducer.startswith("// tileir reproducer") or err.reproducer.startswith("// forced panic")
    path = Path(err.reproducer_path)
    assert path.read_text() == err.reproducer
    path.unlink()
    # It is an ordinary Exception (pyo3's PanicException derives from BaseException).
    assert isinstance(err, Exception)


def test_pass_registry_describes_options():
    reg = {p["name"]: p for p in _native.pass_registry()}
    assert set(reg) >= {"convert-cuda-tile-to-tileaa", "convert-tileaa-to-tileas"}
    opt, force = reg["convert-tileaa-to-tileas"]["options"]
    assert opt[:3] == ("num-warps", "u32", "0") and "Warps per CTA" in opt[3]
    assert force[:3] == ("force-variant", "string", "") and "OP:VARIANT" in force[3]
