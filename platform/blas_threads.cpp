#include "platform/blas_threads.h"

#include <ATen/Context.h>

#include "platform/blas_library.h"

namespace embpriv {

SingleThreadedBlas::SingleThreadedBlas() {
  // A LibTorch with its own MKL (PyTorch's builds) never calls an OpenBLAS that may also be in
  // the process (numpy's, say): setting that one's threads would change nothing LibTorch runs,
  // so the guard leaves every BLAS alone and says the GEMMs keep their own threading.
  if (at::hasMKL()) return;
  const auto get = bound_function<int (*)()>("openblas_get_num_threads");
  const auto set = bound_function<void (*)(int)>("openblas_set_num_threads");
  if (get != nullptr && set != nullptr) {
    const int threads = get();
    if (threads != 1) {
      set(1);
      restore_ = threads;
    }
    in_caller_thread_ = true;
    return;
  }
  in_caller_thread_ = bound_blas().is_reference();
}

SingleThreadedBlas::~SingleThreadedBlas() {
  if (restore_ > 0) bound_function<void (*)(int)>("openblas_set_num_threads")(restore_);
}

}  // namespace embpriv
