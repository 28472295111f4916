// Transfer heterogeneity (data/privateai/proxy_skew.h): the proxy's categories ~ Dirichlet(beta p).
// Fixed seeds; the thresholds hold with a wide margin at these seeds and fail when beta is ignored
// (the draw then follows p: distance near 0 at every beta).
#include "tests/catch.h"

#include <algorithm>

#include "data/privateai/proxy_skew.h"

using namespace embpriv;

namespace {

// A pool with every category: 50 units not private, 10 of each private kind.
std::vector<TextUnit> pool_units() {
  std::vector<TextUnit> units;
  for (int i = 0; i < 50; ++i) units.push_back({"unit", 0u, 0});
  for (unsigned k = 0; k < 5; ++k) {
    for (int i = 0; i < 10; ++i) units.push_back({"unit", 1u << k, 0});
  }
  return units;
}

std::vector<const TextUnit*> pointers(const std::vector<TextUnit>& units) {
  std::vector<const TextUnit*> out;
  for (const TextUnit& u : units) out.push_back(&u);
  return out;
}

}  // namespace

TEST_CASE("unit categories: not private, or the first private kind", "[data][privateai]") {
  CHECK(unit_category(0) == 0);
  CHECK(unit_category(kEmailAddress) == 1);
  CHECK(unit_category(kHeaderName) == 5);
  CHECK(unit_category(kIpAddress | kHeaderName) == 3);
  CHECK(total_variation({0.5, 0.5}, {1.0, 0.0}) == Approx(0.5));
}

TEST_CASE("proxy skew: small beta concentrates, large beta follows p", "[data][privateai]") {
  const std::vector<TextUnit> units = pool_units();
  const auto pool = pointers(units);
  const std::vector<double> p = category_shares(pool);  // 0.5, then 0.1 each
  REQUIRE(p[0] == Approx(0.5));
  double small = 0, large = 0;
  const int draws = 20;
  for (int seed = 0; seed < draws; ++seed) {
    const SkewedDraw a = draw_skewed(pool, p, 2000, 0.1, static_cast<std::uint64_t>(seed));
    const SkewedDraw b = draw_skewed(pool, p, 2000, 1000, static_cast<std::uint64_t>(seed));
    REQUIRE(a.units.size() == 2000);
    small += a.distance / draws;
    large += b.distance / draws;
    CHECK(*std::max_element(a.target.begin(), a.target.end()) > 0.5);  // nearly all one category
  }
  INFO("mean TV distance at beta 0.1: " << small << ", at beta 1000: " << large);
  CHECK(small > 0.3);   // E|q - p| large: mass on one category
  CHECK(large < 0.05);  // q ~ p (sd of each share ~ sqrt(p(1-p)/1000)), plus sampling of 2000 units
  // Deterministic for a seed.
  CHECK(draw_skewed(pool, p, 50, 1, 7).units == draw_skewed(pool, p, 50, 1, 7).units);
}

TEST_CASE("proxy skew: bad beta is refused", "[data][privateai]") {
  const std::vector<TextUnit> units = pool_units();
  const auto pool = pointers(units);
  CHECK_THROWS_WITH(draw_skewed(pool, category_shares(pool), 10, 0, 1), Catch::Contains("beta must be finite and > 0"));
}
