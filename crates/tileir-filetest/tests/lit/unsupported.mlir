// UNSUPPORTED: fake-tool && !nvidia-gpu
// RUN: false
