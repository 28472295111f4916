#include "accounting/fft.h"

#include <cmath>
#include <utility>

#include "core/error.h"

namespace embpriv {

std::size_t fft_size_at_least(std::size_t n) {
  std::size_t size = 1;
  while (size < n) size <<= 1;
  return size;
}

void fft_in_place(std::vector<std::complex<double>>& x, bool inverse) {
  const std::size_t n = x.size();
  EMBPRIV_ASSERT(n >= 1 && (n & (n - 1)) == 0, "fft: the length " << n << " is not a power of 2");
  // Bit-reversal permutation, then log2(n) butterfly passes (iterative Cooley-Tukey).
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  // twiddle[k] = e^(-+2 pi i k / n), k < n / 2; the pass of length len uses every (n / len)-th.
  std::vector<std::complex<double>> twiddle(n / 2);
  const double sign = inverse ? 1.0 : -1.0;
  for (std::size_t k = 0; k < n / 2; ++k) {
    const double angle = 2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n);
    twiddle[k] = {std::cos(angle), sign * std::sin(angle)};
  }
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const std::size_t half = len / 2, stride = n / len;
    for (std::size_t start = 0; start < n; start += len) {
      for (std::size_t k = 0; k < half; ++k) {
        // The product written out: std::complex's operator* checks for NaN and inf (C99 Annex G)
        // on every call, which costs more than the arithmetic.
        const std::complex<double> u = x[start + k], a = x[start + k + half], w = twiddle[k * stride];
        const std::complex<double> v(a.real() * w.real() - a.imag() * w.imag(), a.real() * w.imag() + a.imag() * w.real());
        x[start + k] = u + v;
        x[start + k + half] = u - v;
      }
    }
  }
  if (inverse) {
    const double scale = 1.0 / static_cast<double>(n);
    for (auto& value : x) value *= scale;
  }
}

}  // namespace embpriv
