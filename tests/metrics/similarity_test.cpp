// Tests of metrics/similarity.h: per-row cosines, angles, norms, ratios and dot products.
#include "metrics/similarity.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include "tests/catch.h"
#include <cmath>
#include <vector>

#include "core/error.h"

namespace {

at::Tensor rows(std::vector<float> values, std::int64_t n, std::int64_t d) {
  return at::from_blob(values.data(), {n, d}, at::kFloat).clone();
}

// A reproducible random batch (torch's CPU generator with a fixed seed).
at::Tensor random_batch(std::int64_t n, std::int64_t d, std::uint64_t seed) {
  at::Generator generator = at::detail::createCPUGenerator(seed);
  return at::randn({n, d}, generator, at::kFloat);
}

}  // namespace

TEST_CASE("row statistics of small exact cases", "[similarity]") {
  const at::Tensor x = rows({3, 4, 1, 0, 2, 0, 1, 1}, 4, 2);
  const at::Tensor y = rows({4, 3, 0, 5, -3, 0, 2, 2}, 4, 2);
  const std::vector<double> cosines = embpriv::row_cosines(x, y);
  REQUIRE(cosines.size() == 4);
  CHECK(cosines[0] == 24.0 / 25.0);  // (3,4).(4,3) / (5 * 5)
  CHECK(cosines[1] == 0.0);
  CHECK(cosines[2] == -1.0);
  CHECK(cosines[3] == Approx(1.0).epsilon(1e-15));
  const std::vector<double> angles = embpriv::row_angles(x, y);
  CHECK(angles[0] == std::acos(24.0 / 25.0));
  CHECK(angles[1] == Approx(M_PI / 2).epsilon(1e-15));
  CHECK(angles[2] == Approx(M_PI).epsilon(1e-15));
  CHECK(angles[3] == Approx(0.0).margin(1e-7));  // acos near 1 amplifies the last ulp
  CHECK(embpriv::row_norms(x) == std::vector<double>{5.0, 1.0, 2.0, std::sqrt(2.0)});
  CHECK(embpriv::row_norm_ratios(x, y) == std::vector<double>{1.0, 5.0, 1.5, 2.0});
  CHECK(embpriv::row_dots(x, y) == std::vector<double>{24.0, 0.0, -6.0, 4.0});
}

TEST_CASE("row statistics agree with a long-double reference on random rows", "[similarity]") {
  const std::int64_t n = 200, d = 768;
  const at::Tensor x = random_batch(n, d, 1);
  const at::Tensor y = random_batch(n, d, 2) + 0.5 * x;
  const std::vector<double> cosines = embpriv::row_cosines(x, y);
  const std::vector<double> ratios = embpriv::row_norm_ratios(x, y);
  const std::vector<double> dots = embpriv::row_dots(x, y);
  const float* px = x.data_ptr<float>();
  const float* py = y.data_ptr<float>();
  for (std::int64_t i = 0; i < n; ++i) {
    long double xx = 0, yy = 0, xy = 0;
    for (std::int64_t j = 0; j < d; ++j) {
      const long double a = px[i * d + j], b = py[i * d + j];
      xx += a * a;
      yy += b * b;
      xy += a * b;
    }
    INFO("row " << i);
    CHECK(cosines[i] == Approx(static_cast<double>(xy / std::sqrt(xx * yy))).epsilon(1e-12));
    CHECK(ratios[i] == Approx(static_cast<double>(std::sqrt(yy / xx))).epsilon(1e-13));
    CHECK(dots[i] == Approx(static_cast<double>(xy)).epsilon(1e-12));
  }
}

TEST_CASE("row statistics are bit-identical across thread counts, dtypes and batch splits",
          "[similarity]") {
  const at::Tensor x = random_batch(300, 64, 3);
  const at::Tensor y = random_batch(300, 64, 4);
  const int threads_before = at::get_num_threads();
  at::set_num_threads(1);
  const std::vector<double> one_thread = embpriv::row_cosines(x, y);
  at::set_num_threads(2);
  const std::vector<double> two_threads = embpriv::row_cosines(x, y);
  at::set_num_threads(threads_before);
  CHECK(one_thread == two_threads);
  // A row's value does not depend on the rest of the batch.
  const std::vector<double> tail = embpriv::row_cosines(x.slice(0, 100), y.slice(0, 100));
  CHECK(std::vector<double>(one_thread.begin() + 100, one_thread.end()) == tail);
  // Any floating dtype is accepted and converted to float32 first: float32-representable
  // float64 input gives the same bits; non-contiguous input too.
  CHECK(embpriv::row_cosines(x.to(at::kDouble), y.to(at::kDouble)) == one_thread);
  CHECK(embpriv::row_cosines(x.t().contiguous().t(), y) == one_thread);
  CHECK(embpriv::row_norms(x.to(at::kHalf)).size() == 300);
}

TEST_CASE("row statistics reject bad shapes, dtypes, zero rows and non-finite values",
          "[similarity]") {
  const at::Tensor a = at::ones({2, 3});
  const at::Tensor b = at::ones({3, 3});
  CHECK_THROWS_WITH(embpriv::row_cosines(a, b),
                    Catch::Contains("[2, 3]") && Catch::Contains("[3, 3]"));
  CHECK_THROWS_AS(embpriv::row_dots(a, b), embpriv::Error);
  CHECK_THROWS_AS(embpriv::row_norms(at::ones({3})), embpriv::Error);
  CHECK_THROWS_WITH(embpriv::row_norms(at::ones({2, 2}, at::kLong)),
                    Catch::Contains("floating point"));
  at::Tensor with_zero = at::ones({2, 3});
  with_zero[1].zero_();
  CHECK_THROWS_WITH(embpriv::row_cosines(with_zero, a), Catch::Contains("row 1"));
  CHECK_THROWS_AS(embpriv::row_norm_ratios(with_zero, a), embpriv::Error);
  at::Tensor with_nan = at::ones({2, 3});
  with_nan[0][2] = std::nan("");
  CHECK_THROWS_WITH(embpriv::row_dots(a, with_nan), Catch::Contains("non-finite"));
  // An empty batch gives an empty result.
  CHECK(embpriv::row_cosines(at::ones({0, 3}), at::ones({0, 3})).empty());
}
