#include "platform/blas_library.h"

#include <ATen/Context.h>
#include <ATen/Version.h>
#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "core/error.h"

namespace embpriv {
namespace {

// The Fortran BLAS interface every libblas.so.3 exports (all arguments by address).
using SgemmFn = void (*)(const char* transa, const char* transb, const int* m, const int* n,
                         const int* k, const float* alpha, const float* a, const int* lda,
                         const float* b, const int* ldb, const float* beta, float* c, const int* ldc);

std::string file_of(void* symbol) {
  Dl_info where{};
  if (symbol == nullptr || dladdr(symbol, &where) == 0 || where.dli_fname == nullptr) return "";
  char resolved[PATH_MAX];
  return realpath(where.dli_fname, resolved) != nullptr ? std::string(resolved) : where.dli_fname;
}

// Numbers in [-1, 1) from a fixed 64-bit LCG (Knuth's MMIX constants): the check needs
// reproducible data, not statistical quality.
std::vector<float> seeded_values(std::size_t count, std::uint64_t seed) {
  std::vector<float> values(count);
  std::uint64_t state = seed;
  for (float& v : values) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    v = static_cast<float>(static_cast<double>(state >> 11) / 4503599627370496.0 - 1.0);
  }
  return values;
}

}  // namespace

void* bound_symbol(const char* name) { return dlsym(RTLD_DEFAULT, name); }

std::string BlasLibrary::describe() const {
  std::string text = config.empty() ? vendor : config;
  if (!kernel.empty()) text += " (kernel " + kernel + ")";
  if (!path.empty()) text += " from " + path;
  return text;
}

// "Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build ..." from at::show_config().
static std::string mkl_description() {
  std::istringstream config(at::show_config());
  for (std::string line; std::getline(config, line);) {
    if (line.find("Math Kernel Library") == std::string::npos) continue;
    const std::size_t start = line.find_first_not_of(" -");
    return line.substr(start == std::string::npos ? 0 : start);
  }
  return "MKL";
}

BlasLibrary bound_blas() {
  BlasLibrary blas;
  // PyTorch's own builds (pip wheels, conda) link MKL into libtorch_cpu.so with its symbols
  // hidden: LibTorch's matrix products run on it whatever sgemm_ the process exports (numpy's
  // OpenBLAS, say), so that is the BLAS to name, and OpenBLAS's kernel choice
  // (platform/blas_kernel.h) is left alone. Debian's LibTorch has no MKL and calls libblas.so.3.
  if (at::hasMKL()) {
    blas.vendor = "MKL";
    blas.config = mkl_description() + " (inside LibTorch)";
    blas.path = file_of(reinterpret_cast<void*>(&at::show_config));
    return blas;
  }
  blas.path = file_of(bound_symbol("sgemm_"));
  if (auto corename = bound_function<char* (*)()>("openblas_get_corename")) {
    blas.vendor = "OpenBLAS";
    blas.kernel = corename();
    if (auto config = bound_function<char* (*)()>("openblas_get_config")) blas.config = config();
    if (auto threads = bound_function<int (*)()>("openblas_get_num_threads")) blas.threads = threads();
  } else if (bound_symbol("mkl_get_version_string") || bound_symbol("MKL_Get_Version_String")) {
    blas.vendor = "MKL";
  } else if (auto version = bound_function<const char* (*)()>("bli_info_get_version_str")) {
    blas.vendor = "BLIS";
    blas.config = std::string("BLIS ") + version();
  } else if (blas.path.find("/blas/libblas") != std::string::npos ||
             blas.path.find("libblas.so") != std::string::npos) {
    // Debian's netlib BLAS lives in .../blas/libblas.so.3 and exports no version function.
    blas.vendor = "reference BLAS";
  } else {
    blas.vendor = "unknown";
  }
  return blas;
}

double sgemm_relative_error(int m, int n, int k) {
  const auto sgemm = bound_function<SgemmFn>("sgemm_");
  EMBPRIV_CHECK(sgemm != nullptr, "no BLAS sgemm_ is linked into this process");
  // Column-major, as Fortran: A is m x k, B is k x n, C is m x n.
  const std::vector<float> a = seeded_values(static_cast<std::size_t>(m) * k, 1);
  const std::vector<float> b = seeded_values(static_cast<std::size_t>(k) * n, 2);
  std::vector<float> c(static_cast<std::size_t>(m) * n, 0.0f);
  const float alpha = 1.0f, beta = 0.0f;
  sgemm("N", "N", &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta, c.data(), &m);
  double worst = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double exact = 0, scale = 0;
      for (int l = 0; l < k; ++l) {
        const double term = static_cast<double>(a[i + static_cast<std::size_t>(l) * m]) *
                            b[l + static_cast<std::size_t>(j) * k];
        exact += term;
        scale += std::fabs(term);
      }
      const double error = std::fabs(c[i + static_cast<std::size_t>(j) * m] - exact) / std::max(scale, 1e-30);
      if (!(error <= worst)) worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
  }
  return worst;
}

std::string reference_blas_warning(const BlasLibrary& blas) {
  if (!blas.is_reference()) return "";
  return "LibTorch runs on the netlib reference BLAS (" + blas.path +
         "): matrix products are ~50x slower than with OpenBLAS. Install it: "
         "sudo apt-get install libopenblas0-pthread (Debian selects it for libblas.so.3)";
}

}  // namespace embpriv
