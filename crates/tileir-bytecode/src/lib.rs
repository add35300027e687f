//! tileir-bytecode
