// The `embpriv` command line: parse, dispatch, report (apps/cli.h).
#include "apps/cli.h"
#include "platform/allocator_settings.h"
#include "platform/blas_kernel.h"

int main(int argc, char** argv) {
  embpriv::select_blas_kernel(argv);  // may start embpriv again with a faster BLAS kernel
  embpriv::keep_freed_memory();
  return embpriv::run_cli(argc, argv);
}
