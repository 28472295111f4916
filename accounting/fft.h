#pragma once
// A small radix-2 fast Fourier transform (Cooley & Tukey 1965), enough for the privacy-loss
// distributions of accounting/privacy_loss_distribution.h: the composition of T rounds is the
// T-fold convolution of one round's distribution, i.e. a power of its transform.
#include <complex>
#include <cstddef>
#include <vector>

namespace embpriv {

// In place: x[k] <- sum_j x[j] e^(-2 pi i j k / n) (forward) or the same with +i, divided by n
// (inverse), n = x.size() a power of 2. The twiddle factors are computed directly by cos/sin,
// not by a recurrence, so the rounding error stays O(log n) ulp.
void fft_in_place(std::vector<std::complex<double>>& x, bool inverse);

// The smallest power of 2 that is >= n (n >= 1).
std::size_t fft_size_at_least(std::size_t n);

}  // namespace embpriv
