#pragma once
// Seeding and random draws. Every draw of embpriv comes from a generator seeded from
// (run seed, grid point, purpose) (GUIDE.md, sec. 3); inside a batch each row has its own
// generator, seeded from (stream seed, global row index), so a row's output depends neither on
// the batch or chunk it was processed in nor on the thread count.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace embpriv {

// Ziggurat tables for a decreasing density f on [0, inf) with 256 layers of equal area V
// (Marsaglia & Tsang 2000). x[0] = V / f(R) is the virtual width of the base layer (rectangle
// plus tail), x[1] = R is where the tail starts, x[256] = 0. ratio[i] = x[i+1] / x[i] is the
// fast-accept bound; fx[i] = f(x[i]).
struct ZigguratTables {
  static constexpr int kLayers = 256;
  std::array<double, kLayers + 1> x{};
  std::array<double, kLayers + 1> fx{};
  std::array<double, kLayers> ratio{};
};
// Built once at start-up (core/rng.cpp).
extern const ZigguratTables kNormalZiggurat;
extern const ZigguratTables kExponentialZiggurat;

// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
constexpr std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// 64-bit FNV-1a of a string's bytes (Fowler, Noll and Vo; offset basis 0xcbf29ce484222325,
// prime 0x100000001b3): the purpose hash of derive_seed, the identity of a grid point, the hash
// of a config, the seed of a bounds setting.
std::uint64_t fnv1a64(std::string_view text);

// The seed of one purpose ("mechanism", "inputs", ...) at one grid point of one run.
std::uint64_t derive_seed(std::uint64_t run_seed, std::uint64_t point, std::string_view purpose);

// The seed stream of a batch: row i of the batch draws from Rng(seed, first_row + i).
struct RandomStream {
  std::uint64_t seed = 0;
  std::int64_t first_row = 0;
  // The stream of rows [first_row + offset, ...): used when a batch is processed in chunks.
  RandomStream shifted(std::int64_t offset) const { return {seed, first_row + offset}; }
};

// xoshiro256++ (Blackman & Vigna 2019) with ziggurat normal and exponential variates
// (Marsaglia & Tsang 2000, 256 layers; Doornik 2005 for the layout of the tables).
class Rng {
 public:
  Rng(std::uint64_t seed, std::uint64_t row);

  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[0] + s_[3], 23) + s_[0];
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform on [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform on (0, 1): never 0, safe under log().
  double uniform_open() { return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1.0p-53; }
  // Standard normal. The fast path (about 98.8% of draws: inside a layer's rectangle) is
  // inline; wedges and the tail go to normal_slow.
  double normal() {
    const std::uint64_t bits = next_u64();
    const int layer = static_cast<int>(bits & 0xFF);
    // 53 high bits give u uniform in [-1, 1); the low 8 bits chose the layer.
    const double u =
        static_cast<double>(static_cast<std::int64_t>(bits >> 11) - (1LL << 52)) * 0x1.0p-52;
    if (std::fabs(u) < kNormalZiggurat.ratio[layer]) return u * kNormalZiggurat.x[layer];
    return normal_slow(layer, u);
  }
  double exponential() { return exponential_from(next_u64()); }
  // Laplace(0, 1): an exponential with a random sign (bit 8 of the draw, which the ziggurat
  // itself does not use: it takes bits 0-7 for the layer and 11-63 for the abscissa).
  double laplace() {
    const std::uint64_t bits = next_u64();
    // The sign is bit 8 of the same draw (the exponential uses bits 0-7 and 11-63), moved to
    // the sign bit of the double: no data-dependent branch in the noise loop.
    const double magnitude = exponential_from(bits);
    std::uint64_t pattern;
    std::memcpy(&pattern, &magnitude, sizeof pattern);
    pattern ^= (bits & 0x100) << 55;
    double value;
    std::memcpy(&value, &pattern, sizeof value);
    return value;
  }
  // A uniform index in [0, n), n >= 1.
  std::int64_t uniform_index(std::int64_t n) {
    const auto i = static_cast<std::int64_t>(uniform() * static_cast<double>(n));
    return i < n - 1 ? i : n - 1;
  }
  // Gamma(shape, 1) by Marsaglia & Tsang (2000); shape < 1 through their boost
  // Gamma(a) = Gamma(a + 1) * U^(1/a).
  double gamma(double shape);
  // Beta(a, b) as G_a / (G_a + G_b).
  double beta(double a, double b);

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  double normal_slow(int layer, double u);
  // Standard exponential from one 64-bit draw; fast path inline as for normal().
  double exponential_from(std::uint64_t bits) {
    const int layer = static_cast<int>(bits & 0xFF);
    const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;  // uniform in [0, 1)
    if (u < kExponentialZiggurat.ratio[layer]) return u * kExponentialZiggurat.x[layer];
    return exponential_slow(layer, u);
  }
  double exponential_slow(int layer, double u);
  std::uint64_t s_[4];
};

// Fisher-Yates shuffle from the last element down (Knuth, TAOCP vol. 2, Algorithm 3.4.2P):
// every shuffle of embpriv, so a seed gives the same order everywhere.
template <class T>
void shuffle(std::vector<T>& items, Rng& rng) {
  for (auto i = static_cast<std::int64_t>(items.size()) - 1; i > 0; --i) {
    std::swap(items[static_cast<std::size_t>(i)], items[static_cast<std::size_t>(rng.uniform_index(i + 1))]);
  }
}

}  // namespace embpriv
