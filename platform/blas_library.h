#pragma once
// Which BLAS LibTorch really calls. Debian's LibTorch calls the Fortran `sgemm_` of whatever
// libblas.so.3 the system selects (OpenBLAS, the netlib reference BLAS, BLIS, MKL): the symbol
// is found the way the dynamic linker bound it, and the library is asked what it is.
#include <string>

namespace embpriv {

struct BlasLibrary {
  std::string vendor;   // "OpenBLAS", "MKL", "BLIS", "reference BLAS" or "unknown"
  std::string path;     // the file that defines the sgemm_ the process calls
  std::string config;   // the library's own description (openblas_get_config()), or ""
  std::string kernel;   // OpenBLAS's kernel (openblas_get_corename()), or ""
  int threads = -1;     // OpenBLAS's thread count, or -1

  bool is_openblas() const { return vendor == "OpenBLAS"; }
  bool is_reference() const { return vendor == "reference BLAS"; }
  // "OpenBLAS 0.3.21 ... (kernel Cooperlake)" for a log line.
  std::string describe() const;
};

// The BLAS of this process, asked afresh (the kernel cannot change, the threads can).
BlasLibrary bound_blas();

// A symbol of the process as the dynamic linker bound it (dlsym(RTLD_DEFAULT)), or nullptr:
// how embpriv reaches the BLAS library's own functions (openblas_get_corename, ...).
void* bound_symbol(const char* name);
template <class Fn>
Fn bound_function(const char* name) {
  return reinterpret_cast<Fn>(bound_symbol(name));
}

// C = A B through the process's sgemm_ on seeded data of shape (m x k)(k x n), against a
// double-precision product: the largest |C - C_ref| / (sum_l |a_il| |b_lj|), which float
// rounding keeps below ~k * 2^-24. Throws embpriv::Error when no sgemm_ is bound.
double sgemm_relative_error(int m, int n, int k);

// The warning for the netlib reference BLAS (~50x slower GEMM), with the package to install;
// "" for any other BLAS.
std::string reference_blas_warning(const BlasLibrary& blas);

}  // namespace embpriv
