// `embpriv system`, and the BLAS kernel the binary runs with (platform/blas_kernel.h).
#include "tests/catch.h"

#include <cstdlib>

#include "platform/blas_kernel.h"
#include "platform/blas_library.h"
#include "platform/cpu_features.h"
#include "tests/test_binary.h"

namespace embpriv {
namespace {

using Catch::Matchers::Contains;

// The binary with no BLAS setting of the user's in its environment, then `variables`.
std::string clean_environment(const std::string& variables = "") {
  return "env -u OPENBLAS_CORETYPE -u EMBPRIV_BLAS_KERNEL -u EMBPRIV_BLAS_CHOSE -u EMBPRIV_BLAS_REJECTED " +
         variables + " ";
}

// The kernel line of `embpriv system`: "  kernel:  NAME, ORIGIN".
std::string kernel_line(const std::string& output) {
  const auto start = output.find("  kernel:  ");
  REQUIRE(start != std::string::npos);
  return output.substr(start + 11, output.find('\n', start) - start - 11);
}

TEST_CASE("embpriv system refuses a GEMM size that would take minutes, before any work", "[apps][engine]") {
  // 16384^3 did not finish in 120 s on the CI machine (4 products of 8.8 TFLOP at 100-190 GFLOP/s).
  const Outcome o = run_binary("system --gemm-size 16384", Capture::errors, clean_environment());
  CHECK(o.code == 2);
  CHECK_THAT(o.output, Contains("embpriv: error: --gemm-size must be in [0, 4096]"));
  CHECK_THAT(run_binary("system --help").output, Contains("at most 4096"));
}

TEST_CASE("embpriv system reports versions, BLAS, kernel, threads, CPU, SGEMM rate and CUDA", "[apps][blas]") {
  const Outcome o = run_binary("system --gemm-size 256", Capture::everything, clean_environment());
  REQUIRE(o.code == 0);
  for (const char* field : {"embpriv:", "LibTorch:", "BLAS:", "library:", "threads:", "CPU:", "flags:", "SGEMM:", "CUDA:"}) {
    CHECK_THAT(o.output, Contains(field));
  }
  CHECK_THAT(o.output, Contains("256^3 float at::mm"));
  CHECK_THAT(o.output, Contains("GFLOP/s"));
  // Without any setting, the kernel is never a pre-AVX2 one on a CPU that runs a faster one.
  const std::string line = kernel_line(o.output);
  const std::string kernel = line.substr(0, line.find(','));
  CHECK(better_kernel(kernel, this_cpu()).empty());
}

TEST_CASE("a kernel the user set is never replaced", "[apps][blas]") {
  const Outcome o = run_binary("system --gemm-size 0", Capture::everything, clean_environment("OPENBLAS_CORETYPE=Prescott"));
  REQUIRE(o.code == 0);
  CHECK(kernel_line(o.output) == "Prescott, OPENBLAS_CORETYPE set by the user");
}

TEST_CASE("embpriv restarts itself with the kernel asked for, and checks it first", "[apps][blas]") {
  if (!this_cpu().has_avx2_fma()) {
    WARN("skipped: this CPU has no AVX2+FMA, so the Haswell kernel cannot run");
    return;
  }
  const Outcome o = run_binary("system --gemm-size 0", Capture::everything, clean_environment("EMBPRIV_BLAS_KERNEL=Haswell"));
  REQUIRE(o.code == 0);
  const std::string line = kernel_line(o.output);
  CHECK_THAT(line, Contains("Haswell, EMBPRIV_BLAS_KERNEL set by the user (OpenBLAS chose "));
}

TEST_CASE("a kernel that fails its check is dropped with a warning, and the run goes on", "[apps][blas]") {
  // OpenBLAS does not know the name, so it keeps its own choice: the check sees the mismatch.
  const Outcome o = run_binary("system --gemm-size 0", Capture::everything, clean_environment("EMBPRIV_BLAS_KERNEL=NoSuchKernel"));
  REQUIRE(o.code == 0);
  CHECK_THAT(o.output, Contains("embpriv: warning: the BLAS kernel NoSuchKernel: OpenBLAS runs"));
  CHECK_THAT(kernel_line(o.output), Contains("OpenBLAS's own choice (embpriv tried NoSuchKernel"));
}

TEST_CASE("EMBPRIV_BLAS_KERNEL=off keeps OpenBLAS's own choice", "[apps][blas]") {
  const Outcome o = run_binary("system --gemm-size 0", Capture::everything, clean_environment("EMBPRIV_BLAS_KERNEL=off"));
  REQUIRE(o.code == 0);
  const std::string line = kernel_line(o.output);
  CHECK_THAT(line, Catch::Matchers::EndsWith(", OpenBLAS's own choice"));
  CHECK(line.size() > std::string(", OpenBLAS's own choice").size());  // a kernel is named
  // This process runs OpenBLAS's own choice too unless the environment names a kernel (some
  // machines set OPENBLAS_CORETYPE for every process): only then can the names be compared.
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr && std::getenv("EMBPRIV_BLAS_KERNEL") == nullptr) {
    CHECK(line == bound_blas().kernel + ", OpenBLAS's own choice");
  }
}

}  // namespace
}  // namespace embpriv
