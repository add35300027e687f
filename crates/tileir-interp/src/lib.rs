//! tileir-interp
