// The BLAS LibTorch calls, found the way the dynamic linker bound it.
#include "tests/catch.h"

#include "platform/blas_kernel.h"
#include "platform/blas_library.h"
#include "platform/cpu_features.h"

namespace embpriv {
namespace {

TEST_CASE("the BLAS of the process is OpenBLAS, as the set-up installs it", "[core][blas]") {
  const BlasLibrary blas = bound_blas();
  // scripts/setup.sh installs libopenblas0-pthread; Debian then selects it for libblas.so.3.
  CHECK(blas.vendor == "OpenBLAS");
  CHECK(blas.path.find("openblas") != std::string::npos);
  CHECK_FALSE(blas.kernel.empty());
  CHECK(blas.config.find(blas.kernel) != std::string::npos);
  CHECK(reference_blas_warning(blas).empty());
  BlasLibrary reference = blas;
  reference.vendor = "reference BLAS";
  CHECK(reference_blas_warning(reference).find("libopenblas0-pthread") != std::string::npos);
}

TEST_CASE("the process's sgemm_ matches a double-precision product to float rounding", "[core][blas]") {
  // k * 2^-24 bounds the relative rounding error of a length-k float dot product.
  for (const auto& [m, n, k] : {std::tuple{1, 1, 1}, std::tuple{131, 97, 160}, std::tuple{64, 300, 7}}) {
    const double error = sgemm_relative_error(m, n, k);
    CHECK(error >= 0);
    CHECK(error < k * 6e-8);
  }
}

}  // namespace
}  // namespace embpriv
