// Integer arithmetic, bitwise and comparison ops (16): every op with its
// attribute variants, on scalar and ranked tiles of several integer widths.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @binary(
  // CHECK-SAME: %[[A:.*]]: tile<i32>, %[[B:.*]]: tile<i32>)
  entry @binary(%a: tile<i32>, %b: tile<i32>) {
    // CHECK: addi %[[A]], %[[B]] : tile<i32>
    %0 = addi %a, %b : tile<i32>
    // CHECK: addi %[[A]], %[[B]] overflow<no_signed_wrap> : tile<i32>
    %1 = addi %a, %b overflow<no_signed_wrap> : tile<i32>
    // CHECK: subi %[[A]], %[[B]] overflow<no_unsigned_wrap> : tile<i32>
    %2 = subi %a, %b overflow<no_unsigned_wrap> : tile<i32>
    // CHECK: muli %[[A]], %[[B]] overflow<no_wrap> : tile<i32>
    %3 = muli %a, %b overflow<no_wrap> : tile<i32>
    // The default overflow (none) is elided when printing.
    // CHECK: muli %[[A]], %[[B]] : tile<i32>
    %4 = muli %a, %b overflow<none> : tile<i32>
    // CHECK: mulhii %[[A]], %[[B]] : tile<i32>
    %5 = mulhii %a, %b : tile<i32>
    // CHECK: divi %[[A]], %[[B]] signed : tile<i32>
    %6 = divi %a, %b signed : tile<i32>
    // CHECK: divi %[[A]], %[[B]] unsigned rounding<positive_inf> : tile<i32>
    %7 = divi %a, %b unsigned rounding<positive_inf> : tile<i32>
    // CHECK: divi %[[A]], %[[B]] signed rounding<negative_inf> : tile<i32>
    %8 = divi %a, %b signed rounding<negative_inf> : tile<i32>
    // rounding<zero> is divi's default and is not printed.
    // CHECK: divi %[[A]], %[[B]] unsigned : tile<i32>
    %9 = divi %a, %b unsigned rounding<zero> : tile<i32>
    // CHECK: remi %[[A]], %[[B]] signed : tile<i32>
    %10 = remi %a, %b signed : tile<i32>
    // CHECK: remi %[[A]], %[[B]] unsigned : tile<i32>
    %11 = remi %a, %b unsigned : tile<i32>
    // CHECK: maxi %[[A]], %[[B]] signed : tile<i32>
    %12 = maxi %a, %b signed : tile<i32>
    // CHECK: mini %[[A]], %[[B]] unsigned : tile<i32>
    %13 = mini %a, %b unsigned : tile<i32>
    // CHECK: shli %[[A]], %[[B]] overflow<no_signed_wrap> : tile<i32>
    %14 = shli %a, %b overflow<no_signed_wrap> : tile<i32>
    // CHECK: shri %[[A]], %[[B]] signed : tile<i32>
    %15 = shri %a, %b signed : tile<i32>
    // CHECK: shri %[[A]], %[[B]] unsigned : tile<i32>
    %16 = shri %a, %b unsigned : tile<i32>
    // CHECK: andi %[[A]], %[[B]] : tile<i32>
    %17 = andi %a, %b : tile<i32>
    // CHECK: ori %[[A]], %[[B]] : tile<i32>
    %18 = ori %a, %b : tile<i32>
    // CHECK: xori %[[A]], %[[B]] : tile<i32>
    %19 = xori %a, %b : tile<i32>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @unary(
  // CHECK-SAME: %[[X:.*]]: tile<i16>)
  entry @unary(%x: tile<i16>) {
    // CHECK: absi %[[X]] : tile<i16>
    %0 = absi %x : tile<i16>
    // CHECK: negi %[[X]] : tile<i16>
    %1 = negi %x : tile<i16>
    // CHECK: negi %[[X]] overflow<no_signed_wrap> : tile<i16>
    %2 = negi %x overflow<no_signed_wrap> : tile<i16>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @compare(
  entry @compare(%a: tile<i64>, %b: tile<i64>) {
    // CHECK: cmpi equal %{{.*}}, %{{.*}}, signed : tile<i64> -> tile<i1>
    %0 = cmpi equal %a, %b, signed : tile<i64> -> tile<i1>
    // CHECK: cmpi not_equal %{{.*}}, %{{.*}}, unsigned : tile<i64> -> tile<i1>
    %1 = cmpi not_equal %a, %b, unsigned : tile<i64> -> tile<i1>
    // CHECK: cmpi less_than %{{.*}}, %{{.*}}, signed : tile<i64> -> tile<i1>
    %2 = cmpi less_than %a, %b, signed : tile<i64> -> tile<i1>
    // CHECK: cmpi less_than_or_equal %{{.*}}, %{{.*}}, unsigned : tile<i64> -> tile<i1>
    %3 = cmpi less_than_or_equal %a, %b, unsigned : tile<i64> -> tile<i1>
    // CHECK: cmpi greater_than %{{.*}}, %{{.*}}, signed : tile<i64> -> tile<i1>
    %4 = cmpi greater_than %a, %b, signed : tile<i64> -> tile<i1>
    // CHECK: cmpi greater_than_or_equal %{{.*}}, %{{.*}}, signed : tile<i64> -> tile<i1>
    %5 = cmpi greater_than_or_equal %a, %b, signed : tile<i64> -> tile<i1>
    // CHECK: return
    return
  }

  // Ranked tiles of every integer width (i1, i8, i16, i32, i64).
  // CHECK-LABEL: entry @ranked(
  entry @ranked() {
    // CHECK: %[[C1:.*]] = constant <i1: true> : tile<8xi1>
    %c1 = constant <i1: true> : tile<8xi1>
    // CHECK: andi %[[C1]], %[[C1]] : tile<8xi1>
    %0 = andi %c1, %c1 : tile<8xi1>
    // CHECK: xori %[[C1]], %[[C1]] : tile<8xi1>
    %1 = xori %c1, %c1 : tile<8xi1>
    // CHECK: maxi %[[C1]], %[[C1]] signed : tile<8xi1>
    %2 = maxi %c1, %c1 signed : tile<8xi1>
    // CHECK: %[[C8:.*]] = constant <i8: [1, -2, 3, -4]> : tile<4xi8>
    %c8 = constant <i8: [1, -2, 3, -4]> : tile<4xi8>
    // CHECK: absi %[[C8]] : tile<4xi8>
    %3 = absi %c8 : tile<4xi8>
    // CHECK: remi %[[C8]], %[[C8]] signed : tile<4xi8>
    %4 = remi %c8, %c8 signed : tile<4xi8>
    // CHECK: %[[C16:.*]] = constant <i16: 7> : tile<2x4xi16>
    %c16 = constant <i16: 7> : tile<2x4xi16>
    // CHECK: subi %[[C16]], %[[C16]] : tile<2x4xi16>
    %5 = subi %c16, %c16 : tile<2x4xi16>
    // CHECK: shli %[[C16]], %[[C16]] : tile<2x4xi16>
    %6 = shli %c16, %c16 : tile<2x4xi16>
    // CHECK: cmpi less_than %[[C16]], %[[C16]], signed : tile<2x4xi16> -> tile<2x4xi1>
    %7 = cmpi less_than %c16, %c16, signed : tile<2x4xi16> -> tile<2x4xi1>
    // CHECK: %[[C64:.*]] = constant <i64: -1> : tile<2x2x2xi64>
    %c64 = constant <i64: -1> : tile<2x2x2xi64>
    // CHECK: mulhii %[[C64]], %[[C64]] : tile<2x2x2xi64>
    %8 = mulhii %c64, %c64 : tile<2x2x2xi64>
    // CHECK: ori %[[C64]], %[[C64]] : tile<2x2x2xi64>
    %9 = ori %c64, %c64 : tile<2x2x2xi64>
    // CHECK: negi %[[C64]] overflow<no_signed_wrap> : tile<2x2x2xi64>
    %10 = negi %c64 overflow<no_signed_wrap> : tile<2x2x2xi64>
    // CHECK: return
    return
  }
}
