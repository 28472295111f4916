#pragma once
// `embpriv system`: what a bug report (or a benchmark) needs to know about the machine and the
// build: embpriv's version and commit, LibTorch's, the BLAS LibTorch calls and its kernel (and
// who chose it), threads, the CPU and its vector flags, the measured SGEMM rate, CUDA devices.
#include <CLI/CLI.hpp>

#include <ostream>

namespace embpriv {

class SystemCommand {
 public:
  explicit SystemCommand(CLI::App& app);
  CLI::App* command() const { return command_; }
  int run(std::ostream& out) const;

 private:
  CLI::App* command_ = nullptr;
  int gemm_size_ = 2048;
};

}  // namespace embpriv
