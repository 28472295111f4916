#include "attacks/invbert.h"

#include <torch/torch.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "core/error.h"
#include "core/rng.h"
#include "models/minibatches.h"
#include "models/transformer_encoder.h"

namespace embpriv {

struct InvBert::Net : torch::nn::Module {
  Net(const at::Tensor& table, const InvBertOptions& o) {
    const std::int64_t V = table.size(0), d = table.size(1);
    input = register_module("input", torch::nn::Linear(d, o.hidden));
    positions = register_parameter("positions", torch::randn({o.max_length, o.hidden}) * 0.02);
    encoder = register_module(
        "encoder", torch::nn::TransformerEncoder(torch::nn::TransformerEncoderOptions(
                                                     torch::nn::TransformerEncoderLayerOptions(o.hidden, o.heads)
                                                         .dim_feedforward(o.feedforward)
                                                         .dropout(0.0),
                                                     o.layers)));
    prior = register_module("prior", torch::nn::Linear(o.hidden, V));
    tied = register_module("tied", torch::nn::Linear(o.hidden, d));
    // The attacker's table, unit rows: the tied decoder scores cosines against it (not trained).
    rows = register_buffer("rows", torch::nn::functional::normalize(
                                       table.to(at::kFloat), torch::nn::functional::NormalizeFuncOptions().dim(1)));
  }

  // x [B, L, d] standardised perturbed rows, padding [B, L] true where padding -> logits [B, L, V].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding) {
    const torch::Tensor in = input(x) + positions.narrow(0, 0, x.size(1)).unsqueeze(0);
    // The encoder takes (L, B, h) in LibTorch 1.13.
    const torch::Tensor h = thread_invariant_encoder_forward(encoder, in.transpose(0, 1), padding).transpose(0, 1);
    return prior(h) + torch::matmul(tied(h), rows.t());
  }

  torch::nn::Linear input{nullptr}, prior{nullptr}, tied{nullptr};
  torch::Tensor positions, rows;
  torch::nn::TransformerEncoder encoder{nullptr};
};

std::vector<std::pair<std::size_t, std::size_t>> cut_spans(const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                                                           std::int64_t length) {
  EMBPRIV_CHECK(length >= 1, "InvBert: the piece length must be at least 1");
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const auto& [begin, end] : spans) {
    for (std::size_t b = begin; b < end; b += static_cast<std::size_t>(length)) {
      out.emplace_back(b, std::min(end, b + static_cast<std::size_t>(length)));
    }
  }
  return out;
}

namespace {

// One batch of pieces as a padded [B, L] grid: the row of every cell in the rows (the padding
// cells read row `padding_row`, a zero row), and which cells are padding.
struct Grid {
  at::Tensor index, padding;
};

Grid grid_of(const std::vector<std::pair<std::size_t, std::size_t>>& pieces, const std::int64_t* chosen,
             std::int64_t count, std::int64_t padding_row) {
  std::int64_t L = 1;
  for (std::int64_t i = 0; i < count; ++i) {
    const auto& [b, e] = pieces[static_cast<std::size_t>(chosen[i])];
    L = std::max<std::int64_t>(L, static_cast<std::int64_t>(e - b));
  }
  at::Tensor index = at::full({count, L}, padding_row, at::kLong);
  std::int64_t* cell = index.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < count; ++i) {
    const auto& [b, e] = pieces[static_cast<std::size_t>(chosen[i])];
    for (std::size_t t = b; t < e; ++t) cell[i * L + static_cast<std::int64_t>(t - b)] = static_cast<std::int64_t>(t);
  }
  return {index, index.eq(padding_row)};
}

// The rows [N, d] standardised, with a zero row appended (row N: what padding reads).
at::Tensor standardised_with_padding(const at::Tensor& rows, const at::Tensor& mean, const at::Tensor& scale) {
  const at::Tensor x = (rows.to(at::kFloat).to(mean.device()) - mean) / scale;
  return at::cat({x, at::zeros({1, x.size(1)}, x.options())}, 0);
}

}  // namespace

