// Every public cuda_tile op at least once, in custom syntax (our own test program).
cuda_tile.module @kernels attributes {producer = "tileir tests"} {
  global @lut alignment = 128 <f32: [0.0, 1.0, 2.0, 3.0]> : tile<4xf32>
  global private constant @ids <i32: [1, 2]> : !cuda_tile.tile<2xi32>
  entry @arith(%f: tile<f32>, %h: tile<f16>, %i: tile<i32>, %b: tile<i1>, %l: tile<i64>) optimization_hints=<sm_100 = {num_cta_in_cga = 2}, default = {occupancy = 2}> {
    %0 = absf %f : tile<f32>
    %1 = absi %i : tile<i32>
    %2 = addf %f, %f rounding<zero> flush_to_zero : tile<f32>
    %3 = addi %i, %i overflow<no_signed_wrap> : tile<i32>
    %4 = andi %b, %b : tile<i1>
    %5 = ceil %f : tile<f32>
    %6 = cmpf less_than unordered %f, %f : tile<f32> -> tile<i1>
    %7 = cmpi greater_than_or_equal %i, %i, unsigned : tile<i32> -> tile<i1>
    %8 = cos %f : tile<f32>
    %9 = cosh %f : tile<f32>
    %10 = divf %f, %f rounding<approx> : tile<f32>
    %11 = divi %i, %i signed rounding<positive_inf> : tile<i32>
    %12 = exp %f rounding<approx> : tile<f32>
    %13 = exp2 %f flush_to_zero : tile<f32>
    %14 = floor %f : tile<f32>
    %15 = fma %f, %f, %f : tile<f32>
    %16 = log %f : tile<f32>
    %17 = log2 %f : tile<f32>
    %18 = maxf %f, %f propagate_nan : tile<f32>
    %19 = maxi %i, %i signed : tile<i32>
    %20 = minf %f, %f flush_to_zero : tile<f32>
    %21 = mini %i, %i unsigned : tile<i32>
    %22 = mulf %f, %f : tile<f32>
    %23 = mulhii %i, %i : tile<i32>
    %24 = muli %i, %i overflow<no_wrap> : tile<i32>
    %25 = negf %f : tile<f32>
    %26 = negi %i overflow<no_signed_wrap> : tile<i32>
    %27 = ori %i, %i : tile<i32>
    %28 = pow %f, %f : tile<f32>
    %29 = remf %f, %f : tile<f32>
    %30 = remi %i, %i signed : tile<i32>
    %31 = rsqrt %f flush_to_zero : tile<f32>
    %32 = shli %i, %i : tile<i32>
    %33 = shri %i, %i unsigned : tile<i32>
    %34 = sin %f : tile<f32>
    %35 = sinh %f : tile<f32>
    %36 = sqrt %f rounding<approx> : tile<f32>
    %37 = subf %f, %f rounding<negative_inf> : tile<f32>
    %38 = subi %i, %i : tile<i32>
    %39 = tan %f : tile<f32>
    %40 = tanh %f rounding<approx> : tile<f32>
    %41 = xori %b, %b : tile<i1>
    %42 = atan2 %f, %f : tile<f32>
    %43 = select %b, %f, %f : tile<i1>, tile<f32>
    %44 = bitcast %i : tile<i32> -> tile<f32>
    %45 = exti %i signed : tile<i32> -> tile<i64>
    %46 = trunci %i overflow<no_unsigned_wrap> : tile<i32> -> tile<i16>
    %47 = ftof %f rounding<zero> : tile<f32> -> tile<f16>
    %48 = ftoi %h signed : tile<f16> -> tile<i32>
    %49 = itof %i unsigned : tile<i32> -> tile<f32>
    %50 = int_to_ptr %l : tile<i64> -> tile<ptr<f32>>
    %51 = ptr_to_int %50 : tile<ptr<f32>> -> tile<i64>
    %52 = ptr_to_ptr %50 : tile<ptr<f32>> -> tile<ptr<i8>>
    assert %b, "must hold\n" : tile<i1>
    return
  }
  entry @shapes(%x: tile<2x4xf32>, %idx: tile<i32>) {
    %c = constant <i32: [[1, 2], [3, 4]]> : tile<2x2xi32>
    %s = constant <f16: -3.14159> : tile<4x8xf16>
    %io = iota : tile<128xi32>
    %bc = broadcast %x : tile<2x4xf32> -> tile<4x4xf32>
    %rs = reshape %x : tile<2x4xf32> -> tile<8xf32>
    %pm = permute %x [1, 0] : tile<2x4xf32> -> tile<4x2xf32>
    %ct = cat %x, %x dim = 1 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x8xf32>
    %ex = extract %x[%idx, %idx] : tile<2x4xf32> -> tile<1x2xf32>
    %pk = pack %rs : tile<8xf32> -> tile<32xi8>
    %up = unpack %pk : tile<32xi8> -> tile<8xf32>
    %r:2 = reduce %c, %x dim=1 identities=[0 : i32, 0.000000e+00 : f32] : tile<2x2xi32>, tile<2x4xf32> -> tile<2xi32>, tile<2xf32>
      (%a0: tile<i32>, %acc0: tile<i32>, %a1: tile<f32>, %acc1: tile<f32>) {
        %s0 = addi %a0, %acc0 : tile<i32>
        %s1 = addf %a1, %acc1 : tile<f32>
        yield %s0, %s1 : tile<i32>, tile<f32>
      }
    %sc = scan %x dim=1 reverse=true identities=[1.0 : f32] : tile<2x4xf32> -> tile<2x4xf32>
      (%e: tile<f32>, %acc: tile<f32>) {
        %m = mulf %e, %acc : tile<f32>
        yield %m : tile<f32>
      }
    return
  }
  entry @mma(%a: tile<64x32xf8E4M3FN>, %b: tile<32x64xf8E4M3FN>, %c: tile<64x64xf32>, %ia: tile<4x8xi8>, %ib: tile<8x16xi8>, %ic: tile<4x16xi32>,
             %sa: tile<128x128xf8E5M2>, %sb: tile<128x128xf8E5M2>, %sc: tile<128x128xf32>, %xa: tile<128x4xf8E8M0FNU>, %xb: tile<4x128xf8E8M0FNU>) {
    %0 = mmaf %a, %b, %c fast_acc : tile<64x32xf8E4M3FN>, tile<32x64xf8E4M3FN>, tile<64x64xf32>
    %1 = mmai %ia, %ib, %ic signed unsigned : tile<4x8xi8>, tile<8x16xi8>, tile<4x16xi32>
    %2 = mmaf_scaled %sa, %sb, %sc, %xa, %xb : tile<128x128xf8E5M2>, tile<128x128xf8E5M2>, tile<128x128xf32>, tile<128x4xf8E8M0FNU>, tile<4x128xf8E8M0FNU>
    return
  }
  entry @memory(%base: tile<ptr<f32>>, %n: tile<i64>, %ptrs: tile<8xptr<f32>>, %mask: tile<8xi1>, %v8: tile<8xf32>, %iptrs: tile<8xptr<i32>>, %iv: tile<8xi32>, %rows: tile<8xi32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %nx, %ny, %nz = get_num_tile_blocks : tile<i32>
    %g = get_global @lut : tile<ptr<f32>>
    %al = alloca num_elem = 64, alignment = 128 global : tile<ptr<f32>>
    %tv = make_tensor_view %base, shape = [%n, 128], strides = [128, 1] : tile<i64> -> tensor_view<?x128xf32, strides=[128,1]>
    %st = make_tensor_view %base, shape = [32, 32], strides = [32, 1] : tensor_view<32x32xf32, strides=[32,1]>
    %d0, %d1 = get_tensor_shape %tv : tensor_view<?x128xf32, strides=[128,1]> -> tile<i64>
    %pv = make_partition_view %tv : partition_view<tile=(8x16), padding_value = zero, tensor_view<?x128xf32, strides=[128,1]>>
    %qv = make_partition_view %st : partition_view<tile=(8x8), tensor_view<32x32xf32, strides=[32,1]>, dim_map=[1, 0]>
    %sv = make_strided_view %st : strided_view<tile=(8x8), traversal_strides=[4,4], tensor_view<32x32xf32, strides=[32,1]>>
    %gv = make_gather_scatter_view %st : gather_scatter_view<tile=(8x8), tensor_view<32x32xf32, strides=[32,1]>, sparse_dim=0>
    %is:2 = get_index_space_shape %pv : partition_view<tile=(8x16), padding_value = zero, tensor_view<?x128xf32, strides=[128,1]>> -> tile<i32>
    %t0 = make_token : token
    %t, %tk = load_view_tko weak %pv[%bx, %by] token = %t0 optimization_hints = <sm_100 = {latency = 3, allow_tma = true}> : partition_view<tile=(8x16), padding_value = zero, tensor_view<?x128xf32, strides=[128,1]>>, tile<i32> -> tile<8x16xf32>, token
    %tk2 = store_view_tko relaxed device %t, %pv[%bx, %by] token = %tk : tile<8x16xf32>, partition_view<tile=(8x16), padding_value = zero, tensor_view<?x128xf32, strides=[128,1]>>, tile<i32> -> token
    %gt, %gk = load_view_tko weak %gv[%rows, %bx] : gather_scatter_view<tile=(8x8), tensor_view<32x32xf32, strides=[32,1]>, sparse_dim=0>, tile<8xi32>, tile<i32> -> tile<8x8xf32>, token
    %q, %qk = load_view_tko acquire sys %sv[%bx, %by] : strided_view<tile=(8x8), traversal_strides=[4,4], tensor_view<32x32xf32, strides=[32,1]>>, tile<i32> -> tile<8x8xf32>, token
    %lv, %lk = load_ptr_tko relaxed device %ptrs, %mask, %v8 token=%tk2 : tile<8xptr<f32>>, tile<8xi1>, tile<8xf32> -> tile<8xf32>, token
    %sk = store_ptr_tko weak %ptrs, %lv, %mask optimization_hints = <sm_90 = {latency = 2}> : tile<8xptr<f32>>, tile<8xf32>, tile<8xi1> -> token
    %jk = join_tokens %lk, %sk, %qk : token
    %old, %ck = atomic_cas_tko acq_rel device %iptrs, %iv, %iv, %mask token=%jk : tile<8xptr<i32>>, tile<8xi32>, tile<8xi1> -> tile<8xi32>, token
    %rmw, %rk = atomic_rmw_tko relaxed tl_blk %ptrs, addf, %v8 : tile<8xptr<f32>>, tile<8xf32> -> tile<8xf32>, token
    %red = atomic_red_view_tko relaxed device %qv[%bx, %by], add, %q token = %rk : tile<8x8xf32>, partition_view<tile=(8x8), tensor_view<32x32xf32, strides=[32,1]>, dim_map=[1, 0]>, tile<i32> -> token
    %pt = print_tko "x=%f %d\n", %v8, %bx token=%red : tile<8xf32>, tile<i32> -> token
    %p2 = print_tko "hello" -> token
    %gl = gdc_launch_dependents_tko token=%pt -> token
    %gw = gdc_wait_tko -> token
    %as = assume div_by<16>, %base : tile<ptr<f32>>
    %as2 = assume bounded<0, ?>, %n : tile<i64>
    %as3 = assume #cuda_tile.same_elements<[1, 4]>, %mask : tile<8xi1>
    %off = offset %ptrs, %iv : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    return
  }
  testing$func @control(%c: tile<i1>, %lb: tile<i32>, %ub: tile<i32>, %x: tile<f32>) -> (tile<f32>, tile<i32>) {
    %r = if %c -> (tile<f32>) {
      yield %x : tile<f32>
    } else {
      %y = negf %x : tile<f32>
      yield %y : tile<f32>
    }
    if %c {
      %z = negf %x : tile<f32>
    }
    %f = for unsigned %iv in (%lb to %ub, step %lb) : tile<i32> iter_values(%acc = %x) -> (tile<f32>) {
      %s = addf %acc, %acc : tile<f32>
      continue %s : tile<f32>
    }
    for %iv in (%lb to %ub, step %lb) : tile<i32> {
    }
    %w:2 = loop iter_values(%k = %lb) : tile<i32> -> tile<f32>, tile<i32> {
      if %c {
        break %x, %k : tile<f32>, tile<i32>
      }
      continue %k : tile<i32>
    }
    return %w#0, %w#1 : tile<f32>, tile<i32>
  }
}
