// tileas-assign-layouts{mma-fragments=true} on flash attention (the frontend sample, causal):
// both mma results, the softmax computed from the first, the rescaled accumulator and the
// row statistics the loop carries all take the wgmma accumulator fragment layout
// (#nv_tileas.mma), row reductions its slice (the second mma then reads P from registers);
// the only conversion left is the accumulator's, after the loop, for the store. With
// invariant-a-in-registers, Q, which the loop reads unchanged, is converted once before
// the loop and read from registers too.
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-assign-layouts{mma-fragments=true}' | FileCheck %s
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-assign-layouts' | FileCheck %s --check-prefix=OFF
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-assign-layouts{mma-fragments=true invariant-a-in-registers=true}' | FileCheck %s --check-prefix=QREG
// The printed layouts parse back.
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-assign-layouts{mma-fragments=true}' | tileir-opt | FileCheck %s

// CHECK-LABEL: nv_tileaa.func @attention
// CHECK: cuda_tile.for {{.*}} -> (!cuda_tile.tile<128x1xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>, !cuda_tile.tile<128x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>, !cuda_tile.tile<128x1xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>)
// CHECK-NOT: convert_layout
// CHECK: %[[S:[0-9]+]] = mmaf %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : tile<128x64xf16, #nv_tileas.blocked<{{.*}}>>, tile<64x64xf16, #nv_tileas.blocked<{{.*}}>>, tile<128x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>
// CHECK: select {{.*}} : tile<128x64xi1, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>, tile<128x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>
// CHECK: reduce %{{[0-9]+}} dim=1 {{.*}} : tile<128x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>> -> tile<128xf32, #nv_tileas.slice<dim=1, parent=#nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>>
// CHECK: reshape %{{[0-9]+}} : tile<128xf32, #nv_tileas.slice<dim=1, parent=#nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>> -> tile<128x1xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>
// CHECK: broadcast %{{[0-9]+}} : tile<128x1xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>> -> tile<128x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>
// CHECK: exp2 {{.*}} : tile<128x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>
// CHECK: %[[P:[0-9]+]] = ftof %{{[0-9]+}} : tile<128x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>> -> tile<128x64xf16, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>
// CHECK-NEXT: %[[O:[0-9]+]] = mmaf %[[P]], %{{[0-9]+}}, %{{[0-9]+}} : tile<128x64xf16, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>, tile<64x64xf16, #nv_tileas.blocked<{{.*}}>>, tile<128x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>
// CHECK-NEXT: continue %{{[0-9]+}}, %[[O]], %{{[0-9]+}} : tile<128x1xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>, tile<128x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>, tile<128x1xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>
// CHECK: cuda_tile.divf {{.*}} : !cuda_tile.tile<128x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>
// CHECK-NEXT: "nv_tileas.convert_layout"({{.*}}) : (!cuda_tile.tile<128x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>) -> !cuda_tile.tile<128x64xf32, #nv_tileas.blocked<
// CHECK-NOT: convert_layout

// QREG: %[[Q:[0-9]+]] = "nv_tileas.convert_layout"(%{{[0-9]+}}) : (!cuda_tile.tile<128x64xf16, #nv_tileas.blocked<{{.*}}>>) -> !cuda_tile.tile<128x64xf16, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>
// QREG: cuda_tile.for
// QREG: mmaf %[[Q]], %{{[0-9]+}}, %{{[0-9]+}} : tile<128x64xf16, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>

