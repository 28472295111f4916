#pragma once
// Runs OpenBLAS with a fast kernel when it fell back to a generic one (GUIDE.md, sec. 6).
//
// OpenBLAS built with DYNAMIC_ARCH picks its kernel from the CPUID when it is loaded; a release
// that does not know a newer CPU falls back to a generic SSE3 kernel ("Prescott"), 5-9x slower
// at SGEMM, on CPUs with AVX-512 or AVX2+FMA. OpenBLAS reads OPENBLAS_CORETYPE only while it is
// loaded, before main(), so the kernel can only change by starting the program again: at start,
// select_blas_kernel() re-executes embpriv (execv of /proc/self/exe, same arguments) with
// OPENBLAS_CORETYPE set. The new process checks the kernel before any work (OpenBLAS accepted
// the name; a GEMM matches a double-precision product; no illegal instruction) and otherwise
// starts once more without it, saying why. A re-exec rather than a launcher script: the one
// binary stays the one thing users run. The cost: a second start of the binary (loading
// LibTorch again) and a check of a few milliseconds, only on a machine where OpenBLAS fell back.
//
// The user decides first: an OPENBLAS_CORETYPE already set is never replaced, and
// EMBPRIV_BLAS_KERNEL=off keeps OpenBLAS's own choice, EMBPRIV_BLAS_KERNEL=<name> asks for that
// kernel (checked the same way); the default is auto.
#include <string>

#include "platform/cpu_features.h"

namespace embpriv {

// OpenBLAS's x86 kernels older than AVX2 (its generic fallbacks among them).
bool is_pre_avx2_kernel(const std::string& kernel);

// The kernel to ask for instead of `current`, or "" to keep it: only when `current` is a
// pre-AVX2 kernel on a CPU with AVX-512 (SkylakeX) or AVX2+FMA (Haswell).
std::string better_kernel(const std::string& current, const CpuFeatures& cpu);

// Called first in main(): may replace the process (see above). Does nothing when the BLAS is
// not OpenBLAS.
void select_blas_kernel(char** argv);

// How the running kernel came to be, for `embpriv system`, the log and the results file:
// "OpenBLAS's own choice", "OPENBLAS_CORETYPE set by the user", "chosen by embpriv (OpenBLAS
// chose Prescott on a CPU with AVX-512)", ...
std::string blas_kernel_origin();

}  // namespace embpriv
