#pragma once
// Per-row channel policy of the vMF paper, sec. 6: a modality tag per row selects the budget
// (Def. 6.1: eps_visual = eps_sys, eps_text = alpha * eps_sys), and a 0/1 mask leaves public
// tokens (system prompt, instructions, special tokens) untouched (Def. 6.2:
// y = M * y_perturbed + (1 - M) * x).
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace embpriv {

enum class Modality : std::int8_t { visual = 0, text = 1 };

struct RowChannels {
  at::Tensor modality;  // optional, integer [N]: 0 = visual, 1 = text; undefined = all visual
  at::Tensor mask;      // optional, integer or bool [N]: 1 = perturb, 0 = copy; undefined = all 1
};

}  // namespace embpriv
