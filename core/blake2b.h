#pragma once
// BLAKE2b (RFC 7693), unkeyed, with a 32-byte digest: the content hash of the input files a run
// reads (experiments/engine/input_files.h). Written here so that embpriv needs no crypto library:
// about 0.7 GB/s on one core of the CI machine (the 307 MB GloVe JSON in 0.43 s; coreutils'
// `b2sum -l 256` gives the same digest in 0.29 s).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace embpriv {

class Blake2b {
 public:
  static constexpr std::size_t kDigestBytes = 32;

  Blake2b();
  // Adds bytes to the message; may be called any number of times.
  void update(const void* data, std::size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  // The digest of everything added, as 64 lowercase hex digits. Call once.
  std::string hex_digest();

 private:
  void compress(const std::uint8_t* block, bool last);

  std::array<std::uint64_t, 8> h_;
  std::array<std::uint8_t, 128> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t counter_low_ = 0, counter_high_ = 0;  // bytes compressed so far (RFC 7693: t)
};

// The BLAKE2b-256 of `bytes` as hex ("0e5751c0..." for the empty message).
std::string blake2b_256_hex(std::string_view bytes);

}  // namespace embpriv
