#pragma once
// A file of vectors a user brings or takes away: a matrix [N, d] (one vector per row), the 1-D
// per-row datasets beside it (ids, token_counts, ...) and the attributes that say how it was
// made (the mechanism, its seed and privacy claim; the model and pooling). Two formats, chosen
// by the path's extension:
//   .h5 / .hdf5: the matrix as a 2-D float32 dataset (`vectors` by default), every per-row
//                column as a 1-D dataset of the same root group, the attributes on the root
//                (numbers as numbers, so h5py's f.attrs["epsilon_actual"] is a float);
//   .npy:        the matrix alone (NumPy format 1.0, little-endian float32, C order), and the
//                attributes and per-row columns in PATH.json beside it (NumPy has no room for them).
// Files are written atomically (core/atomic_file.h): a reader sees the old file or the new one.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "experiments/results/results_table.h"

namespace embpriv {

using VectorAttribute = std::variant<std::string, double, std::int64_t>;

struct VectorFile {
  at::Tensor vectors;                                  // [N, d] float32, CPU
  std::vector<Column> row_columns;                     // 1-D, N values each (ids, token_counts)
  std::map<std::string, VectorAttribute> attributes;  // the root attributes
};

// True for .npy, false for .h5 / .hdf5; any other extension is refused naming the path and
// `role` ("IN", "OUT").
bool is_npy_path(const std::string& path, const std::string& role);

// Reads a .npy (2-D float16/32/64, C order; the per-row columns of PATH.json where that exists)
// or an HDF5 file's 2-D dataset `dataset` and every 1-D root dataset of one value per row.
// A missing file, a missing dataset (the message lists the file's datasets), a matrix that is
// not 2-D, or a NaN/Inf value is one embpriv::Error naming the file and the dataset.
VectorFile read_vector_file(const std::string& path, const std::string& dataset = "vectors");

// Writes `file` to `path` as its extension says (the matrix as `dataset` in HDF5). Per-row
// columns must hold one value per row and not be named `dataset`.
void write_vector_file(const std::string& path, const VectorFile& file, const std::string& dataset = "vectors");

}  // namespace embpriv
