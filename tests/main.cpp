// The Catch2 main of embpriv's tests. Tests live beside the module they test, under tests/.
// Like the embpriv binary, the tests run on a fast BLAS kernel when OpenBLAS fell back to a
// generic one (platform/blas_kernel.h).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "platform/allocator_settings.h"
#include "platform/blas_kernel.h"

int main(int argc, char** argv) {
  embpriv::select_blas_kernel(argv);
  embpriv::keep_freed_memory();
  return Catch::Session().run(argc, argv);
}
