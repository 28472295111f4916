// The Python-facing mechanism config path (embpriv.mechanism("{name: vmf, epsilon: 2}"),
// python/mechanisms.cpp): YAML text read by the YAML adapter (experiments/engine/mechanism_yaml.h)
// into the typed keys of mechanisms/param_spec.h, the mechanism built and run on a small batch.
#include <ATen/ATen.h>

#include "experiments/engine/mechanism_yaml.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const embpriv::MechanismRegistry registry = embpriv::default_mechanism_registry();
  // Four rows of d = 8 with norms 0.5 to 2 (the inputs of the CI sweep), a zero-free batch.
  static const at::Tensor x = (at::arange(32, at::kFloat).reshape({4, 8}) + 1) / 16;
  const std::string text(reinterpret_cast<const char*>(data), size);
  return embpriv::fuzz::expect_only_embpriv_errors([&] {
    const auto mechanism = embpriv::make_mechanism(text, registry);
    mechanism->perturb(x, embpriv::RandomStream{1, 0});
  });
}
