// CRC-32 against the check values of its specification and of zlib.
#include "core/crc32.h"

#include <string>

#include "tests/catch.h"

using namespace embpriv;

TEST_CASE("crc32 gives the published check values", "[core]") {
  // The "check" of CRC-32/ISO-HDLC (the CRC RevEng catalogue) and the classic pangram, whose
  // CRC-32 zlib's crc32() gives as 0x414fa339.
  CHECK(crc32("123456789") == 0xCBF43926u);
  CHECK(crc32("The quick brown fox jumps over the lazy dog") == 0x414FA339u);
  CHECK(crc32("") == 0u);
  // Continuing a previous value gives the CRC of the concatenation.
  CHECK(crc32("6789", crc32("12345")) == 0xCBF43926u);
  // Every single-bit change of a message changes its CRC (CRC-32 detects all 1-bit errors).
  const std::string message = "embpriv results file";
  const std::uint32_t original = crc32(message);
  for (std::size_t i = 0; i < message.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = message;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      CHECK(crc32(damaged) != original);
    }
  }
}
