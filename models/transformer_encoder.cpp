#include "models/transformer_encoder.h"

#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/nn/functional/activation.h>
#include <torch/nn/modules/transformerlayer.h>
#include <torch/version.h>

#include <cmath>
#include <cstdlib>
#include <string>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/error.h"

namespace embpriv {
namespace {

// The raw pointers of one layer norm backward: rows of width N, M rows.
struct Rows {
  std::int64_t M, N;
  const float* dy;    // [M, N]
  const float* x;     // [M, N]
  const float* mean;  // [M]
  const float* rstd;  // [M]
  float* dgamma;      // [N], zero on entry
  float* dbeta;       // [N], zero on entry
};

// dL/dgamma[j] = sum_i dY[i][j] * (x[i][j] - mean[i]) * rstd[i] and dL/dbeta[j] = sum_i dY[i][j]
// (Ba et al. 2016, eq. 4 differentiated) for the columns [j0, j1), over the rows i in order, as
// LibTorch 1.13's layer_norm_backward_frame adds one row to a thread's partial sum:
// a = rstd, b = -a * mean, dgamma += dY * (a * x + b). Its AVX2 and AVX-512 kernels are built
// with FMA, and the compiler fuses both multiply-adds there; its default kernel has no FMA. Each
// version below does what one of them does, so at one thread the bits are LibTorch's.
#if defined(__x86_64__) && !defined(__clang__)
#define EMBPRIV_FUSED_ROWS 1
// Eight columns at a time; the fused multiply-add rounds once in a vector lane as in a scalar.
__attribute__((target("avx2,fma"))) void sum_rows_fused(const Rows& r, std::int64_t j0, std::int64_t j1) {
  float* dg = r.dgamma;
  float* db = r.dbeta;
  for (std::int64_t i = 0; i < r.M; ++i) {
    const float a = r.rstd[i];
    const float b = -a * r.mean[i];
    const float* dy = r.dy + i * r.N;
    const float* x = r.x + i * r.N;
    const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
    std::int64_t j = j0;
    for (; j + 8 <= j1; j += 8) {
      const __m256 d = _mm256_loadu_ps(dy + j);
      const __m256 t = _mm256_fmadd_ps(va, _mm256_loadu_ps(x + j), vb);
      _mm256_storeu_ps(dg + j, _mm256_fmadd_ps(d, t, _mm256_loadu_ps(dg + j)));
      _mm256_storeu_ps(db + j, _mm256_add_ps(_mm256_loadu_ps(db + j), d));
    }
    for (; j < j1; ++j) {
      dg[j] = std::fma(dy[j], std::fma(a, x[j], b), dg[j]);
      db[j] = db[j] + dy[j];
    }
  }
}
#endif

void sum_rows_plain(const Rows& r, std::int64_t j0, std::int64_t j1) {
  float* __restrict dg = r.dgamma;
  float* __restrict db = r.dbeta;
  for (std::int64_t i = 0; i < r.M; ++i) {
    const float a = r.rstd[i];
    const float b = -a * r.mean[i];
    const float* __restrict dy = r.dy + i * r.N;
    const float* __restrict x = r.x + i * r.N;
    for (std::int64_t j = j0; j < j1; ++j) {
      const float t = a * x[j] + b;  // two roundings: the build has no -mfma, nothing is fused
      dg[j] = dg[j] + dy[j] * t;
      db[j] = db[j] + dy[j];
    }
  }
}

// Whether LibTorch runs its AVX2 or AVX-512 kernels (DispatchStub.cpp: AVX2 and FMA at least,
// unless ATEN_CPU_CAPABILITY=default), whose multiply-adds are fused.
bool libtorch_fuses() {
#ifdef EMBPRIV_FUSED_ROWS
  static const bool fused = [] {
    const char* forced = std::getenv("ATEN_CPU_CAPABILITY");
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
           !(forced != nullptr && std::string(forced) == "default");
  }();
  return fused;
#else
  return false;
#endif
}

// The columns are split among the threads: each column is summed by one thread, in row order,
// whatever the thread count.
void parameter_gradients(const at::Tensor& dy, const at::Tensor& x, const at::Tensor& mean, const at::Tensor& rstd,
                         at::Tensor& dgamma, at::Tensor& dbeta) {
  const std::int64_t N = x.size(-1);
  const Rows rows{x.numel() / N,           N,
                  dy.data_ptr<float>(),    x.data_ptr<float>(),
                  mean.data_ptr<float>(),  rstd.data_ptr<float>(),
                  dgamma.data_ptr<float>(), dbeta.data_ptr<float>()};
  const auto columns = [&rows, fused = libtorch_fuses()](std::int64_t j0, std::int64_t j1) {
#ifdef EMBPRIV_FUSED_ROWS
    if (fused) return sum_rows_fused(rows, j0, j1);
#endif
    sum_rows_plain(rows, j0, j1);
  };
  // The sums take about 12 us per 100,000 elements in one thread (AVX2): below a million
  // elements a second thread costs more than it saves.
  if (rows.M * N < (std::int64_t{1} << 20)) {
    columns(0, N);
  } else {
    at::parallel_for(0, N, 8, columns);
  }
}

struct LayerNormFunction : torch::autograd::Function<LayerNormFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            const at::Tensor& bias, double eps) {
    auto [y, mean, rstd] = at::native_layer_norm(x, {x.size(-1)}, weight, bias, eps);
    ctx->save_for_backward({x, weight, bias});
    ctx->saved_data["mean"] = mean;
    ctx->saved_data["rstd"] = rstd;
    return y;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad) {
    const torch::autograd::variable_list saved = ctx->get_saved_variables();
    const at::Tensor x = saved[0].contiguous(), &weight = saved[1], &bias = saved[2];
    const at::Tensor mean = ctx->saved_data["mean"].toTensor().contiguous();
    const at::Tensor rstd = ctx->saved_data["rstd"].toTensor().contiguous();
    const at::Tensor dy = grad[0].contiguous();
    at::Tensor dx, dgamma, dbeta;
    if (ctx->needs_input_grad(0)) {
      dx = std::get<0>(at::native_layer_norm_backward(dy, x, {x.size(-1)}, mean, rstd, weight, bias, {true, false, false}));
    }
    if (ctx->needs_input_grad(1) || ctx->needs_input_grad(2)) {
      dgamma = at::zeros_like(weight);
      dbeta = at::zeros_like(bias);
      parameter_gradients(dy, x, mean, rstd, dgamma, dbeta);
    }
    return {dx, ctx->needs_input_grad(1) ? dgamma : at::Tensor(), ctx->needs_input_grad(2) ? dbeta : at::Tensor(),
            at::Tensor()};
  }
};

}  // namespace

