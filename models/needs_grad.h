#pragma once
// Whether a gradient will be taken through a tensor: then no op may overwrite in place what a
// backward reads (the forward passes of models/ run their ops in place only when this is false).
#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>

namespace embpriv {

inline bool needs_grad(const at::Tensor& t) { return at::GradMode::is_enabled() && t.requires_grad(); }

}  // namespace embpriv
