// Invalid control flow: if/for/loop results and terminators, break/continue/return placement.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// an if with results needs an else branch.
cuda_tile.module @kernels {
  testing$func @f(%c: tile<i1>, %x: tile<f32>) {
    // expected-error @below {{'cuda_tile.if' op has non-empty return type, must define else branch}}
    %r = if %c -> (tile<f32>) {
      yield %x : tile<f32>
    }
    return
  }
}

// -----

// both branches must yield the result types.
cuda_tile.module @kernels {
  testing$func @f(%c: tile<i1>, %x: tile<f32>, %y: tile<i32>) {
    // expected-error @below {{'cuda_tile.if' op type does not match yield type, else branch yields '!cuda_tile.tile<i32>' but op result type is '!cuda_tile.tile<f32>'}}
    %r = if %c -> (tile<f32>) {
      yield %x : tile<f32>
    } else {
      yield %y : tile<i32>
    }
    return
  }
}

// -----

// the if condition is a scalar i1 tile.
cuda_tile.module @kernels {
  // expected-note @below {{prior use here}}
  testing$func @f(%c: tile<4xi1>) {
    // expected-error @below {{use of value '%c' expects different type than prior uses: '!cuda_tile.tile<i1>' vs '!cuda_tile.tile<4xi1>'}}
    if %c {
    }
    return
  }
}

// -----

// an if without results cannot yield values.
cuda_tile.module @kernels {
  testing$func @f(%c: tile<i1>, %x: tile<f32>) {
    // expected-error @below {{'cuda_tile.if' op does not return a value, but then branch yields '!cuda_tile.tile<f32>'}}
    if %c {
      yield %x : tile<f32>
    }
    return
  }
}

// -----

// break cannot exit a for loop.
cuda_tile.module @kernels {
  testing$func @f(%n: tile<i32>) {
    %lb = constant <i32: 0> : tile<i32>
    for %iv in (%lb to %n, step %lb) : tile<i32> {
      // expected-error @below {{'cuda_tile.break' op expects parent op to be one of 'cuda_tile.if, cuda_tile.loop'}}
      break
    }
    return
  }
}

// -----

// continue must carry the for result types.
cuda_tile.module @kernels {
  testing$func @f(%n: tile<i32>, %x: tile<f32>) {
    %lb = constant <i32: 0> : tile<i32>
    %r = for %iv in (%lb to %n, step %lb) : tile<i32> iter_values(%a = %x) -> (tile<f32>) {
      // expected-error @below {{`for` is missing a valid terminator. `continue` op should have operand types that match the parent loop return types: ('!cuda_tile.tile<f32>'), but found: ('!cuda_tile.tile<i32>')}}
      continue %iv : tile<i32>
    }
    return
  }
}

// -----

// lower bound, upper bound and step share one type.
cuda_tile.module @kernels {
  testing$func @f(%n: tile<i32>) {
    %lb = constant <i64: 0> : tile<i64>
    // expected-error @below {{'cuda_tile.for' op failed to verify that all of {lowerBound, upperBound, step} have same type}}
    "cuda_tile.for"(%lb, %n, %n) ({
    ^bb0(%iv: !cuda_tile.tile<i64>):
      "cuda_tile.continue"() : () -> ()
    }) : (!cuda_tile.tile<i64>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> ()
    return
  }
}

// -----

// for bounds are integer scalars.
cuda_tile.module @kernels {
  testing$func @f(%n: tile<f32>) {
    // expected-error @below {{'cuda_tile.for' op operand #0 must be 0D tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f32>'}}
    for %iv in (%n to %n, step %n) : tile<f32> {
    }
    return
  }
}

// -----

// return is not allowed inside loops (break out first).
cuda_tile.module @kernels {
  testing$func @f() {
    loop {
      // expected-error @below {{'cuda_tile.return' op must be used within a cuda_tile.testing$func, cuda_tile.entry, or cuda_tile.if operation}}
      return
    }
    return
  }
}

// -----

// break must carry the loop result types.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    %r = loop iter_values(%v = %x) : tile<i32> -> tile<f32> {
      // expected-error @below {{'cuda_tile.break' op operand types must correspond to the parent loop result types: ('!cuda_tile.tile<i32>') vs ('!cuda_tile.tile<f32>')}}
      break %v : tile<i32>
    }
    return
  }
}

// -----

// loop-carried values cannot be views.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [8], strides = [1] : tensor_view<8xf32, strides=[1]>
    // expected-error @below {{'cuda_tile.loop' op loop-carried value 0 is a tensor_view, which is not supported}}
    %r = loop iter_values(%v = %tv) : tensor_view<8xf32, strides=[1]> -> tile<i32> {
      %z = constant <i32: 0> : tile<i32>
      break %z : tile<i32>
    }
    return
  }
}

// -----

// yield cannot terminate a function.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) -> tile<f32> {
    // expected-error @below {{'cuda_tile.yield' op expects parent op to be one of 'cuda_tile.if, cuda_tile.reduce, cuda_tile.scan'}}
    yield %x : tile<f32>
  }
}

// -----

// continue needs an enclosing for/loop.
cuda_tile.module @kernels {
  entry @k() {
    // expected-error @below {{'cuda_tile.continue' op expects parent op to be one of 'cuda_tile.for, cuda_tile.if, cuda_tile.loop'}}
    continue
  }
}

// -----

// break needs an enclosing loop (an if alone is not enough).
cuda_tile.module @kernels {
  // expected-note @below {{see unexpected ancestor operation}}
  entry @k(%c: tile<i1>) {
    if %c {
      // expected-error @below {{'cuda_tile.break' op can only be nested within a ancestor chain of 'cuda_tile.loop', 'cuda_tile.if' operations}}
      break
    }
    return
  }
}

// -----

// the if condition is a scalar i1 tile (generic form: the custom form implies tile<i1>).
cuda_tile.module @kernels {
  testing$func @f(%c: tile<4xi1>) {
    // expected-error @below {{'cuda_tile.if' op operand #0 must be 0D tile of i1 values, but got '!cuda_tile.tile<4xi1>'}}
    "cuda_tile.if"(%c) ({
      "cuda_tile.yield"() : () -> ()
    }, {
    }) : (!cuda_tile.tile<4xi1>) -> ()
    return
  }
}

// -----

// entry functions return nothing.
cuda_tile.module @kernels {
  entry @k(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.return' op has 1 operands, but enclosing function (@k) returns 0}}
    return %x : tile<f32>
  }
}

// -----

// A loop with iter_values that ends without continue: the implicit continue
// sits at the loop, so the error does too.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>, %c: tile<i1>) {
    // expected-error @below {{`loop` is missing a valid terminator}}
    %r = loop iter_values(%v = %x) : tile<i32> -> tile<i32> {
      if %c {
        break %v : tile<i32>
      }
    }
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{found different number of iter_values and types}}
    %r = loop iter_values(%a = %x, %b = %x) : tile<i32> -> tile<i32> {
      break %a : tile<i32>
    }
    return
  }
}

// -----

// An empty body gets its implicit return at the function, where the error is.
cuda_tile.module @kernels {
  // expected-error @below {{'cuda_tile.return' op has 0 operands, but enclosing function (@f) returns 1}}
  testing$func @f(%x: tile<i32>) -> tile<i32> {}
}
