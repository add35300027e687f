// Invalid integer arithmetic, bitwise and comparison ops: one or more cases per op.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// absi takes integer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.absi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<4xf32>'}}
    %r = absi %x : tile<4xf32>
    return
  }
}

// -----

// addi takes integer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.addi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f32>'}}
    %r = addi %x, %x : tile<f32>
    return
  }
}

// -----

// addi operands and result must have one type (generic form bypasses the single-type syntax).
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi32>, %y: tile<4xi16>) {
    // expected-error @below {{'cuda_tile.addi' op failed to verify that all of {lhs, rhs, result} have same type}}
    %r = "cuda_tile.addi"(%x, %y) <{overflow = #cuda_tile.overflow<none>}> : (!cuda_tile.tile<4xi32>, !cuda_tile.tile<4xi16>) -> !cuda_tile.tile<4xi32>
    return
  }
}

// -----

// i4 is only usable by exti/trunci/pack/unpack.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi4>) {
    // expected-error @below {{'cuda_tile.addi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<4xi4>'}}
    %r = addi %x, %x : tile<4xi4>
    return
  }
}

// -----

// subi takes integer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f16>) {
    // expected-error @below {{'cuda_tile.subi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f16>'}}
    %r = subi %x, %x overflow<no_wrap> : tile<f16>
    return
  }
}

// -----

// 'wrap' is not an overflow keyword.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{custom op 'cuda_tile.muli' expected overflow to be one of: {'none', 'no_signed_wrap', 'no_unsigned_wrap', 'no_wrap'}}}
    %r = muli %x, %x overflow<wrap> : tile<i32>
    return
  }
}

// -----

// mulhii takes integer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<bf16>) {
    // expected-error @below {{'cuda_tile.mulhii' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<bf16>'}}
    %r = mulhii %x, %x : tile<bf16>
    return
  }
}

// -----

// divi: negative_inf rounding is meaningless for unsigned division.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.divi' op rounding mode 'negative_inf' is not allowed with 'unsigned' flag}}
    %r = divi %x, %x unsigned rounding<negative_inf> : tile<i32>
    return
  }
}

// -----

// divi rounding is one of zero / negative_inf / positive_inf.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.divi' op invalid rounding mode specified, expect one of [zero, negative_inf, positive_inf]}}
    %r = divi %x, %x signed rounding<nearest_even> : tile<i32>
    return
  }
}

// -----

// remi requires a signedness keyword.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{custom op 'cuda_tile.remi' expected valid keyword}}
    // expected-error @below {{custom op 'cuda_tile.remi' expected signedness to be one of: {'signed', 'unsigned'}}}
    %r = remi %x, %x : tile<i32>
    return
  }
}

// -----

// remi takes integer tiles only (use remf).
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.remi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f32>'}}
    %r = remi %x, %x signed : tile<f32>
    return
  }
}

// -----

// negi has signed semantics: no_unsigned_wrap is rejected.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i8>) {
    // expected-error @below {{'cuda_tile.negi' op 'no_unsigned_wrap' overflow flag is not supported}}
    %r = negi %x overflow<no_unsigned_wrap> : tile<i8>
    return
  }
}

// -----

// maxi takes integer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.maxi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f32>'}}
    %r = maxi %x, %x signed : tile<f32>
    return
  }
}

// -----

// mini requires a signedness keyword.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{custom op 'cuda_tile.mini' expected valid keyword}}
    // expected-error @below {{custom op 'cuda_tile.mini' expected signedness to be one of: {'signed', 'unsigned'}}}
    %r = mini %x, %x : tile<i32>
    return
  }
}

// -----

// shli takes integer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.shli' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f32>'}}
    %r = shli %x, %x : tile<f32>
    return
  }
}

// -----

// shri does not accept pointer tiles.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<ptr<i32>>) {
    // expected-error @below {{'cuda_tile.shri' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<ptr<i32>>'}}
    %r = shri %x, %x signed : tile<ptr<i32>>
    return
  }
}

// -----

// andi takes integer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.andi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f32>'}}
    %r = andi %x, %x : tile<f32>
    return
  }
}

// -----

// ori takes integer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<bf16>) {
    // expected-error @below {{'cuda_tile.ori' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<bf16>'}}
    %r = ori %x, %x : tile<bf16>
    return
  }
}

// -----

// xori takes integer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f64>) {
    // expected-error @below {{'cuda_tile.xori' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f64>'}}
    %r = xori %x, %x : tile<f64>
    return
  }
}

// -----

// cmpi always needs ', signed' or ', unsigned', even for equality.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{expected ','}}
    %r = cmpi equal %x, %x : tile<i32> -> tile<i1>
    return
  }
}

// -----

// cmpi result element type must be i1.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.cmpi' op result #0 must be tile of i1 values, but got '!cuda_tile.tile<4xi32>'}}
    %r = cmpi equal %x, %x, signed : tile<4xi32> -> tile<4xi32>
    return
  }
}

// -----

// cmpi result shape must equal the operand shape.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.cmpi' op failed to verify that Result type has i1 element type and same shape as operands}}
    %r = cmpi equal %x, %x, signed : tile<4xi32> -> tile<2xi1>
    return
  }
}

// -----

// unknown comparison predicate.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi32>) {
    // expected-error @below {{custom op 'cuda_tile.cmpi' expected 'comparison_predicate' to be one of: {'equal', 'not_equal', 'less_than', 'less_than_or_equal', 'greater_than', 'greater_than_or_equal'}}}
    %r = cmpi lesser %x, %x, signed : tile<4xi32> -> tile<4xi1>
    return
  }
}

// -----

// cmpi takes integer tiles only (use cmpf).
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.cmpi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f32>'}}
    %r = cmpi less_than %x, %x, signed : tile<f32> -> tile<i1>
    return
  }
}
