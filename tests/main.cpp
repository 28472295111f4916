// The Catch2 main of embpriv's tests (Catch2 2.x or 3.x: tests/catch.h). Tests live beside the
// module they test, under tests/. Like the embpriv binary, the tests run on a fast BLAS kernel
// when OpenBLAS fell back to a generic one (platform/blas_kernel.h).
#if EMBPRIV_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "platform/allocator_settings.h"
#include "platform/blas_kernel.h"

int main(int argc, char** argv) {
  embpriv::select_blas_kernel(argv);
  embpriv::keep_freed_memory();
  return Catch::Session().run(argc, argv);
}
