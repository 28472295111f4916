#include "mechanisms/mechanism.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/params.h"

namespace embpriv {
namespace {

// Rows per parallel task: enough work per task that scheduling costs nothing, while the output
// never depends on it (each row has its own generator).
constexpr std::int64_t kRowsPerTask = 64;

// A [N] channel tensor as int64 on the CPU, or an undefined tensor; checks its shape and values.
at::Tensor channel_column(const at::Tensor& column, std::int64_t rows, const char* what) {
  if (!column.defined()) return column;
  EMBPRIV_CHECK(column.dim() == 1 && column.size(0) == rows,
                what << " must have shape [" << rows << "] (one entry per row), got "
                     << column.sizes());
  EMBPRIV_CHECK(!column.is_floating_point() && !column.is_complex(),
                what << " must be an integer or bool tensor, got " << column.dtype());
  at::Tensor values = column.to(at::kCPU, at::kLong).contiguous();
  const std::int64_t* v = values.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < rows; ++i) {
    EMBPRIV_CHECK(v[i] == 0 || v[i] == 1,
                  what << " must hold 0 or 1, got " << v[i] << " at row " << i);
  }
  return values;
}

// True when the row is finite and, if the mechanism needs a direction, not all zero. The scan
// is branch-free; it runs inside the parallel loop, just before the row's kernel reads the same
// (now cached) values.
bool row_is_valid(const float* row, std::int64_t d, bool needs_direction) {
  bool all_finite = true, any_nonzero = false;
  for (std::int64_t j = 0; j < d; ++j) {
    all_finite &= std::fabs(row[j]) <= std::numeric_limits<float>::max();  // false for NaN
    any_nonzero |= row[j] != 0.0f;
  }
  return all_finite && (any_nonzero || !needs_direction);
}

// Throws the one error that names what is wrong with a row row_is_valid() refused.
[[noreturn]] void reject_row(const float* row, std::int64_t d, const std::string& name,
                             std::int64_t global_row) {
  for (std::int64_t j = 0; j < d; ++j) {
    EMBPRIV_CHECK(std::isfinite(row[j]), "row " << global_row << " has a non-finite value ("
                                                << row[j] << ") at column " << j);
  }
  throw Error("row " + std::to_string(global_row) + " is a zero vector: " + name +
              " perturbs the direction x/||x||, which a zero vector does not have");
}

// Lowers `slot` to `value` if smaller (the first bad row, whatever thread finds it).
void lower_to(std::atomic<std::int64_t>& slot, std::int64_t value) {
  std::int64_t seen = slot.load();
  while (value < seen && !slot.compare_exchange_weak(seen, value)) {
  }
}

}  // namespace

std::string PrivacyClaim::describe() const {
  std::ostringstream out;
  out << kind;
  if (kind != "none") out << " eps=" << epsilon;
  if (kind == "approx_dp") out << " delta=" << delta;
  if (!neighbours.empty()) out << " (" << neighbours << ")";
  if (!note.empty()) out << "; " << note;
  return out.str();
}

Mechanism::Mechanism(std::string name, double epsilon, double alpha, bool needs_direction)
    : name_(std::move(name)),
      epsilon_(require_positive("epsilon", epsilon)),
      alpha_(require_positive("alpha", alpha)),
      needs_direction_(needs_direction) {}

at::Tensor Mechanism::perturb(const at::Tensor& x, const RandomStream& stream,
                              const RowChannels& channels) const {
  EMBPRIV_CHECK(x.defined() && x.dim() == 2,
                name_ << ": input must be a 2-D batch [N, d], got "
                      << (x.defined() ? x.sizes() : at::IntArrayRef{}) << "");
  EMBPRIV_CHECK(x.is_floating_point(), name_ << ": input must be floating point, got " << x.dtype());
  const std::int64_t rows = x.size(0);
  const std::int64_t d = x.size(1);
  EMBPRIV_CHECK(d >= 2, name_ << ": dimension d must be >= 2, got " << d);

  // Kernels run on the CPU in float32; a GPU batch is copied there and back.
  const at::Tensor input = x.to(at::kCPU, at::kFloat).contiguous();
  const at::Tensor modality = channel_column(channels.modality, rows, "modality");
  const at::Tensor mask = channel_column(channels.mask, rows, "mask");
  const float* in = input.data_ptr<float>();

  const std::unique_ptr<RowKernel> kernels[2] = {make_kernel(epsilon_for(Modality::visual)),
                                                 make_kernel(epsilon_for(Modality::text))};
  at::Tensor output = at::empty_like(input);
  float* out = output.data_ptr<float>();
  const std::int64_t* modality_of = modality.defined() ? modality.data_ptr<std::int64_t>() : nullptr;
  const std::int64_t* mask_of = mask.defined() ? mask.data_ptr<std::int64_t>() : nullptr;

  std::atomic<std::int64_t> first_bad_row{rows};
  at::parallel_for(0, rows, kRowsPerTask, [&](std::int64_t begin, std::int64_t end) {
    std::vector<double> scratch(static_cast<std::size_t>(d));
    for (std::int64_t i = begin; i < end; ++i) {
      const float* xi = in + i * d;
      float* yi = out + i * d;
      if (!row_is_valid(xi, d, needs_direction_)) {
        lower_to(first_bad_row, i);
        continue;
      }
      if (mask_of && mask_of[i] == 0) {  // vMF paper, Def. 6.2: public rows pass unchanged.
        std::copy(xi, xi + d, yi);
        continue;
      }
      Rng rng(stream.seed, static_cast<std::uint64_t>(stream.first_row + i));
      const RowKernel& kernel = *kernels[modality_of ? modality_of[i] : 0];
      kernel.apply(xi, yi, d, rng, scratch.data());
    }
  });
  if (const std::int64_t bad = first_bad_row.load(); bad < rows) {
    reject_row(in + bad * d, d, name_, stream.first_row + bad);
  }
  return output.to(x.device(), x.scalar_type());
}

Prediction Mechanism::cosine(std::int64_t, double) const { return {}; }

Prediction Mechanism::dot_product_factor(std::int64_t, double) const { return {}; }

Prediction Mechanism::expected_squared_norm(double, double, std::int64_t, double) const {
  return {};
}

double Mechanism::epsilon_for_noise_share(double, std::int64_t) const {
  return std::numeric_limits<double>::quiet_NaN();
}

NeighbouringPair Mechanism::direction_pair(std::int64_t d, double distance,
                                           double epsilon_per_radian) {
  NeighbouringPair pair{at::zeros({d}, at::kFloat), at::zeros({d}, at::kFloat),
                        epsilon_per_radian * distance, 0.0};
  pair.x0[0] = 1.0;
  pair.x1[0] = std::cos(distance);
  pair.x1[1] = std::sin(distance);
  return pair;
}

NeighbouringPair Mechanism::clipped_pair(std::int64_t d, double clip_norm, const PrivacyClaim& claim) {
  NeighbouringPair pair{at::zeros({d}, at::kFloat), at::zeros({d}, at::kFloat), claim.epsilon,
                        claim.delta};
  pair.x0[0] = clip_norm;
  pair.x1[0] = -clip_norm;
  return pair;
}

}  // namespace embpriv
