#include "core/rng.h"

namespace embpriv {
namespace {

template <class Density, class InverseDensity>
ZigguratTables make_tables(double r, double v, Density f, InverseDensity f_inverse) {
  ZigguratTables t;
  constexpr int c = ZigguratTables::kLayers;
  t.x[0] = v / f(r);
  t.x[1] = r;
  for (int i = 2; i < c; ++i) t.x[i] = f_inverse(v / t.x[i - 1] + f(t.x[i - 1]));
  t.x[c] = 0.0;
  for (int i = 0; i <= c; ++i) t.fx[i] = f(t.x[i]);
  for (int i = 0; i < c; ++i) t.ratio[i] = t.x[i + 1] / t.x[i];
  return t;
}

}  // namespace

// Standard normal, unnormalised density exp(-x^2/2): R and V for 256 layers from
// Marsaglia & Tsang (2000), Table 1.
const ZigguratTables kNormalZiggurat = make_tables(
    3.6541528853610088, 0.00492867323399, [](double x) { return std::exp(-0.5 * x * x); },
    [](double y) { return std::sqrt(-2.0 * std::log(y)); });

// Standard exponential, density exp(-x): R and V for 256 layers from Marsaglia & Tsang (2000).
const ZigguratTables kExponentialZiggurat = make_tables(
    7.69711747013104972, 0.0039496598225815571993, [](double x) { return std::exp(-x); },
    [](double y) { return -std::log(y); });

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a offset basis and prime (64-bit)
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::uint64_t derive_seed(std::uint64_t run_seed, std::uint64_t point, std::string_view purpose) {
  // FNV-1a of the purpose string, then SplitMix64 mixing of the three parts.
  return splitmix64(splitmix64(splitmix64(run_seed) ^ point) ^ fnv1a64(purpose));
}

Rng::Rng(std::uint64_t seed, std::uint64_t row) {
  // Seeding xoshiro from SplitMix64 outputs, as its authors recommend.
  std::uint64_t z = splitmix64(seed ^ splitmix64(row + 0x632BE59BD9B4E019ULL));
  for (auto& s : s_) {
    z += 0x9E3779B97F4A7C15ULL;
    s = splitmix64(z);
  }
}

double Rng::normal_slow(int layer, double u) {
  const auto& t = kNormalZiggurat;
  for (;;) {
    if (layer == 0) {
      // Tail beyond R (Marsaglia 1964): x = -ln(U1)/R, accept if -2 ln(U2) > x^2.
      const double r = t.x[1];
      double x, y;
      do {
        x = -std::log(uniform_open()) / r;
        y = -std::log(uniform_open());
      } while (2.0 * y < x * x);
      return u < 0 ? -(r + x) : r + x;
    }
    // Wedge: a point (x, y) with y uniform between f(x[layer]) and f(x[layer+1]).
    const double x = u * t.x[layer];
    const double y = t.fx[layer] + uniform() * (t.fx[layer + 1] - t.fx[layer]);
    if (y < std::exp(-0.5 * x * x)) return x;
    const std::uint64_t bits = next_u64();
    layer = static_cast<int>(bits & 0xFF);
    u = static_cast<double>(static_cast<std::int64_t>(bits >> 11) - (1LL << 52)) * 0x1.0p-52;
    if (std::fabs(u) < t.ratio[layer]) return u * t.x[layer];
  }
}

double Rng::exponential_slow(int layer, double u) {
  const auto& t = kExponentialZiggurat;
  for (;;) {
    // The tail beyond R of an exponential is R + Exp(1) (memorylessness).
    if (layer == 0) return t.x[1] - std::log(uniform_open());
    const double x = u * t.x[layer];
    const double y = t.fx[layer] + uniform() * (t.fx[layer + 1] - t.fx[layer]);
    if (y < std::exp(-x)) return x;
    const std::uint64_t bits = next_u64();
    layer = static_cast<int>(bits & 0xFF);
    u = static_cast<double>(bits >> 11) * 0x1.0p-53;
    if (u < t.ratio[layer]) return u * t.x[layer];
  }
}

double Rng::gamma(double shape) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) * U^(1/a) (Marsaglia & Tsang 2000, sec. 6).
    return gamma(shape + 1.0) * std::pow(uniform_open(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform_open();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;  // squeeze
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

double Rng::beta(double a, double b) {
  const double ga = gamma(a);
  const double gb = gamma(b);
  return ga / (ga + gb);
}

}  // namespace embpriv
