"""cuda_tile bytecode from Python (tileir.bytecode, Module.to_bytecode) and the
tileiras-compatible command."""

import pytest

import tileir.bytecode
import tileir.ir
from tileir import _tileiras, errors

from test_ir_text import VADD

ATAN2 = """\
cuda_tile.module @kernels {
  entry @k(%x: tile<f32>) {
    %r = atan2 %x, %x : tile<f32>
    return
  }
}
"""

# What the backend refuses: a kernel parameter of a type the launch ABI does not pass.
UNSUPPORTED = """\
cuda_tile.module @kernels {
  entry @k(%y: tile<ptr<bf16>>) {
    %t = make_token : token
    %v = constant <bf16: 1.0> : tile<bf16>
    %r, %rt = atomic_rmw_tko relaxed device %y, addf, %v token = %t : tile<ptr<bf16>>, tile<bf16> -> tile<bf16>, token
    return
  }
}
"""


def test_text_bytecode_text_round_trip_at_every_version():
    m = tileir.ir.parse(VADD)
    for version in tileir.bytecode.VERSIONS:
        data = m.to_bytecode(version=version)
        assert data[:8] == b"\x7fTileIR\x00"
        back = tileir.bytecode.read(data)
        back.verify()
        assert str(tileir.bytecode.read(back.to_bytecode(version=version))) == str(back)
        assert "load_view_tko weak" in str(back)


def test_writer_names_what_an_old_version_cannot_encode():
    m = tileir.ir.parse(ATAN2)
    m.to_bytecode(version="13.2")
    with pytest.raises(errors.BytecodeError) as e:
        m.to_bytecode(version="13.1")
    assert "atan2" in str(e.value) and "13.1" in str(e.value)
    with pytest.raises(errors.BytecodeError):
        m.to_bytecode(version="12.0")


@pytest.mark.parametrize("cut", [0, 3, 8, 12, 20, -1])
def test_hostile_input_is_an_error_with_an_offset(cut):
    good = tileir.ir.parse(VADD).to_bytecode()
    data = good[:cut] if cut >= 0 else b"\x7fTileIR\x00\x12\x00\x00\x00"
    with pytest.raises(errors.BytecodeError) as e:
        tileir.bytecode.read(data)
    assert "byte" in str(e.value)


def test_tileiras_command_compiles_bytecode_to_a_cubin(tmp_path, capsys):
    src = tmp_path / "vadd.bytecode"
    src.write_bytes(tileir.ir.parse(VADD).to_bytecode())
    out = tmp_path / "vadd.cubin"
    assert _tileiras.run([str(src), "-o", str(out), "--gpu-name", "sm_90", "-O3", "--lineinfo"]) == 0
    assert out.read_bytes()[:4] == b"\x7fELF"


def test_tileiras_command_names_ops_it_cannot_compile(tmp_path, capsys):
    # bf16 atomic addition exists from sm_90 on
    src = tmp_path / "bf16_atomic.bytecode"
    src.write_bytes(tileir.ir.parse(UNSUPPORTED).to_bytecode())
    out = tmp_path / "bf16_atomic.cubin"
    assert _tileiras.run([str(src), "-o", str(out), "--gpu-name", "sm_80"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "atomic addf on bf16 needs sm_90 or newer" in err, err
    assert not out.exists()
    assert _tileiras.run([str(src), "--gpu-name", "sm_100"]) == 1
    assert "cannot generate code for sm_100" in capsys.readouterr().err
