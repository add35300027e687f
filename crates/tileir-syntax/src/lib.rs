//! tileir-syntax
