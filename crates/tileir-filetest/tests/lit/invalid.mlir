// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'x = bad' op is invalid}}
// expected-note @below {{see current operation}}
x = bad

// -----

y = fine
z = bad // expected-error {{op is invalid}}
// expected-note @-1 {{see current}}

// -----

// expected-error @+2 {{invalid}}
// expected-note @+1 {{see}}
w = bad
// expected-warning @below {{may be slow}}
v = warn

// -----

// expected-error-re @unknown {{lost {{[a-z]+}}}}
u = lost
