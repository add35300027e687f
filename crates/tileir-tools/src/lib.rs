//! tileir-tools