at::Tensor thread_invariant_layer_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                                       double eps) {
  EMBPRIV_CHECK(x.dim() >= 1 && x.size(-1) >= 1 && x.scalar_type() == at::kFloat,
                "layer norm: a float input with a last dimension is needed, got " << x.sizes() << " " << x.scalar_type());
  EMBPRIV_CHECK(weight.defined() && bias.defined() && weight.dim() == 1 && bias.dim() == 1 &&
                    weight.size(0) == x.size(-1) && bias.size(0) == x.size(-1) &&
                    weight.scalar_type() == at::kFloat && bias.scalar_type() == at::kFloat,
                "layer norm: float weight and bias of the input's width " << x.size(-1) << " are needed");
  return LayerNormFunction::apply(x, weight, bias, eps);
}

at::Tensor thread_invariant_encoder_forward(torch::nn::TransformerEncoder& encoder, const at::Tensor& src,
                                            const at::Tensor& key_padding_mask) {
  EMBPRIV_CHECK(encoder->norm.is_empty(), "Transformer encoder: a final norm is not supported");
  at::Tensor h = src;
  for (std::size_t i = 0; i < encoder->layers->size(); ++i) {
    auto& layer = encoder->layers->at<torch::nn::TransformerEncoderLayerImpl>(i);
    // LibTorch 2.x holds the activation in a std::variant, 1.13 in a c10::variant; both have
    // holds_alternative (torch/version.h says which LibTorch this is).
#if TORCH_VERSION_MAJOR >= 2
    EMBPRIV_CHECK(std::holds_alternative<torch::enumtype::kReLU>(layer.options.activation()),
#else
    EMBPRIV_CHECK(c10::holds_alternative<torch::enumtype::kReLU>(layer.options.activation()),
#endif
                  "Transformer encoder: only ReLU layers are supported");
    // Self-attention, then add & norm (Vaswani et al. 2017, sec. 3.1 and 3.2). The attention
    // weights are not asked for: the output is the same without them.
    const at::Tensor attended =
        std::get<0>(layer.self_attn(h, h, h, key_padding_mask, /*need_weights=*/false, at::Tensor()));
    const at::Tensor x = thread_invariant_layer_norm(h + layer.dropout1(attended), layer.norm1->weight,
                                                     layer.norm1->bias, layer.norm1->options.eps());
    // Position-wise feed-forward network (eq. 2), then add & norm.
    const at::Tensor fed = layer.linear2(layer.dropout(torch::nn::functional::relu(layer.linear1(x))));
    h = thread_invariant_layer_norm(x + layer.dropout2(fed), layer.norm2->weight, layer.norm2->bias,
                                    layer.norm2->options.eps());
  }
  return h;
}

}  // namespace embpriv
