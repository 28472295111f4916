#include "attacks/learned_inversion.h"

#include <torch/torch.h>

#include <limits>
#include <numeric>

#include "platform/blas_threads.h"
#include "core/error.h"
#include "core/rng.h"
#include "models/minibatches.h"

namespace embpriv {

struct LearnedInverter::Model : torch::nn::Module {
  Model(std::int64_t in, std::int64_t hidden, std::int64_t out)
      : first(register_module("first", torch::nn::Linear(in, hidden))),
        second(register_module("second", torch::nn::Linear(hidden, hidden))),
        last(register_module("last", torch::nn::Linear(hidden, out))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return last(torch::gelu(second(torch::gelu(first(x)))));
  }
  torch::nn::Linear first, second, last;
};

at::Tensor token_windows(const at::Tensor& rows, const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                         std::int64_t window) {
  EMBPRIV_CHECK(rows.dim() == 2, "learned inversion: rows must be [N, d], got " << rows.sizes());
  const std::int64_t N = rows.size(0), d = rows.size(1), width = 2 * window + 1;
  at::Tensor out = at::zeros({N, width * d}, rows.options().dtype(at::kFloat));
  const at::Tensor r = rows.to(at::kFloat).contiguous();
  for (const auto& [begin, end] : spans) {
    EMBPRIV_CHECK(begin <= end && static_cast<std::int64_t>(end) <= N, "learned inversion: a span exceeds the rows");
    for (std::int64_t offset = -window; offset <= window; ++offset) {
      // Position i reads row i + offset when it lies in the same span.
      const auto b = static_cast<std::int64_t>(begin), e = static_cast<std::int64_t>(end);
      const std::int64_t from = std::max(b, b - offset), to = std::min(e, e - offset);
      if (to <= from) continue;
      out.narrow(0, from, to - from).narrow(1, (offset + window) * d, d).copy_(r.narrow(0, from + offset, to - from));
    }
  }
  return out;
}

LearnedInverter LearnedInverter::train(const TokenSequences& text, const at::Tensor& table, const RowPerturber& perturb,
                                       const at::Tensor& excluded, const LearnedInversionOptions& o) {
  EMBPRIV_CHECK(text.ids.numel() > 0, "learned inversion: the public text is empty");
  EMBPRIV_CHECK(o.window >= 0 && o.hidden >= 1 && o.epochs >= 1 && o.batch >= 1 && o.learning_rate > 0,
                "learned inversion: window >= 0, hidden, epochs, batch >= 1 and a learning rate > 0 are needed");
  const std::int64_t V = table.size(0), d = table.size(1), N = text.ids.numel();
  const SingleThreadedBlas small_gemms;  // a small MLP: no BLAS pool beside LibTorch's
  torch::manual_seed(derive_seed(o.seed, 0, "learned_inversion.init"));
  LearnedInverter inverter;
  inverter.window_ = o.window;
  inverter.model_ = std::make_shared<Model>((2 * o.window + 1) * d, o.hidden, V);  // initialised on the CPU
  inverter.model_->to(o.device);
  inverter.device_ = o.device;
  inverter.excluded_ = (excluded.defined() ? excluded.to(at::kBool) : at::zeros({V}, at::kBool)).to(o.device);
  const at::Tensor clean = table.index_select(0, text.ids);
  // Feature scaling from one noisy draw of the public text.
  const at::Tensor first = token_windows(perturb(clean, derive_seed(o.seed, 0, "learned_inversion.scale")),
                                         text.spans, o.window);
  inverter.mean_ = first.mean(0).to(o.device);
  inverter.scale_ = first.std(0).clamp_min(1e-6).to(o.device);
  const at::Tensor labels = text.ids.to(o.device);
  torch::optim::Adam optimizer(inverter.model_->parameters(), torch::optim::AdamOptions(o.learning_rate));
  Rng order_rng(derive_seed(o.seed, 0, "learned_inversion.order"), 0);
  std::vector<std::int64_t> order(static_cast<std::size_t>(N));
  std::iota(order.begin(), order.end(), 0);
  for (std::int64_t epoch = 0; epoch < o.epochs; ++epoch) {
    // Fresh noise every epoch: the attacker can draw as many noisy copies of public text as it wants.
    const at::Tensor x = (token_windows(perturb(clean, derive_seed(o.seed, static_cast<std::uint64_t>(epoch), "learned_inversion.noise")),
                                        text.spans, o.window).to(o.device) - inverter.mean_) / inverter.scale_;
    double total = 0;
    for (const at::Tensor& batch_rows : epoch_batches(order, o.batch, order_rng)) {
      const at::Tensor rows = batch_rows.to(o.device);
      optimizer.zero_grad();
      const torch::Tensor loss =
          torch::cross_entropy_loss(inverter.model_->forward(x.index_select(0, rows)), labels.index_select(0, rows));
      loss.backward();
      optimizer.step();
      total += loss.item<double>() * static_cast<double>(rows.numel());
    }
    inverter.final_loss_ = total / static_cast<double>(N);
  }
  return inverter;
}

at::Tensor LearnedInverter::guess(const at::Tensor& perturbed_rows,
                                  const std::vector<std::pair<std::size_t, std::size_t>>& spans, std::int64_t k) const {
  torch::NoGradGuard no_grad;
  const at::Tensor x = (token_windows(perturbed_rows, spans, window_).to(device_) - mean_) / scale_;
  at::Tensor logits = model_->forward(x);
  logits.masked_fill_(excluded_.unsqueeze(0), -std::numeric_limits<float>::infinity());
  return std::get<1>(logits.topk(k, 1)).cpu();
}

}  // namespace embpriv
