#include "experiments/results/results_fence.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string_view>

#include "core/crc32.h"
#include "core/error.h"

namespace embpriv {
namespace {

constexpr std::string_view kMagic = "EMBPRIV-RESULTS-FENCE\n";
constexpr int kVersion = 1;
// The HDF5 format signature that starts a superblock (HDF5 File Format Specification, sec. II.A).
constexpr std::string_view kHdf5Signature = "\x89HDF\r\n\x1a\n";

std::string crc_text(std::uint32_t crc) {
  char text[9];
  std::snprintf(text, sizeof text, "%08x", crc);
  return text;
}

}  // namespace

std::string sealed_results_image(std::string_view hdf5_image) {
  EMBPRIV_ASSERT(hdf5_image.substr(0, kHdf5Signature.size()) == kHdf5Signature,
                 "the image of a results file does not start with HDF5's superblock");
  std::ostringstream fence;
  fence << kMagic << "version " << kVersion << "\nlength " << kResultsFenceBytes + hdf5_image.size() << "\ncrc32 "
        << crc_text(crc32(hdf5_image)) << "\n";
  std::string sealed = fence.str();
  sealed.resize(kResultsFenceBytes, '\0');
  sealed.append(hdf5_image);
  return sealed;
}

ResultsFence check_results_fence(const std::string& path, const std::string& bytes) {
  const std::string_view all(bytes);
  if (all.substr(0, kHdf5Signature.size()) == kHdf5Signature) return ResultsFence::absent;
  EMBPRIV_CHECK(all.substr(0, kMagic.size()) == kMagic && all.size() >= kResultsFenceBytes,
                path << " is not a readable HDF5 file: it starts with neither embpriv's checksum fence nor "
                     << "HDF5's signature (not an embpriv results file, or its first bytes were overwritten)");
  const std::string damaged = "results file " + path + " is damaged: ";
  int version = 0;
  unsigned long long length = 0;
  char crc[9] = {};
  const std::string fence(all.substr(kMagic.size(), kResultsFenceBytes - kMagic.size()));  // sscanf stops at the padding
  EMBPRIV_CHECK(std::sscanf(fence.c_str(), "version %d\nlength %llu\ncrc32 %8[0-9a-f]\n", &version, &length, crc) == 3,
                damaged << "its checksum fence is unreadable");
  EMBPRIV_CHECK(version == kVersion, damaged << "its checksum fence has version " << version << ", this embpriv reads "
                                             << kVersion << " (written by a newer embpriv?)");
  EMBPRIV_CHECK(length == bytes.size(), damaged << "it holds " << bytes.size() << " bytes, its checksum fence says "
                                                << length << " (truncated or corrupt)");
  const std::string actual = crc_text(crc32(all.substr(kResultsFenceBytes)));
  EMBPRIV_CHECK(actual == crc, damaged << "checksum mismatch (CRC-32 " << actual << ", the fence says " << crc
                                       << "); the file was left as it is");
  return ResultsFence::intact;
}

}  // namespace embpriv
