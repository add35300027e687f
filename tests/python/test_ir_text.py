"""cuda_tile IR as text from Python: tileir.ir.parse, Module.verify, printing, and the
command-line tools installed with the wheel."""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import tileir.ir
from tileir import errors

VADD = """\
cuda_tile.module @kernels {
  entry @vadd(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [4096], strides = [1] : tensor_view<4096xf32, strides=[1]>
    %tb = make_tensor_view %b, shape = [4096], strides = [1] : tensor_view<4096xf32, strides=[1]>
    %tc = make_tensor_view %c, shape = [4096], strides = [1] : tensor_view<4096xf32, strides=[1]>
    %pa = make_partition_view %ta : partition_view<tile=(128), tensor_view<4096xf32, strides=[1]>>
    %pb = make_partition_view %tb : partition_view<tile=(128), tensor_view<4096xf32, strides=[1]>>
    %pc = make_partition_view %tc : partition_view<tile=(128), tensor_view<4096xf32, strides=[1]>>
    %x, %t0 = load_view_tko weak %pa[%bx] : partition_view<tile=(128), tensor_view<4096xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %y, %t1 = load_view_tko weak %pb[%bx] : partition_view<tile=(128), tensor_view<4096xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %s = addf %x, %y : tile<128xf32>
    %t2 = store_view_tko weak %s, %pc[%bx] : tile<128xf32>, partition_view<tile=(128), tensor_view<4096xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"""


def test_parse_print_is_a_fixed_point_and_generic_form_agrees():
    m = tileir.ir.parse(VADD, file_name="vadd.mlir")
    m.verify()
    text = str(m)
    assert "load_view_tko weak" in text
    again = tileir.ir.parse(text)
    assert str(again) == text
    generic = m.to_text(generic=True)
    assert '"cuda_tile.load_view_tko"' in generic
    assert str(tileir.ir.parse(generic)) == text


def test_parse_errors_are_located():
    bad = VADD.replace("%s = addf %x, %y", "%s = addf %x, %nope")
    with pytest.raises(errors.ParseError) as e:
        tileir.ir.parse(bad, file_name="bad.mlir")
    diag = e.value.diagnostics[0]
    assert diag.severity == "error"
    assert diag.file == "bad.mlir"
    assert (diag.line, diag.column) == (12, 19)  # the column of %nope
    assert "undeclared SSA value" in diag.message
    assert "bad.mlir:12:19:" in str(e.value)


def test_verification_errors_are_structured():
    # Well-formed text that breaks a verifier rule: a relaxed load needs a memory scope.
    bad = VADD.replace("%y, %t1 = load_view_tko weak %pb", "%y, %t1 = load_view_tko relaxed %pb")
    m = tileir.ir.parse(bad, file_name="k.mlir")
    with pytest.raises(errors.VerificationError) as e:
        m.verify()
    diags = e.value.diagnostics
    assert diags, "at least one diagnostic"
    d = diags[0]
    assert (d.severity, d.file, d.line, d.column) == ("error", "k.mlir", 11, 5)
    assert "cuda_tile.load_view_tko" in d.message and "scope" in d.message


def test_parse_rejects_non_text():
    with pytest.raises(TypeError):
        tileir.ir.parse(b"cuda_tile.module @k {}")


def _tool(name):
    found = shutil.which(name)
    if found:
        return [found]
    scripts = Path(sysconfig.get_path("scripts")) / name
    if scripts.exists():
        return [str(scripts)]
    pytest.skip(f"{name} is not on PATH (install the wheel to get the console scripts)")


def test_tileir_opt_round_trips_and_verifies_diagnostics(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(VADD)
    out = subprocess.run(_tool("tileir-opt") + [str(src)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "cuda_tile.module @kernels" in out.stdout
    neg = tmp_path / "neg.mlir"
    neg.write_text(
        "cuda_tile.module @kernels {\n"
        "  testing$func @f(%a: tile<f32>) -> tile<f32> {\n"
        "    // expected-error @below {{rounding}}\n"
        "    %r = addf %a, %a rounding<approx> : tile<f32>\n"
        "    return %r : tile<f32>\n"
        "  }\n"
        "}\n"
    )
    ok = subprocess.run(_tool("tileir-opt") + ["-verify-diagnostics", str(neg)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    plain = subprocess.run(_tool("tileir-opt") + [str(neg)], capture_output=True, text=True)
    assert plain.returncode == 1
    assert f"{neg}:4:" in plain.stderr
    unknown = subprocess.run(_tool("tileir-opt") + ["-no-such-flag"], capture_output=True, text=True)
    assert unknown.returncode != 0 and "Unknown command line argument" in unknown.stderr
