// Malformed bytecode given to tileir-translate -cudatilebc-to-mlir: the cases of
// NVIDIA's test/Bytecode/invalid/invalid_structure.mlir, rebuilt here from our own
// bytes (its fixtures are not copied). Each is an error, never a crash, and nothing
// is printed.
//
// Magic number.
// RUN: printf '\x7fTileIQ\x00\x0d\x01\x00\x00' > %t.magic.bc
// RUN: not tileir-translate -cudatilebc-to-mlir %t.magic.bc 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: invalid magic number
//
// Version 18.0.
// RUN: printf '\x7fTileIR\x00\x12\x00\x00\x00\x00' > %t.version.bc
// RUN: not tileir-translate -cudatilebc-to-mlir %t.version.bc 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: unsupported Tile version 18.0.0, this reader supports versions [13.1 - 13.4]
//
// Section id 127.
// RUN: printf '\x7fTileIR\x00\x0d\x01\x00\x00\x7f\x00\x00' > %t.section.bc
// RUN: not tileir-translate -cudatilebc-to-mlir %t.section.bc 2>&1 | FileCheck %s --check-prefix=SECTION_ID
// SECTION_ID: unknown section ID: 127
//
// Section lengths: one past the end of the file, and an end marker followed by
// more bytes.
// RUN: printf '\x7fTileIR\x00\x0d\x01\x00\x00\x81\x90\x4e\x04' > %t.length.bc
// RUN: not tileir-translate -cudatilebc-to-mlir %t.length.bc 2>&1 | FileCheck %s --check-prefix=SECTION_LENGTH
// SECTION_LENGTH: string section length 10000 exceeds
// RUN: printf '\x7fTileIR\x00\x0d\x01\x00\x00\x00\x00' > %t.end.bc
// RUN: not tileir-translate -cudatilebc-to-mlir %t.end.bc 2>&1 | FileCheck %s --check-prefix=END
// END: end section is not the last section
//
// A partition view whose dim_map holds INT32_MIN, a value the reader refuses in
// any dense i32 array (INT32_MIN and INT32_MAX are reserved). (The kernel: a
// partition_view<tile=(4x4), tensor_view<8x8xf32, strides=[8,1]>,
// dim_map=[1, 0]> made in an entry, with the first dim_map entry patched.)
// RUN: printf '\x7f\x54\x69\x6c\x65\x49\x52\x00\x0d\x01\x00\x00\x82\x18\x08\xcb\x01\x00\x02\x06\x00\x0b\x01\x01' > %t.dimmap.bc
// RUN: printf '\x0a\x01\x02\x01\x03\x02\x06\x42\x04\x00\x5c\x00\x00\xcb\xcb\xcb\x85\x57\x04\xcb\x05\xcb\xcb\xcb' >> %t.dimmap.bc
// RUN: printf '\x00\x00\x00\x00\x01\x00\x00\x00\x25\x00\x00\x00\x29\x00\x00\x00\x2a\x00\x00\x00\x07\x0e\x00\x02' >> %t.dimmap.bc
// RUN: printf '\x08\x00\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x02\x08\x00\x00\x00\x00\x00\x00' >> %t.dimmap.bc
// RUN: printf '\x00\x01\x00\x00\x00\x00\x00\x00\x00\x10\x01\x01\x00\x04\x0f\x02\x04\x00\x00\x00\x04\x00\x00\x00' >> %t.dimmap.bc
// RUN: printf '\x01\x02\x00\x00\x00\x80\x00\x00\x00\x00\x00\x81\x25\x04\xcb\xcb\x03\xcb\xcb\xcb\x00\x00\x00\x00' >> %t.dimmap.bc
// RUN: printf '\x01\x00\x00\x00\x07\x00\x00\x00\x6b\x73\x6d\x5f\x31\x30\x30\x6e\x75\x6d\x5f\x63\x74\x61\x5f\x69' >> %t.dimmap.bc
// RUN: printf '\x6e\x5f\x63\x67\x61\x00' >> %t.dimmap.bc
// RUN: not tileir-translate -cudatilebc-to-mlir %t.dimmap.bc 2>&1 | FileCheck %s --check-prefix=DENSE_MAP
// DENSE_MAP: array contains unsupported value -2147483648
// DENSE_MAP-NOT: cuda_tile.module
//
// A dictionary (the entry's optimization hints) whose key is the empty string:
// the same kernel with the string table's second offset moved so that "sm_100"
// becomes "".
// RUN: printf '\x7f\x54\x69\x6c\x65\x49\x52\x00\x0d\x01\x00\x00\x82\x18\x08\xcb\x01\x00\x02\x06\x00\x0b\x01\x01' > %t.emptykey.bc
// RUN: printf '\x0a\x01\x02\x01\x03\x02\x06\x42\x04\x00\x5c\x00\x00\xcb\xcb\xcb\x85\x57\x04\xcb\x05\xcb\xcb\xcb' >> %t.emptykey.bc
// RUN: printf '\x00\x00\x00\x00\x01\x00\x00\x00\x25\x00\x00\x00\x29\x00\x00\x00\x2a\x00\x00\x00\x07\x0e\x00\x02' >> %t.emptykey.bc
// RUN: printf '\x08\x00\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x02\x08\x00\x00\x00\x00\x00\x00' >> %t.emptykey.bc
// RUN: printf '\x00\x01\x00\x00\x00\x00\x00\x00\x00\x10\x01\x01\x00\x04\x0f\x02\x04\x00\x00\x00\x04\x00\x00\x00' >> %t.emptykey.bc
// RUN: printf '\x01\x02\x01\x00\x00\x00\x00\x00\x00\x00\x00\x81\x25\x04\xcb\xcb\x03\xcb\xcb\xcb\x00\x00\x00\x00' >> %t.emptykey.bc
// RUN: printf '\x01\x00\x00\x00\x01\x00\x00\x00\x6b\x73\x6d\x5f\x31\x30\x30\x6e\x75\x6d\x5f\x63\x74\x61\x5f\x69' >> %t.emptykey.bc
// RUN: printf '\x6e\x5f\x63\x67\x61\x00' >> %t.emptykey.bc
// RUN: not tileir-translate -cudatilebc-to-mlir %t.emptykey.bc 2>&1 | FileCheck %s --check-prefix=ATTR_NAME
// ATTR_NAME: invalid empty attribute name for DictionaryAttr element 0
