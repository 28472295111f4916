// Device choice: auto falls back to the CPU; asking for CUDA without a GPU is a clear error.
#include <ATen/Context.h>

#include "core/device.h"
#include "core/error.h"
#include "tests/catch.h"

using namespace embpriv;

TEST_CASE("device names resolve, and bad ones are rejected", "[core][device]") {
  CHECK(select_device("cpu") == c10::Device(c10::kCPU));
  CHECK(select_device("auto") ==
        (at::hasCUDA() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU)));
  if (!at::hasCUDA()) {
    CHECK_THROWS_WITH(select_device("cuda"), Catch::Contains("sees no CUDA GPU"));
  }
  CHECK_THROWS_WITH(select_device("tpu"), Catch::Contains("device must be one of auto, cpu"));
}