// OFF-NOT: #nv_tileas.mma
// OFF-NOT: #nv_tileas.slice
cuda_tile.module @kernels {
  entry @attention(%Q: tile<ptr<f16>>, %Q_shape0: tile<i32>, %Q_shape1: tile<i32>, %Q_shape2: tile<i32>, %Q_stride0: tile<i32>, %Q_stride1: tile<i32>, %Q_stride2: tile<i32>, %K: tile<ptr<f16>>, %K_shape0: tile<i32>, %K_shape1: tile<i32>, %K_shape2: tile<i32>, %K_stride0: tile<i32>, %K_stride1: tile<i32>, %K_stride2: tile<i32>, %V: tile<ptr<f16>>, %V_shape0: tile<i32>, %V_shape1: tile<i32>, %V_shape2: tile<i32>, %V_stride0: tile<i32>, %V_stride1: tile<i32>, %V_stride2: tile<i32>, %Out: tile<ptr<f16>>, %Out_shape0: tile<i32>, %Out_shape1: tile<i32>, %Out_shape2: tile<i32>, %Out_stride0: tile<i32>, %Out_stride1: tile<i32>, %Out_stride2: tile<i32>, %qk_scale: tile<f32>) optimization_hints=<default = {occupancy = 2}> {
    %0 = make_token : token
    %1 = assume div_by<16>, %Q : tile<ptr<f16>>
    %2 = assume div_by<16>, %Q_shape1 : tile<i32>
    %3 = assume div_by<16>, %Q_shape2 : tile<i32>
    %4 = assume div_by<16>, %Q_stride0 : tile<i32>
    %5 = assume div_by<16>, %Q_stride1 : tile<i32>
    %6 = make_tensor_view %1, shape = [%Q_shape0, %2, %3], strides = [%4, %5, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %7 = assume div_by<16>, %K : tile<ptr<f16>>
    %8 = assume div_by<16>, %K_shape1 : tile<i32>
    %9 = assume div_by<16>, %K_shape2 : tile<i32>
    %10 = assume div_by<16>, %K_stride0 : tile<i32>
    %11 = assume div_by<16>, %K_stride1 : tile<i32>
    %12 = make_tensor_view %7, shape = [%K_shape0, %8, %9], strides = [%10, %11, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %13 = assume div_by<16>, %V : tile<ptr<f16>>
    %14 = assume div_by<16>, %V_shape1 : tile<i32>
    %15 = assume div_by<16>, %V_shape2 : tile<i32>
    %16 = assume div_by<16>, %V_stride0 : tile<i32>
    %17 = assume div_by<16>, %V_stride1 : tile<i32>
    %18 = make_tensor_view %13, shape = [%V_shape0, %14, %15], strides = [%16, %17, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %19 = assume div_by<16>, %Out : tile<ptr<f16>>
    %20 = assume div_by<16>, %Out_shape1 : tile<i32>
    %21 = assume div_by<16>, %Out_shape2 : tile<i32>
    %22 = assume div_by<16>, %Out_stride0 : tile<i32>
    %23 = assume div_by<16>, %Out_stride1 : tile<i32>
    %24 = make_tensor_view %19, shape = [%Out_shape0, %20, %21], strides = [%22, %23, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %25:3 = get_tile_block_id : tile<i32>
    %26 = constant <f32: 1.44269502> : tile<f32>
    %27 = mulf %qk_scale, %26 : tile<f32>
    %28 = constant <i32: 128> : tile<i32>
    %29 = muli %25#0, %28 : tile<i32>
    %30 = iota : tile<128xi32>
    %31 = reshape %29 : tile<i32> -> tile<1xi32>
    %32 = broadcast %31 : tile<1xi32> -> tile<128xi32>
    %33 = addi %32, %30 : tile<128xi32>
    %34 = reshape %33 : tile<128xi32> -> tile<128x1xi32>
    %35 = iota : tile<64xi32>
    %36 = reshape %35 : tile<64xi32> -> tile<1x64xi32>
    %37 = constant <f32: 0xFF800000> : tile<128x1xf32>
    %38 = constant <f32: 0.000000e+00> : tile<128x1xf32>
    %39 = constant <f32: 0.000000e+00> : tile<128x64xf32>
    %40 = constant <i32: 0> : tile<i32>
    %41 = make_partition_view %6 : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %42, %43 = load_view_tko weak %41[%25#1, %25#0, %40] token = %0 : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x128x64xf16>, token
    %44 = reshape %42 : tile<1x128x64xf16> -> tile<128x64xf16>
    %45 = constant <i32: 64> : tile<i32>
    %46 = divi %8, %45 signed rounding<positive_inf> : tile<i32>
    %47 = constant <i32: 1> : tile<i32>
    %48:3 = for %arg0 in (%40 to %46, step %47) : tile<i32> iter_values(%arg1 = %37, %arg2 = %39, %arg3 = %38) -> (tile<128x1xf32>, tile<128x64xf32>, tile<128x1xf32>) {
      %49 = make_partition_view %12 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>, dim_map=[0, 2, 1]>
      %50, %51 = load_view_tko weak %49[%25#1, %40, %arg0] token = %0 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>, dim_map=[0, 2, 1]>, tile<i32> -> tile<1x64x64xf16>, token
      %52 = reshape %50 : tile<1x64x64xf16> -> tile<64x64xf16>
      %53 = mmaf %44, %52, %39 : tile<128x64xf16>, tile<64x64xf16>, tile<128x64xf32>
      %54 = muli %arg0, %45 : tile<i32>
      %55 = reshape %54 : tile<i32> -> tile<1x1xi32>
      %56 = broadcast %55 : tile<1x1xi32> -> tile<1x64xi32>
      %57 = addi %56, %36 : tile<1x64xi32>
      %58 = broadcast %34 : tile<128x1xi32> -> tile<128x64xi32>
      %59 = broadcast %57 : tile<1x64xi32> -> tile<128x64xi32>
      %60 = cmpi greater_than_or_equal %58, %59, signed : tile<128x64xi32> -> tile<128x64xi1>
      %61 = constant <f32: 0.000000e+00> : tile<f32>
      %62 = constant <f32: 0xFF800000> : tile<f32>
      %63 = reshape %61 : tile<f32> -> tile<1x1xf32>
      %64 = broadcast %63 : tile<1x1xf32> -> tile<128x64xf32>
      %65 = reshape %62 : tile<f32> -> tile<1x1xf32>
      %66 = broadcast %65 : tile<1x1xf32> -> tile<128x64xf32>
      %67 = select %60, %64, %66 : tile<128x64xi1>, tile<128x64xf32>
      %68 = addf %53, %67 : tile<128x64xf32>
      %69 = reduce %68 dim=1 identities=[0xFF800000 : f32] : tile<128x64xf32> -> tile<128xf32>
        (%arg4: tile<f32>, %arg5: tile<f32>) {
          %70 = maxf %arg4, %arg5 : tile<f32>
          yield %70 : tile<f32>
        }
      %71 = reshape %69 : tile<128xf32> -> tile<128x1xf32>
      %72 = reshape %27 : tile<f32> -> tile<1x1xf32>
      %73 = broadcast %72 : tile<1x1xf32> -> tile<128x1xf32>
      %74 = mulf %71, %73 : tile<128x1xf32>
      %75 = maxf %arg1, %74 : tile<128x1xf32>
      %76 = reshape %27 : tile<f32> -> tile<1x1xf32>
      %77 = broadcast %76 : tile<1x1xf32> -> tile<128x64xf32>
      %78 = mulf %68, %77 : tile<128x64xf32>
      %79 = broadcast %75 : tile<128x1xf32> -> tile<128x64xf32>
      %80 = subf %78, %79 : tile<128x64xf32>
      %81 = exp2 %80 flush_to_zero : tile<128x64xf32>
      %82 = reduce %81 dim=1 identities=[0.000000e+00 : f32] : tile<128x64xf32> -> tile<128xf32>
        (%arg6: tile<f32>, %arg7: tile<f32>) {
          %83 = addf %arg6, %arg7 : tile<f32>
          yield %83 : tile<f32>
        }
      %84 = reshape %82 : tile<128xf32> -> tile<128x1xf32>
      %85 = subf %arg1, %75 : tile<128x1xf32>
      %86 = exp2 %85 flush_to_zero : tile<128x1xf32>
      %87 = mulf %arg3, %86 : tile<128x1xf32>
      %88 = addf %87, %84 : tile<128x1xf32>
      %89 = broadcast %86 : tile<128x1xf32> -> tile<128x64xf32>
      %90 = mulf %arg2, %89 : tile<128x64xf32>
      %91 = make_partition_view %18 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %92, %93 = load_view_tko weak %91[%25#1, %arg0, %40] token = %0 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
      %94 = reshape %92 : tile<1x64x64xf16> -> tile<64x64xf16>
      %95 = ftof %81 : tile<128x64xf32> -> tile<128x64xf16>
      %96 = mmaf %95, %94, %90 : tile<128x64xf16>, tile<64x64xf16>, tile<128x64xf32>
      continue %75, %96, %88 : tile<128x1xf32>, tile<128x64xf32>, tile<128x1xf32>
    }
    %97 = broadcast %48#2 : tile<128x1xf32> -> tile<128x64xf32>
    %98 = divf %48#1, %97 rounding<approx> flush_to_zero : tile<128x64xf32>
    %99 = reshape %98 : tile<128x64xf32> -> tile<1x128x64xf32>
    %100 = ftof %99 : tile<1x128x64xf32> -> tile<1x128x64xf16>
    %101 = make_partition_view %24 : partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
    %102 = store_view_tko weak %100, %101[%25#1, %25#0, %40] token = %0 : tile<1x128x64xf16>, partition_view<tile=(1x128x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> token
    return
  }
}