InvBert InvBert::train(const TokenSequences& text, const at::Tensor& table, const RowPerturber& perturb,
                       const at::Tensor& excluded, const InvBertOptions& o) {
  EMBPRIV_CHECK(text.ids.numel() > 0 && !text.spans.empty(), "InvBert: the public text is empty");
  EMBPRIV_CHECK(o.hidden >= 1 && o.layers >= 1 && o.heads >= 1 && o.hidden % o.heads == 0 && o.feedforward >= 1 &&
                    o.max_length >= 1 && o.epochs >= 1 && o.batch >= 1 && o.learning_rate > 0,
                "InvBert: hidden, layers, heads (dividing hidden), feedforward, max_length, epochs, batch >= 1 and a "
                "learning rate > 0 are needed");
  EMBPRIV_CHECK(table.dim() == 2, "InvBert: the table must be [V, d], got " << table.sizes());
  const std::int64_t V = table.size(0), N = text.ids.numel();
  torch::manual_seed(derive_seed(o.seed, 0, "invbert.init"));
  InvBert inverter;
  inverter.net_ = std::make_shared<Net>(table, o);  // initialised on the CPU, then moved
  inverter.net_->to(o.device);
  inverter.device_ = o.device;
  inverter.max_length_ = o.max_length;
  inverter.excluded_ = (excluded.defined() ? excluded.to(at::kBool) : at::zeros({V}, at::kBool)).to(o.device);
  const at::Tensor clean = table.index_select(0, text.ids);
  // Feature scaling from one noisy draw of the public text (as the window MLP does).
  const at::Tensor first = perturb(clean, derive_seed(o.seed, 0, "invbert.scale")).to(at::kFloat);
  inverter.mean_ = first.mean(0).to(o.device);
  inverter.scale_ = first.std(0).clamp_min(1e-6).to(o.device);
  // Labels with a padding cell (ignored by the loss) at row N.
  const at::Tensor labels = at::cat({text.ids.to(at::kLong), at::full({1}, -100, at::kLong)}).to(o.device);
  const auto pieces = cut_spans(text.spans, o.max_length);
  torch::optim::Adam optimizer(inverter.net_->parameters(), torch::optim::AdamOptions(o.learning_rate));
  Rng order_rng(derive_seed(o.seed, 0, "invbert.order"), 0);
  std::vector<std::int64_t> order(pieces.size());
  std::iota(order.begin(), order.end(), 0);
  for (std::int64_t epoch = 0; epoch < o.epochs; ++epoch) {
    // Fresh noise every epoch: the attacker can draw as many noisy copies of public text as it wants.
    const at::Tensor x = standardised_with_padding(
        perturb(clean, derive_seed(o.seed, static_cast<std::uint64_t>(epoch), "invbert.noise")), inverter.mean_,
        inverter.scale_);
    double total = 0;
    std::int64_t counted = 0;
    for (const at::Tensor& batch : epoch_batches(order, o.batch, order_rng)) {
      const Grid grid = grid_of(pieces, batch.data_ptr<std::int64_t>(), batch.numel(), N);
      const at::Tensor index = grid.index.to(o.device), padding = grid.padding.to(o.device);
      optimizer.zero_grad();
      const torch::Tensor logits =
          inverter.net_->forward(x.index_select(0, index.reshape(-1)).reshape({index.size(0), index.size(1), -1}), padding);
      const torch::Tensor loss = torch::nn::functional::cross_entropy(
          logits.reshape({-1, V}), labels.index_select(0, index.reshape(-1)),
          torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
      loss.backward();
      optimizer.step();
      const std::int64_t tokens = (~grid.padding).sum().item<std::int64_t>();
      total += loss.item<double>() * static_cast<double>(tokens);
      counted += tokens;
    }
    inverter.final_loss_ = total / static_cast<double>(std::max<std::int64_t>(counted, 1));
  }
  return inverter;
}

at::Tensor InvBert::guess(const at::Tensor& perturbed_rows, const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                          std::int64_t k) const {
  EMBPRIV_CHECK(perturbed_rows.dim() == 2, "InvBert: rows must be [N, d], got " << perturbed_rows.sizes());
  const std::int64_t N = perturbed_rows.size(0);
  EMBPRIV_CHECK(k >= 1 && k <= excluded_.size(0), "InvBert: k must lie in [1, " << excluded_.size(0) << "]");
  torch::NoGradGuard no_grad;
  const at::Tensor x = standardised_with_padding(perturbed_rows, mean_, scale_);
  // Rows outside every span keep the guess 0; each piece answers for its own rows.
  at::Tensor out = at::zeros({N, k}, at::kLong);
  const auto pieces = cut_spans(spans, max_length_);
  constexpr std::int64_t kPiecesPerPass = 64;
  std::vector<std::int64_t> all(pieces.size());
  std::iota(all.begin(), all.end(), 0);
  for (std::size_t first = 0; first < pieces.size(); first += kPiecesPerPass) {
    const std::int64_t count = std::min<std::int64_t>(kPiecesPerPass, static_cast<std::int64_t>(pieces.size() - first));
    for (std::int64_t i = 0; i < count; ++i) {
      const auto& [b, e] = pieces[first + static_cast<std::size_t>(i)];
      EMBPRIV_CHECK(b <= e && static_cast<std::int64_t>(e) <= N, "InvBert: a span exceeds the rows");
    }
    const Grid grid = grid_of(pieces, all.data() + first, count, N);
    const at::Tensor index = grid.index.to(device_);
    at::Tensor logits =
        net_->forward(x.index_select(0, index.reshape(-1)).reshape({count, index.size(1), -1}), grid.padding.to(device_));
    logits.masked_fill_(excluded_.view({1, 1, -1}), -std::numeric_limits<float>::infinity());
    const at::Tensor top = std::get<1>(logits.topk(k, 2)).cpu().reshape({-1, k});
    const at::Tensor real = (~grid.padding).reshape(-1).nonzero().squeeze(1);
    out.index_copy_(0, grid.index.reshape(-1).index_select(0, real), top.index_select(0, real));
  }
  return out;
}

}  // namespace embpriv
