#include "core/blake2b.h"

#include <algorithm>
#include <cstring>

namespace embpriv {
namespace {

// RFC 7693, sec. 2.6: the initialisation vector (the SHA-512 IV).
constexpr std::array<std::uint64_t, 8> kIv = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

// RFC 7693, sec. 2.7: the message word permutations of the 12 rounds (rounds 10 and 11 repeat
// 0 and 1).
constexpr std::uint8_t kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

inline std::uint64_t rotate_right(std::uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

inline std::uint64_t load_little_endian(const std::uint8_t* p) {
  std::uint64_t x = 0;
  for (int i = 7; i >= 0; --i) x = (x << 8) | p[i];
  return x;
}

// RFC 7693, sec. 3.1: the mixing function G.
inline void mix(std::uint64_t* v, int a, int b, int c, int d, std::uint64_t x, std::uint64_t y) {
  v[a] = v[a] + v[b] + x;
  v[d] = rotate_right(v[d] ^ v[a], 32);
  v[c] = v[c] + v[d];
  v[b] = rotate_right(v[b] ^ v[c], 24);
  v[a] = v[a] + v[b] + y;
  v[d] = rotate_right(v[d] ^ v[a], 16);
  v[c] = v[c] + v[d];
  v[b] = rotate_right(v[b] ^ v[c], 63);
}

}  // namespace

Blake2b::Blake2b() : h_(kIv) {
  // RFC 7693, sec. 2.5: the parameter block's first word: digest length, no key, fanout and
  // depth 1.
  h_[0] ^= 0x01010000ULL ^ kDigestBytes;
}

// RFC 7693, sec. 3.2: the compression function F over one 128-byte block.
void Blake2b::compress(const std::uint8_t* block, bool last) {
  std::uint64_t m[16], v[16];
  for (int i = 0; i < 16; ++i) m[i] = load_little_endian(block + 8 * i);
  for (int i = 0; i < 8; ++i) {
    v[i] = h_[i];
    v[i + 8] = kIv[i];
  }
  v[12] ^= counter_low_;
  v[13] ^= counter_high_;
  if (last) v[14] = ~v[14];
  for (const auto& s : kSigma) {
    mix(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    mix(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    mix(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    mix(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    mix(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    mix(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    mix(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    mix(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) h_[i] ^= v[i] ^ v[i + 8];
}

void Blake2b::update(const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  while (size > 0) {
    // A full buffer is compressed only once more bytes follow: the last block is compressed by
    // hex_digest with the final flag (RFC 7693, sec. 3.3).
    if (buffered_ == buffer_.size()) {
      counter_low_ += buffer_.size();
      if (counter_low_ < buffer_.size()) ++counter_high_;
      compress(buffer_.data(), false);
      buffered_ = 0;
    }
    const std::size_t take = std::min(size, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    size -= take;
  }
}

std::string Blake2b::hex_digest() {
  counter_low_ += buffered_;
  if (counter_low_ < buffered_) ++counter_high_;
  std::memset(buffer_.data() + buffered_, 0, buffer_.size() - buffered_);
  compress(buffer_.data(), true);
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < kDigestBytes; ++i) {
    const auto byte = static_cast<std::uint8_t>(h_[i / 8] >> (8 * (i % 8)));
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
  return out;
}

std::string blake2b_256_hex(std::string_view bytes) {
  Blake2b hash;
  hash.update(bytes);
  return hash.hex_digest();
}

}  // namespace embpriv
