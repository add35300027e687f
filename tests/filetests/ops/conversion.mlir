// Conversion ops (9): bitcast, exti/trunci (including i4), ftof between all
// float formats (including the 13.2/13.3 f8E8M0FNU and f4E2M1FN), ftoi, itof
// and the pointer casts.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @bitcasts(
  entry @bitcasts(%i: tile<i32>, %f: tile<f16>) {
    // CHECK: bitcast %{{[^ ,]+}} : tile<i32> -> tile<f32>
    %0 = bitcast %i : tile<i32> -> tile<f32>
    // CHECK: bitcast %{{[^ ,]+}} : tile<f16> -> tile<bf16>
    %1 = bitcast %f : tile<f16> -> tile<bf16>
    // CHECK: bitcast %{{[^ ,]+}} : tile<f16> -> tile<i16>
    %2 = bitcast %f : tile<f16> -> tile<i16>
    // Identity bitcast is allowed.
    // CHECK: bitcast %{{[^ ,]+}} : tile<i32> -> tile<i32>
    %3 = bitcast %i : tile<i32> -> tile<i32>
    // CHECK: constant <i8: 1> : tile<4xi8>
    %c = constant <i8: 1> : tile<4xi8>
    // CHECK: bitcast %{{[^ ,]+}} : tile<4xi8> -> tile<4xf8E4M3FN>
    %4 = bitcast %c : tile<4xi8> -> tile<4xf8E4M3FN>
    // CHECK: bitcast %{{[^ ,]+}} : tile<4xi8> -> tile<4xf8E5M2>
    %5 = bitcast %c : tile<4xi8> -> tile<4xf8E5M2>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @integer_width(
  entry @integer_width(%i: tile<i16>) {
    // CHECK: exti %{{[^ ,]+}} signed : tile<i16> -> tile<i32>
    %0 = exti %i signed : tile<i16> -> tile<i32>
    // CHECK: exti %{{[^ ,]+}} unsigned : tile<i16> -> tile<i64>
    %1 = exti %i unsigned : tile<i16> -> tile<i64>
    // CHECK: trunci %{{[^ ,]+}} : tile<i16> -> tile<i8>
    %2 = trunci %i : tile<i16> -> tile<i8>
    // CHECK: trunci %{{[^ ,]+}} overflow<no_wrap> : tile<i16> -> tile<i1>
    %3 = trunci %i overflow<no_wrap> : tile<i16> -> tile<i1>
    // CHECK: trunci %{{[^ ,]+}} overflow<no_signed_wrap> : tile<i16> -> tile<i4>
    %4 = trunci %i overflow<no_signed_wrap> : tile<i16> -> tile<i4>
    // CHECK: exti %{{[^ ,]+}} signed : tile<i4> -> tile<i8>
    %5 = exti %4 signed : tile<i4> -> tile<i8>
    // CHECK: exti %{{[^ ,]+}} unsigned : tile<i1> -> tile<i16>
    %6 = exti %3 unsigned : tile<i1> -> tile<i16>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @float_formats(
  entry @float_formats(%f: tile<f32>) {
    // CHECK: ftof %{{[^ ,]+}} : tile<f32> -> tile<f16>
    %0 = ftof %f : tile<f32> -> tile<f16>
    // CHECK: ftof %{{[^ ,]+}} : tile<f32> -> tile<bf16>
    %1 = ftof %f : tile<f32> -> tile<bf16>
    // CHECK: ftof %{{[^ ,]+}} : tile<f32> -> tile<tf32>
    %2 = ftof %f : tile<f32> -> tile<tf32>
    // CHECK: ftof %{{[^ ,]+}} : tile<f32> -> tile<f64>
    %3 = ftof %f : tile<f32> -> tile<f64>
    // CHECK: ftof %{{[^ ,]+}} : tile<f32> -> tile<f8E4M3FN>
    %4 = ftof %f : tile<f32> -> tile<f8E4M3FN>
    // CHECK: ftof %{{[^ ,]+}} : tile<f32> -> tile<f8E5M2>
    %5 = ftof %f : tile<f32> -> tile<f8E5M2>
    // CHECK: ftof %{{[^ ,]+}} rounding<zero> : tile<f32> -> tile<f8E8M0FNU>
    %6 = ftof %f rounding<zero> : tile<f32> -> tile<f8E8M0FNU>
    // CHECK: ftof %{{[^ ,]+}} rounding<positive_inf> : tile<f32> -> tile<f8E8M0FNU>
    %7 = ftof %f rounding<positive_inf> : tile<f32> -> tile<f8E8M0FNU>
    // CHECK: ftof %{{[^ ,]+}} : tile<f8E8M0FNU> -> tile<f32>
    %8 = ftof %6 : tile<f8E8M0FNU> -> tile<f32>
    // CHECK: constant <f16: 1.000000e+00> : tile<2xf16>
    %c = constant <f16: 1.000000e+00> : tile<2xf16>
    // CHECK: ftof %{{[^ ,]+}} : tile<2xf16> -> tile<2xf4E2M1FN>
    %9 = ftof %c : tile<2xf16> -> tile<2xf4E2M1FN>
    // CHECK: ftof %{{[^ ,]+}} : tile<2xf4E2M1FN> -> tile<2xf8E4M3FN>
    %10 = ftof %9 : tile<2xf4E2M1FN> -> tile<2xf8E4M3FN>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @float_int(
  entry @float_int(%f: tile<f32>, %i: tile<i32>) {
    // CHECK: ftoi %{{[^ ,]+}} signed : tile<f32> -> tile<i32>
    %0 = ftoi %f signed : tile<f32> -> tile<i32>
    // CHECK: ftoi %{{[^ ,]+}} unsigned : tile<f32> -> tile<i8>
    %1 = ftoi %f unsigned : tile<f32> -> tile<i8>
    // CHECK: itof %{{[^ ,]+}} signed : tile<i32> -> tile<f32>
    %2 = itof %i signed : tile<i32> -> tile<f32>
    // CHECK: itof %{{[^ ,]+}} unsigned : tile<i32> -> tile<f16>
    %3 = itof %i unsigned : tile<i32> -> tile<f16>
    // CHECK: itof %{{[^ ,]+}} signed : tile<i32> -> tile<f8E5M2>
    %4 = itof %i signed : tile<i32> -> tile<f8E5M2>
    // CHECK: constant <f8E4M3FN: 2.000000e+00> : tile<2xf8E4M3FN>
    %c = constant <f8E4M3FN: 2.000000e+00> : tile<2xf8E4M3FN>
    // CHECK: ftoi %{{[^ ,]+}} signed : tile<2xf8E4M3FN> -> tile<2xi16>
    %5 = ftoi %c signed : tile<2xf8E4M3FN> -> tile<2xi16>
    // CHECK: constant <i1: [true, false]> : tile<2xi1>
    %b = constant <i1: [true, false]> : tile<2xi1>
    // CHECK: itof %{{[^ ,]+}} unsigned : tile<2xi1> -> tile<2xbf16>
    %6 = itof %b unsigned : tile<2xi1> -> tile<2xbf16>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @pointers(
  entry @pointers(%p: tile<ptr<f32>>, %n: tile<i64>) {
    // CHECK: ptr_to_int %{{[^ ,]+}} : tile<ptr<f32>> -> tile<i64>
    %0 = ptr_to_int %p : tile<ptr<f32>> -> tile<i64>
    // CHECK: int_to_ptr %{{[^ ,]+}} : tile<i64> -> tile<ptr<i8>>
    %1 = int_to_ptr %n : tile<i64> -> tile<ptr<i8>>
    // CHECK: ptr_to_ptr %{{[^ ,]+}} : tile<ptr<f32>> -> tile<ptr<f64>>
    %2 = ptr_to_ptr %p : tile<ptr<f32>> -> tile<ptr<f64>>
    // CHECK: ptr_to_ptr %{{[^ ,]+}} : tile<ptr<i8>> -> tile<ptr<f8E4M3FN>>
    %3 = ptr_to_ptr %1 : tile<ptr<i8>> -> tile<ptr<f8E4M3FN>>
    // CHECK: return
    return
  }
}
