#pragma once
// The checksum fence of results files. libhdf5 (1.10.8) can crash inside H5Fopen and later
// reads on a damaged file (fuzz/results_h5_fuzz.cpp found reads past buffers in
// H5F__accum_read and H5HG_read), which no check after opening can prevent. embpriv builds a
// results file in memory and writes it at once (core/atomic_file.h), so it can seal the whole
// image: the file starts with an HDF5 user block (H5Pset_userblock; HDF5 and h5py read such files
// unchanged) holding, as text,
//   EMBPRIV-RESULTS-FENCE
//   version 1
//   length <the file's size in bytes>
//   crc32 <8 hex digits: CRC-32 (core/crc32.h) of every byte after the block>
// padded with zeros to kResultsFenceBytes. The reader checks the fence before HDF5 sees a byte.
// Files without a fence (written by embpriv before the fence) start with HDF5's signature and
// are still read, unprotected.
#include <cstddef>
#include <string>
#include <string_view>

namespace embpriv {

// The user block's size: HDF5's smallest (a power of two >= 512).
inline constexpr std::size_t kResultsFenceBytes = 512;

// The file's bytes: the fence of `hdf5_image`, then the image (the bytes H5Fget_file_image gives
// of a file created with a kResultsFenceBytes user block: everything after the block).
std::string sealed_results_image(std::string_view hdf5_image);

// What check_results_fence found.
enum class ResultsFence { intact, absent };

// Checks the bytes of the results file `path` before HDF5 reads them: `intact` when the fence
// matches, `absent` when the file starts with HDF5's signature (an unfenced file). Throws
// embpriv::Error "results file PATH is damaged: ..." when the fence does not match (checksum,
// length or version), or when the file has neither a fence nor HDF5's signature at its start.
ResultsFence check_results_fence(const std::string& path, const std::string& bytes);

}  // namespace embpriv
