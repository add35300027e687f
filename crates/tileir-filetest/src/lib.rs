//! tileir-filetest: run IR files with RUN/CHECK lines and expected-diagnostic annotations.
