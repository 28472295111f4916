#include "apps/system_command.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <torch/version.h>

#include <string>
#include <thread>

#include "platform/blas_kernel.h"
#include "platform/blas_library.h"
#include "platform/cpu_features.h"
#include "core/error.h"
#include "platform/sgemm_rate.h"
#include "experiments/engine/provenance.h"

namespace embpriv {
namespace {

// The largest --gemm-size: 4 products of 2 * 4096^3 = 1.4e11 flops each.
constexpr int kMaxGemmSize = 4096;

}  // namespace

SystemCommand::SystemCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "system", "Show the machine and build as a bug report needs them: versions, BLAS and its "
                "kernel, threads, CPU, the measured SGEMM rate, CUDA devices");
  command_->add_option("--gemm-size", gemm_size_,
                       "n of the timed n^3 SGEMM, at most " + std::to_string(kMaxGemmSize) +
                           " (0: do not time it); 4 products of 2 n^3 flops: 4096 takes about 3-8 s at "
                           "80-190 GFLOP/s, 20 s with a generic BLAS kernel")
      ->capture_default_str();
}

int SystemCommand::run(std::ostream& out) const {
  // 16384 took 4 x 8.8 TFLOP, over 3 minutes at this machine's 100-190 GFLOP/s (and 3 GB): a
  // rate is as well measured at 4096.
  EMBPRIV_CHECK(gemm_size_ >= 0 && gemm_size_ <= kMaxGemmSize,
                "--gemm-size must be in [0, " << kMaxGemmSize << "] (4096^3 takes seconds; 16384^3 took minutes), got "
                                              << gemm_size_);
  const BlasLibrary blas = bound_blas();
  const CpuFeatures& cpu = this_cpu();
  out << "embpriv:   " << embpriv_version() << " (commit " << git_commit() << ")\n"
      << "LibTorch:  " << TORCH_VERSION << (at::hasCUDA() ? " (CUDA)" : " (CPU only)") << "\n"
      << "BLAS:      " << (blas.config.empty() ? blas.vendor : blas.config) << "\n"
      << "  library: " << (blas.path.empty() ? "(no sgemm_ bound)" : blas.path) << "\n";
  if (!blas.kernel.empty()) out << "  kernel:  " << blas.kernel << ", " << blas_kernel_origin() << "\n";
  if (const std::string warning = reference_blas_warning(blas); !warning.empty()) out << "  WARNING: " << warning << "\n";
  out << "threads:   LibTorch " << at::get_num_threads();
  if (blas.threads > 0) out << ", OpenBLAS " << blas.threads;
  out << ", CPUs " << std::thread::hardware_concurrency() << "\n"
      << "CPU:       " << (cpu.model_name.empty() ? "unknown" : cpu.model_name);
  if (cpu.family >= 0) out << " (" << cpu.vendor << " family " << cpu.family << " model " << cpu.model << ")";
  out << "\n  flags:   " << cpu.vector_flags() << "\n";
  if (gemm_size_ > 0) {
    const double gflops = measure_sgemm_gflops(gemm_size_);
    out << "SGEMM:     " << gemm_size_ << "^3 float at::mm, best of 3: " << static_cast<int>(gflops + 0.5)
        << " GFLOP/s (LibTorch threads: " << at::get_num_threads() << ")\n";
  }
  out << "CUDA:      " << (at::hasCUDA() ? std::to_string(at::getNumGPUs()) + " device(s)" : "none seen") << "\n";
  return 0;
}

}  // namespace embpriv
