#include "models/rotary_embedding.h"

#include <ATen/ATen.h>

#include <cmath>

namespace embpriv {

at::Tensor rotary_inverse_frequencies(std::int64_t head_dim, double theta, const Llama3RopeScaling& scaling) {
  const at::Tensor exponent = at::arange(0, head_dim, 2, at::kLong).to(at::kFloat) / static_cast<double>(head_dim);
  at::Tensor inv_freq = 1.0 / at::pow(theta, exponent);
  if (!scaling.enabled) return inv_freq;
  // transformers, modeling_rope_utils.py, _compute_llama3_parameters.
  const double old_context = static_cast<double>(scaling.original_max_position_embeddings);
  const double low_freq_wavelen = old_context / scaling.low_freq_factor;
  const double high_freq_wavelen = old_context / scaling.high_freq_factor;
  const at::Tensor wavelen = 2 * M_PI / inv_freq;
  at::Tensor scaled = at::where(wavelen > low_freq_wavelen, inv_freq / scaling.factor, inv_freq);
  const at::Tensor smooth = (old_context / wavelen - scaling.low_freq_factor) /
                            (scaling.high_freq_factor - scaling.low_freq_factor);
  const at::Tensor smoothed = (1 - smooth) * scaled / scaling.factor + smooth * scaled;
  const at::Tensor medium = (wavelen >= high_freq_wavelen).logical_and(wavelen <= low_freq_wavelen);
  return at::where(medium, smoothed, scaled);
}

at::Tensor apply_rotary(const at::Tensor& x, const at::Tensor& inverse_frequencies) {
  const std::int64_t T = x.size(2), half = x.size(3) / 2;
  // float32 throughout, as transformers computes cos and sin.
  const at::Tensor positions = at::arange(T, x.options().dtype(at::kLong)).to(at::kFloat);
  const at::Tensor angles = at::outer(positions, inverse_frequencies.to(x.device()));  // [T, d/2]
  const at::Tensor both = at::cat({angles, angles}, -1);                             // [T, d]
  // x cos + rotate_half(x) sin, rotate_half(x) = [-x2, x1], without building rotate_half: the
  // first half x1 cos - x2 sin is the same bits as x1 cos + (-x2) sin (IEEE's a - b is a + (-b)).
  // cos and sin rounded to x's dtype, as transformers does for a bf16 model (no-op in float32).
  const at::Tensor cos = both.cos().to(x.scalar_type()), sin = both.sin().to(x.scalar_type());
  at::Tensor out = x * cos;
  out.narrow(-1, 0, half).sub_(x.narrow(-1, half, half) * sin.narrow(-1, 0, half));
  out.narrow(-1, half, half).add_(x.narrow(-1, 0, half) * sin.narrow(-1, half, half));
  return out;
}

}  // namespace embpriv
