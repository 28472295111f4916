#pragma once
// The per-vector mechanism interface (GUIDE.md, sec. 3). A mechanism is valid once built: its
// constructor checks every parameter. perturb() maps a batch x [N, d] to y of the same shape,
// row by row, each row drawing from its own generator (core/rng.h), so the output does not
// depend on the thread count or on how a large batch is split into chunks.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/rng.h"
#include "mechanisms/channels.h"

namespace embpriv {

// What a method's paper promises, and whether embpriv finds that the promise holds.
struct PrivacyClaim {
  std::string kind;    // "metric_dp", "pure_dp", "approx_dp" or "none"
  double epsilon = 0;  // metric_dp: per radian of geodesic distance between directions
  double delta = 0;
  std::string neighbours;  // what two inputs the guarantee compares
  std::string note;        // caveats, errata, what is released in the clear
  std::string describe() const;
};

// The mechanism at one epsilon, applied to one row (d floats). scratch holds d doubles.
class RowKernel {
 public:
  virtual ~RowKernel() = default;
  virtual void apply(const float* x, float* y, std::int64_t d, Rng& rng,
                     double* scratch) const = 0;
};

class Mechanism {
 public:
  virtual ~Mechanism() = default;

  const std::string& name() const { return name_; }
  // The system budget eps_sys, used for the visual channel.
  double epsilon() const { return epsilon_; }
  // The asymmetry factor of the vMF paper, Def. 6.1: eps_text = alpha * eps_sys.
  double alpha() const { return alpha_; }
  double epsilon_for(Modality modality) const {
    return modality == Modality::text ? alpha_ * epsilon_ : epsilon_;
  }
  // The promise for rows of one modality.
  PrivacyClaim claim(Modality modality = Modality::visual) const {
    return claim_at(epsilon_for(modality));
  }

  // y = M(x) for every row of x [N, d] (any floating dtype; computed in float32, returned in
  // x's dtype and on x's device). Rows masked 0 by channels are copied unchanged.
  // Throws embpriv::Error naming the first bad row (NaN/Inf, or zero for direction mechanisms).
  at::Tensor perturb(const at::Tensor& x, const RandomStream& stream,
                     const RowChannels& channels = {}) const;

  // The row kernel at a given epsilon; exposed for tests and benchmarks.
  virtual std::unique_ptr<RowKernel> make_kernel(double epsilon) const = 0;

 protected:
  // needs_direction: the mechanism perturbs x / ||x||, so zero rows are rejected.
  Mechanism(std::string name, double epsilon, double alpha, bool needs_direction);
  virtual PrivacyClaim claim_at(double epsilon) const = 0;

 private:
  std::string name_;
  double epsilon_;
  double alpha_;
  bool needs_direction_;
};

}  // namespace embpriv
