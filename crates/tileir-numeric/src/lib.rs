//! tileir-numeric: bit-exact software number formats for CUDA Tile IR element types.
