// A results file (experiments/results/results_table.h).
#include "experiments/results/results_table.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embpriv::fuzz::input_file(data, size, "results", ".h5");
  return embpriv::fuzz::expect_only_embpriv_errors([&] { embpriv::read_results_h5(path); });
}
