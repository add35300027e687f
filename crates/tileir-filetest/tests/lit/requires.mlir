// REQUIRES: nvidia-gpu
// RUN: false
