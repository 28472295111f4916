#include "platform/blas_kernel.h"

#include <setjmp.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <set>

#include "platform/blas_library.h"
#include "core/log.h"

namespace embpriv {
namespace {

// Set by embpriv for the process it starts again (never by users):
constexpr const char* kChoseVariable = "EMBPRIV_BLAS_CHOSE";        // "<old kernel>:<new kernel>"
constexpr const char* kRejectedVariable = "EMBPRIV_BLAS_REJECTED";  // "<kernel>: <why>"
// Set by users: auto (default) | off | a kernel name.
constexpr const char* kModeVariable = "EMBPRIV_BLAS_KERNEL";
constexpr const char* kCoretypeVariable = "OPENBLAS_CORETYPE";

std::string& origin() {
  static std::string text = "OpenBLAS's own choice";
  return text;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

void restart(char** argv) {
  execv("/proc/self/exe", argv);
  // Still here: the restart failed; go on with the kernel loaded.
  warn(std::string("could not restart embpriv to change the BLAS kernel: ") + std::strerror(errno));
  unsetenv(kCoretypeVariable);
  unsetenv(kChoseVariable);
}

sigjmp_buf check_jump;
void on_fault(int signal) { siglongjmp(check_jump, signal); }

// Runs the kernel check of the restarted process: "" when the kernel is usable, else why not.
std::string kernel_problem(const std::string& wanted) {
  const BlasLibrary blas = bound_blas();
  if (blas.kernel != wanted) return "OpenBLAS runs '" + blas.kernel + "' instead (it does not know '" + wanted + "')";
  struct sigaction fault {}, old_ill {}, old_segv {}, old_bus {};
  fault.sa_handler = on_fault;
  sigemptyset(&fault.sa_mask);
  sigaction(SIGILL, &fault, &old_ill);
  sigaction(SIGSEGV, &fault, &old_segv);
  sigaction(SIGBUS, &fault, &old_bus);
  std::string problem;
  if (const int signal = sigsetjmp(check_jump, 1); signal != 0) {
    problem = std::string("its test GEMM died of ") + strsignal(signal);
  } else {
    // 131 x 97 x 160: partial tiles on every side; float rounding keeps the error ~1e-7.
    const double error = sgemm_relative_error(131, 97, 160);
    if (!(error < 1e-5)) problem = "its test GEMM is wrong (relative error " + std::to_string(error) + ")";
  }
  sigaction(SIGILL, &old_ill, nullptr);
  sigaction(SIGSEGV, &old_segv, nullptr);
  sigaction(SIGBUS, &old_bus, nullptr);
  return problem;
}

std::string cpu_summary(const CpuFeatures& cpu) {
  return cpu.has_avx512() ? "a CPU with AVX-512" : cpu.has_avx2_fma() ? "a CPU with AVX2+FMA" : "this CPU";
}

}  // namespace

bool is_pre_avx2_kernel(const std::string& kernel) {
  // OpenBLAS's DYNAMIC_ARCH x86-64 kernels that use neither AVX2 nor AVX-512 (driver/others/dynamic.c).
  static const std::set<std::string> kernels = {
      "Katmai", "Coppermine", "Northwood", "Prescott", "Banias", "Core2", "Penryn", "Dunnington",
      "Nehalem", "Atom", "Sandybridge", "Athlon", "Opteron", "Opteron(SSE3)", "Barcelona", "Nano",
      "Bobcat", "Bulldozer", "Piledriver", "Steamroller", "Excavator", "Unknown"};
  return kernels.count(kernel) > 0;
}

std::string better_kernel(const std::string& current, const CpuFeatures& cpu) {
  if (!is_pre_avx2_kernel(current)) return "";
  if (cpu.has_avx512()) return "SkylakeX";
  if (cpu.has_avx2_fma()) return "Haswell";
  return "";
}

void select_blas_kernel(char** argv) {
  const std::string chose = environment(kChoseVariable);
  if (!chose.empty()) {  // the restarted process: check the kernel asked for
    const std::string before = chose.substr(0, chose.find(':'));
    const std::string wanted = chose.substr(chose.find(':') + 1);
    const std::string problem = kernel_problem(wanted);
    if (problem.empty()) {
      const std::string mode = environment(kModeVariable);
      origin() = (mode.empty() || mode == "auto")
                     ? "chosen by embpriv (OpenBLAS chose " + before + " on " + cpu_summary(this_cpu()) + ")"
                     : "EMBPRIV_BLAS_KERNEL set by the user (OpenBLAS chose " + before + ")";
      return;
    }
    setenv(kRejectedVariable, (wanted + ": " + problem).c_str(), 1);
    unsetenv(kCoretypeVariable);
    unsetenv(kChoseVariable);
    restart(argv);
    return;
  }
  const BlasLibrary blas = bound_blas();
  if (!blas.is_openblas()) return;
  if (const std::string rejected = environment(kRejectedVariable); !rejected.empty()) {
    origin() = "OpenBLAS's own choice (embpriv tried " + rejected + ")";
    warn("the BLAS kernel " + rejected + "; running OpenBLAS's own choice, " + blas.kernel);
    return;
  }
  if (!environment(kCoretypeVariable).empty()) {
    origin() = "OPENBLAS_CORETYPE set by the user";
    return;
  }
  const std::string mode = environment(kModeVariable);
  if (mode == "off") return;
  const std::string wanted = (mode.empty() || mode == "auto") ? better_kernel(blas.kernel, this_cpu()) : mode;
  if (wanted.empty() || wanted == blas.kernel) {
    if (!mode.empty() && mode != "auto") origin() = "EMBPRIV_BLAS_KERNEL set by the user";
    return;
  }
  setenv(kCoretypeVariable, wanted.c_str(), 1);
  setenv(kChoseVariable, (blas.kernel + ":" + wanted).c_str(), 1);
  restart(argv);
}

std::string blas_kernel_origin() { return origin(); }

}  // namespace embpriv
