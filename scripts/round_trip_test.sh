#!/bin/sh
# Round trip used by filetests: text -> bytecode -> text must print exactly what
# tileir-opt prints for the original (blank lines ignored).
# usage: round_trip_test.sh INPUT.mlir TMP_PREFIX [extra printing flags]
set -e
in="$1"; tmp="$2"; shift 2
tileir-translate -mlir-to-cudatilebc -no-implicit-module "$in" -o "$tmp.out.tilebc"
tileir-translate -cudatilebc-to-mlir "$tmp.out.tilebc" -o "$tmp.roundtrip.mlir" "$@"
tileir-opt "$in" -no-implicit-module -o "$tmp.ref.mlir" "$@"
diff -B "$tmp.ref.mlir" "$tmp.roundtrip.mlir"
