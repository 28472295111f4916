// Behaviour every mechanism shares: shapes, dtypes, bad input, determinism, channels, claims.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "tests/catch.h"
#include <cmath>
#include <limits>

#include "core/error.h"
#include "experiments/engine/mechanism_yaml.h"
#include "mechanisms/vmf.h"
#include "metrics/similarity.h"
#include "mechanisms/theory.h"
#include "tests/test_inputs.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

const char* kAllMechanisms[] = {
    "{name: vmf_tangent, epsilon: 2, beta: 1}",
    "{name: vmf, epsilon: 200, beta: 1}",
    "{name: gaussian, epsilon: 2, delta: 1.0e-5, clip_norm: 1}",
    "{name: laplace, epsilon: 2, clip_norm: 1}",
    "{name: npgaussian, epsilon: 2, delta: 1.0e-5, clip_norm: 1}",
};

std::unique_ptr<Mechanism> make(const std::string& yaml) {
  static const MechanismRegistry registry = default_mechanism_registry();
  return make_mechanism(yaml, registry);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("every mechanism keeps the shape, dtype and device of its input", "[mechanisms]") {
  const at::Tensor x = test_directions(50, 32, 7);
  for (const char* yaml : kAllMechanisms) {
    INFO(yaml);
    const auto m = make(yaml);
    const at::Tensor y = m->perturb(x, {1, 0});
    CHECK(y.sizes() == x.sizes());
    CHECK(y.scalar_type() == at::kFloat);
    CHECK(!at::equal(y, x));
    const at::Tensor y64 = m->perturb(x.to(at::kDouble), {1, 0});
    CHECK(y64.scalar_type() == at::kDouble);
    // The same rows in float64 give the same draws (computed in float32 either way).
    CHECK(at::equal(y64.to(at::kFloat), y));
  }
}

TEST_CASE("bad rows are rejected with a message naming the row", "[mechanisms]") {
  at::Tensor x = test_directions(10, 16, 3);
  for (const char* yaml : kAllMechanisms) {
    INFO(yaml);
    const auto m = make(yaml);
    at::Tensor nan_row = x.clone();
    nan_row[3][5] = std::numeric_limits<float>::quiet_NaN();
    CHECK_THAT(error_of([&] { m->perturb(nan_row, {1, 0}); }),
               Contains("row 3 has a non-finite value") && Contains("column 5"));
    at::Tensor inf_row = x.clone();
    inf_row[7][0] = std::numeric_limits<float>::infinity();
    CHECK_THAT(error_of([&] { m->perturb(inf_row, {1, 0}); }), Contains("row 7"));
    // Row indices are global: a chunk starting at row 100 reports row 103.
    CHECK_THAT(error_of([&] { m->perturb(nan_row, {1, 100}); }), Contains("row 103"));
    CHECK_THAT(error_of([&] { m->perturb(x.index({0}), {1, 0}); }), Contains("2-D batch"));
    CHECK_THAT(error_of([&] { m->perturb(x.narrow(1, 0, 1), {1, 0}); }),
               Contains("dimension d must be >= 2, got 1"));
    CHECK_THAT(error_of([&] { m->perturb(x.to(at::kInt), {1, 0}); }),
               Contains("must be floating point"));
  }
}

TEST_CASE("with several threads the first bad row is the one reported", "[mechanisms]") {
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  at::Tensor x = test_directions(4096, 8, 3);
  // Rows in different parallel tasks: whichever thread meets its bad row first, row 70 is named.
  x[3000][1] = std::numeric_limits<float>::quiet_NaN();
  x[70].zero_();
  x[2000][2] = std::numeric_limits<float>::infinity();
  for (int repeat = 0; repeat < 5; ++repeat) {
    CHECK_THAT(error_of([&] { make(kAllMechanisms[1])->perturb(x, {1, 0}); }),
               Contains("row 70 is a zero vector"));
  }
  // Laplace has no direction to lose: row 70 is fine for it, and row 2000 comes first.
  CHECK_THAT(error_of([&] { make(kAllMechanisms[3])->perturb(x, {1, 0}); }),
             Contains("row 2000 has a non-finite value (inf) at column 2"));
  at::set_num_threads(threads);
}

TEST_CASE("zero vectors are rejected by direction mechanisms only", "[mechanisms]") {
  at::Tensor x = test_directions(5, 16, 3);
  x[2].zero_();
  CHECK_THAT(error_of([&] { make(kAllMechanisms[0])->perturb(x, {1, 0}); }),
             Contains("row 2 is a zero vector"));
  CHECK_THAT(error_of([&] { make(kAllMechanisms[1])->perturb(x, {1, 0}); }),
             Contains("row 2 is a zero vector"));
  CHECK_THAT(error_of([&] { make(kAllMechanisms[4])->perturb(x, {1, 0}); }),
             Contains("row 2 is a zero vector"));
  CHECK_NOTHROW(make(kAllMechanisms[2])->perturb(x, {1, 0}));
  CHECK_NOTHROW(make(kAllMechanisms[3])->perturb(x, {1, 0}));
}

TEST_CASE("bad parameters are rejected with a message naming the parameter", "[mechanisms]") {
  CHECK_THAT(error_of([] { make("{name: vmf, epsilon: -1}"); }),
             Contains("epsilon must be finite and > 0, got -1"));
  CHECK_THAT(error_of([] { make("{name: vmf, epsilon: 0}"); }), Contains("epsilon"));
  CHECK_THAT(error_of([] { make("{name: vmf, epsilon: .nan}"); }),
             Contains("epsilon must be finite"));
  CHECK_THAT(error_of([] { make("{name: vmf_tangent, epsilon: 1, beta: 0}"); }),
             Contains("beta must be finite and > 0, got 0"));
  CHECK_THAT(error_of([] { make("{name: vmf, epsilon: 1, alpha: -2}"); }), Contains("alpha"));
  CHECK_THAT(error_of([] { make("{name: gaussian, epsilon: 1, delta: 1, clip_norm: 1}"); }),
             Contains("delta must be in (0, 1), got 1"));
  CHECK_THAT(error_of([] { make("{name: gaussian, epsilon: 1, delta: 0, clip_norm: 1}"); }),
             Contains("delta must be in (0, 1)"));
  CHECK_THAT(error_of([] { make("{name: laplace, epsilon: 1, clip_norm: -3}"); }),
             Contains("clip_norm must be finite and > 0, got -3"));
  CHECK_THAT(error_of([] { make("{name: gaussian, epsilon: 1}"); }),
             Contains("missing required key 'clip_norm'"));
}

TEST_CASE("outputs depend only on (seed, row), not on threads or chunking", "[mechanisms]") {
  const at::Tensor x = test_directions(300, 64, 11);
  const int threads = at::get_num_threads();
  for (const char* yaml : kAllMechanisms) {
    INFO(yaml);
    const auto m = make(yaml);
    at::set_num_threads(1);
    const at::Tensor one_thread = m->perturb(x, {42, 0});
    at::set_num_threads(2);
    const at::Tensor two_threads = m->perturb(x, {42, 0});
    CHECK(at::equal(one_thread, two_threads));
    // Rows 100..199 processed as their own chunk, with the stream shifted to row 100.
    const at::Tensor chunk = m->perturb(x.narrow(0, 100, 100), RandomStream{42, 0}.shifted(100));
    CHECK(at::equal(chunk, one_thread.narrow(0, 100, 100)));
    // Another seed gives other draws.
    CHECK(!at::equal(m->perturb(x, {43, 0}), one_thread));
  }
  at::set_num_threads(threads);
}

TEST_CASE("the mask leaves public rows untouched (vMF paper, Def. 6.2)", "[mechanisms]") {
  const at::Tensor x = test_directions(40, 32, 5);
  at::Tensor mask = at::ones({40}, at::kLong);
  mask.narrow(0, 0, 10).zero_();
  for (const char* yaml : kAllMechanisms) {
    INFO(yaml);
    const at::Tensor y = make(yaml)->perturb(x, {9, 0}, {at::Tensor(), mask});
    CHECK(at::equal(y.narrow(0, 0, 10), x.narrow(0, 0, 10)));
    for (int i = 10; i < 40; ++i) CHECK(!at::equal(y[i], x[i]));
  }
  CHECK_THAT(error_of([&] { make(kAllMechanisms[0])->perturb(x, {9, 0}, {at::Tensor(), mask.narrow(0, 0, 5)}); }),
             Contains("mask must have shape [40]"));
  at::Tensor bad = mask.clone();
  bad[4] = 2;
  CHECK_THAT(error_of([&] { make(kAllMechanisms[0])->perturb(x, {9, 0}, {at::Tensor(), bad}); }),
             Contains("mask must hold 0 or 1, got 2 at row 4"));
}

TEST_CASE("text rows use eps_text = alpha * eps_sys (vMF paper, Def. 6.1)", "[mechanisms]") {
  const at::Tensor x = test_directions(60, 48, 8);
  at::Tensor modality = at::zeros({60}, at::kLong);
  modality.narrow(0, 30, 30).fill_(static_cast<int>(Modality::text));
  const auto m = make("{name: vmf_tangent, epsilon: 0.5, beta: 1, alpha: 4}");
  REQUIRE(m->epsilon_for(Modality::text) == 2.0);
  REQUIRE(m->epsilon_for(Modality::visual) == 0.5);
  const std::vector<double> cosines = row_cosines(x, m->perturb(x, {3, 0}, {modality, {}}));
  // Algorithm 1 puts every row at exactly cos(arctan(beta/eps)): 0.447 visual, 0.894 text.
  for (int i = 0; i < 60; ++i) {
    const double expected = expected_cosine_tangent(1.0, i < 30 ? 0.5 : 2.0);
    CHECK(std::fabs(cosines[i] - expected) < 2.5e-7);
  }
  CHECK(m->claim(Modality::text).epsilon == 2.0);
}

TEST_CASE("claims say honestly what each method guarantees", "[mechanisms]") {
  CHECK(make(kAllMechanisms[0])->claim().kind == "none");
  CHECK_THAT(make(kAllMechanisms[0])->claim().note, Contains("Thm 4.1"));
  const auto vmf = make("{name: vmf, epsilon: 6, beta: 2}");
  CHECK(vmf->claim().kind == "metric_dp");
  CHECK(vmf->claim().epsilon == 3.0);  // kappa = eps / beta
  CHECK(make(kAllMechanisms[2])->claim().kind == "approx_dp");
  CHECK(make(kAllMechanisms[3])->claim().kind == "pure_dp");
  CHECK_THAT(make(kAllMechanisms[4])->claim().note, Contains("norm ||x|| is released"));
  CHECK_THAT(
      make("{name: gaussian, epsilon: 2, clip_norm: 1, calibration: classic}")->claim().note,
      Contains("NOT proven"));
  CHECK_THAT(
      make("{name: gaussian, epsilon: 0.5, clip_norm: 1, calibration: classic}")->claim().note,
      !Contains("NOT proven"));
}

TEST_CASE("exact vMF stays finite and on the sphere at extreme kappa", "[mechanisms]") {
  const at::Tensor x = test_directions(200, 4096, 2);
  for (double kappa : {1e-6, 1.0, 1e8}) {
    INFO("kappa = " << kappa);
    VmfMechanism m(kappa, 1.0);
    const at::Tensor y = m.perturb(x, {5, 0});
    CHECK(at::isfinite(y).all().item<bool>());
    for (double ratio : row_norm_ratios(x, y)) CHECK(std::fabs(ratio - 1) < 1e-7);
  }
  // At kappa = 1e8 every cosine is within a few standard deviations of A_d(kappa):
  // 1 - w has mean (d-1)/(2 kappa) ~ 2e-5 and sd ~ 5e-7.
  const std::vector<double> cosines = row_cosines(x, VmfMechanism(1e8, 1.0).perturb(x, {5, 0}));
  const double a = vmf_mean_resultant(4096, 1e8);
  for (double c : cosines) CHECK(std::fabs(c - a) < 1e-5);
}
