#include "core/blas_threads.h"

#include "core/blas_library.h"

namespace embpriv {

SingleThreadedBlas::SingleThreadedBlas() {
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
