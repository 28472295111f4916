// Which BLAS LibTorch's matrix products run on (platform/blas_library.h), where LibTorch brings its own
// MKL (PyTorch's wheels, conda) and where it calls the system's libblas.so.3 (Debian's).
#include <ATen/Context.h>

#include "tests/catch.h"

#include "platform/blas_library.h"
#include "platform/blas_threads.h"

using namespace embpriv;

TEST_CASE("a LibTorch with its own MKL is named as the BLAS, and no OpenBLAS kernel is chosen for it", "[core][blas]") {
  const BlasLibrary blas = bound_blas();
  INFO(blas.describe());
  if (at::hasMKL()) {
    CHECK(blas.vendor == "MKL");
    CHECK(blas.config.find("(inside LibTorch)") != std::string::npos);
    CHECK(blas.path.find("libtorch") != std::string::npos);
    CHECK_FALSE(blas.is_openblas());  // select_blas_kernel() then restarts nothing
    // No OpenBLAS thread count is touched for it: the GEMMs keep MKL's own threading.
    CHECK_FALSE(SingleThreadedBlas().in_caller_thread());
  } else {
    // Debian's LibTorch: the library that defines the sgemm_ the process calls.
    CHECK(blas.vendor != "MKL");
    CHECK(!blas.path.empty());
    CHECK(blas.path.find("libtorch") == std::string::npos);
  }
}
