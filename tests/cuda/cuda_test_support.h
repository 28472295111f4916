#pragma once
// What every [cuda] test file shares: the skip where no CUDA GPU is seen, and the device.
#include <ATen/Context.h>
#include <c10/core/Device.h>
#include <torch/version.h>

#include "tests/catch.h"

namespace embpriv {

// True (after one warning) where no CUDA GPU is seen: the test then checks nothing.
inline bool no_cuda() {
  if (at::hasCUDA()) return false;
  WARN("[cuda] skipped: no CUDA device (LibTorch " TORCH_VERSION ")");
  return true;
}

inline const c10::Device kGpu(c10::kCUDA, 0);

}  // namespace embpriv
