#pragma once
// CRC-32 as in ISO 3309 / ITU-T V.42, the checksum of zlib, gzip and PNG (reflected polynomial
// 0xEDB88320, initial value and final XOR 0xFFFFFFFF): crc32("123456789") = 0xCBF43926. Used by
// the checksum fence of results files (experiments/results/results_fence.h).
#include <cstdint>
#include <string_view>

namespace embpriv {

// The CRC-32 of `bytes`; `crc` continues a previous call's value (0 to start).
std::uint32_t crc32(std::string_view bytes, std::uint32_t crc = 0);

}  // namespace embpriv
