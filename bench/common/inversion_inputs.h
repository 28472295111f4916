#pragma once
// The inputs of the two inversion-training benches (training/training_bench.cpp's learned
// inversion, invbert/invbert_bench.cpp), so that both time the same task: the real stories260K
// table (512 x 64, what the attacker knows), `tokens` random ids (at::manual_seed(2)) in sentences
// of 32, and rows perturbed by N(0, 0.5^2) noise drawn from the seed the trainer passes. Both
// Python peers read the table and the ids from the dump and draw their own noise.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cstdint>

#include "attacks/learned_inversion.h"
#include "data/tables/data_paths.h"
#include "models/llama2c_checkpoint.h"

namespace embpriv {

struct InversionInputs {
  at::Tensor table;     // [512, 64] float32
  TokenSequences text;  // the ids and their sentences
  RowPerturber perturb;
};

inline InversionInputs inversion_inputs(std::int64_t tokens) {
  InversionInputs in;
  in.table = load_llama2c_checkpoint(resolve_data_path(shared_data_dir() + "/tinyllama/stories260K.bin"))
                 .token_embedding.to(at::kFloat);
  at::manual_seed(2);
  in.text.ids = at::randint(0, in.table.size(0), {tokens}, at::kLong);
  for (std::int64_t b = 0; b < tokens; b += 32) {
    in.text.spans.emplace_back(static_cast<std::size_t>(b), static_cast<std::size_t>(std::min(tokens, b + 32)));
  }
  in.perturb = [](const at::Tensor& rows, std::uint64_t seed) {
    at::Generator generator = at::detail::createCPUGenerator(seed);
    return rows + 0.5 * at::randn(rows.sizes(), generator);
  };
  return in;
}

}  // namespace embpriv
