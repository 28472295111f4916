#pragma once
// The per-vector mechanism interface (GUIDE.md, sec. 3). A mechanism is valid once built: its
// constructor checks every parameter. perturb() maps a batch x [N, d] to y of the same shape,
// row by row, each row drawing from its own generator (core/rng.h), so the output does not
// depend on the thread count or on how a large batch is split into chunks.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "core/rng.h"
#include "mechanisms/channels.h"

namespace embpriv {

// What a method's paper promises, and whether embpriv finds that the promise holds.
struct PrivacyClaim {
  PrivacyClaim() = default;
  PrivacyClaim(std::string kind_, double epsilon_, double delta_, std::string neighbours_, std::string note_)
      : kind(std::move(kind_)), epsilon(epsilon_), delta(delta_), neighbours(std::move(neighbours_)),
        note(std::move(note_)) {}
  std::string kind;    // "metric_dp", "pure_dp", "approx_dp" or "none"
  double epsilon = 0;  // metric_dp: per radian of geodesic distance between directions
  double delta = 0;
  std::string neighbours;  // what two inputs the guarantee compares
  std::string note;        // caveats, errata, what is released in the clear
  // What the noise really used gives, next to the eps the claim names (never copied from it
  // where it can differ): the eps of the actual noise at `delta` and where that number comes
  // from. Gaussian noise: the exact eps of its sigma over Delta2 (Balle & Wang 2018, Thm 8),
  // larger than `epsilon` when the classic formula is used at eps >= 1; Laplace and vMF: equal
  // to `epsilon` by construction; a claim that does not hold (vmf_tangent): +inf.
  double epsilon_actual = std::numeric_limits<double>::quiet_NaN();
  std::string epsilon_actual_source;
  double sigma = std::numeric_limits<double>::quiet_NaN();           // Gaussian noise per coordinate
  double l2_sensitivity = std::numeric_limits<double>::quiet_NaN();  // Delta2 of the Gaussian noise
  std::string describe() const;
};

// A closed-form prediction of a mechanism's theory and the result it comes from; unknown (NaN,
// no source) where the theory has no closed form.
struct Prediction {
  double value = std::numeric_limits<double>::quiet_NaN();
  std::string source;      // e.g. "vMF paper, Thm 5.3"
  bool every_sample = false;  // the value holds for every output, not only in expectation
  bool known() const { return !source.empty(); }
};

// Two neighbouring inputs of a mechanism's claim, and the (epsilon, delta) the claim promises
// between them: what a privacy audit distinguishes (attacks/audit.h).
struct NeighbouringPair {
  at::Tensor x0, x1;  // [d] float32
  double claimed_epsilon = 0;
  double claimed_delta = 0;
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

  // What the mechanism's theory says, at dimension d and budget epsilon (so that a caller can
  // ask at the text budget, or at the epsilon a config names). Experiments read these instead
  // of switching on names; the defaults say "no closed form".
  // ||y|| = ||x|| for every output (value 1).
  virtual Prediction norm_kept() const { return {}; }
  // E[cos(x, y)] (every_sample when each output has that cosine).
  virtual Prediction cosine(std::int64_t d, double epsilon) const;
  // F in E[y1^T y2] = F x1^T x2 for two inputs perturbed independently (vMF paper, Thm 5.3).
  virtual Prediction dot_product_factor(std::int64_t d, double epsilon) const;
  // E||y||^2 for an input with this squared L2 norm and L1 norm (clipping included), where
  // the output norm is not kept.
  virtual Prediction expected_squared_norm(double squared_norm, double l1_norm, std::int64_t d,
                                           double epsilon) const;
  // The deflection angle is random and depends on ||x|| (vMF paper, Prop. 7.1).
  virtual Prediction angle_depends_on_norm() const { return {}; }
  // The norm C inputs are clipped to before noise is added; NaN when nothing is clipped.
  virtual double clip_norm() const { return std::numeric_limits<double>::quiet_NaN(); }
  // y = clip(x) + noise: halving the noise means y' = x + (y - x) / 2 (the audit's broken
  // variant); otherwise a mechanism with half the noise is the same one at 2 epsilon.
  virtual bool noise_is_additive() const { return false; }
  // The epsilon (at the mechanism's delta) whose noise norm sigma sqrt(d) is `share` of the
  // clip norm; NaN where the noise is not Gaussian.
  virtual double epsilon_for_noise_share(double share, std::int64_t d) const;
  // The inputs an audit distinguishes: two directions at angle `distance` (radians) for the
  // mechanisms whose claim is on directions, +C e_1 and -C e_1 for the clipped ones.
  virtual NeighbouringPair neighbouring_pair(std::int64_t d, double distance) const = 0;

 protected:
  // needs_direction: the mechanism perturbs x / ||x||, so zero rows are rejected.
  Mechanism(std::string name, double epsilon, double alpha, bool needs_direction);
  virtual PrivacyClaim claim_at(double epsilon) const = 0;
  // The two neighbouring-pair shapes: unit directions at angle `distance`, whose claim is
  // epsilon per radian (metric DP on directions); +C e_1 and -C e_1, at L2 (and L1) distance 2C,
  // the sensitivity of the clipped mechanisms.
  static NeighbouringPair direction_pair(std::int64_t d, double distance, double epsilon_per_radian);
  static NeighbouringPair clipped_pair(std::int64_t d, double clip_norm, const PrivacyClaim& claim);

 private:
  std::string name_;
  double epsilon_;
  double alpha_;
  bool needs_direction_;
};

}  // namespace embpriv
