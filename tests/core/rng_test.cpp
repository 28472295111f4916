// Seeding and the generator's basic contracts. The distribution of its normal, exponential and
// Laplace variates is tested with KS tests in tests/mechanisms/noise_distribution_test.cpp.
#include "tests/catch.h"
#include <cmath>
#include <set>

#include "core/rng.h"

using namespace embpriv;

TEST_CASE("derived seeds differ by run seed, point and purpose", "[core][rng]") {
  std::set<std::uint64_t> seeds;
  for (std::uint64_t run : {0, 1, 2}) {
    for (std::uint64_t point : {0, 1, 1000}) {
      for (const char* purpose : {"inputs", "mechanism", "mechanism:x1"}) {
        seeds.insert(derive_seed(run, point, purpose));
      }
    }
  }
  CHECK(seeds.size() == 27);
  CHECK(derive_seed(5, 6, "inputs") == derive_seed(5, 6, "inputs"));
}

TEST_CASE("fnv1a64 gives the published FNV-1a test vectors; derive_seed is pinned", "[core][rng]") {
  // Test vectors of the FNV reference code (Fowler, Noll, Vo: test_fnv.c, FNV-1a 64-bit).
  CHECK(fnv1a64("") == 0xcbf29ce484222325ULL);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a64("foobar") == 0x85944171f73967e8ULL);
  // Every seed of every stored result depends on this value: a change of the hash or of the
  // mixing would silently change all numbers.
  CHECK(derive_seed(5, 6, "inputs") == 0x63e2bb6425254fd2ULL);
}

TEST_CASE("a row's generator depends only on (seed, row)", "[core][rng]") {
  Rng a(7, 3), b(7, 3), c(7, 4), d(8, 3);
  const std::uint64_t first = a.next_u64();
  CHECK(first == b.next_u64());
  CHECK(first != c.next_u64());
  CHECK(first != d.next_u64());
}

TEST_CASE("uniform draws stay in their intervals", "[core][rng]") {
  Rng rng(1, 0);
  for (int i = 0; i < 100000; ++i) {
    const double u = rng.uniform(), v = rng.uniform_open();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    REQUIRE(v > 0.0);
    REQUIRE(v < 1.0);
  }
}

TEST_CASE("gamma and beta draws have the right means", "[core][rng]") {
  // Means of n = 200000 draws; the bound is 5.3 standard errors (two-sided alpha ~ 1e-7).
  constexpr int n = 200000;
  for (double shape : {0.5, 1.0, 3.5, 2047.5}) {
    Rng rng(3, static_cast<std::uint64_t>(shape * 10));
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += rng.gamma(shape);
    INFO("shape = " << shape);
    CHECK(std::fabs(sum / n - shape) < 5.3 * std::sqrt(shape / n));  // Var Gamma(k) = k
  }
  Rng rng(4, 0);
  double sum = 0;
  const double a = 2.0, b = 6.0;  // mean 0.25, variance ab / ((a+b)^2 (a+b+1)) = 1/48
  for (int i = 0; i < n; ++i) sum += rng.beta(a, b);
  CHECK(std::fabs(sum / n - 0.25) < 5.3 * std::sqrt(1.0 / 48.0 / n));
}
