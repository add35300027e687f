// Input of writer_locations_invalid.mlir (not a test by itself: Inputs/ is skipped).
// expected-error @below {{only ops from the 'cuda_tile' dialect are allowed}}
cuda_tile.module @kernels {
  entry @k() {
    // expected-remark @below {{invalid op}}
    "other.op"() : () -> ()
    return
  }
}
