#pragma once
// A user's own vectors as types perturbation, inversion and mia read them (data.vectors,
// experiments/types/shared/user_vectors_keys.h): the matrix of an .npy or HDF5 file
// (experiments/results/vector_file.h), one vector per row, and its per-row labels where a type
// trains a classifier on them. The file is checked while the run is planned, before any work, and
// every problem is one ConfigError naming data.vectors and the file (exit code 2).
#include <ATen/core/Tensor.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/engine/run_cache.h"
#include "experiments/types/shared/inversion_data.h"

namespace embpriv {

struct UserVectors {
  at::Tensor vectors;                 // [N, d] float32 on the CPU
  std::vector<std::int64_t> labels;   // the per-row dataset `labels` (0 or 1); empty when the file has none
};

struct UserVectorsShape {
  std::int64_t rows = 0, dim = 0;
  bool labels = false;  // the file has per-row labels of 0 and 1
};

// True when the point's config names a file in data.vectors ('' is the type's built-in data).
bool uses_user_vectors(const YAML::Node& config);

// Reads and checks the file data.vectors names (once per version of the file in this process),
// records it (and an .npy's PATH.json) among the run's input files, and returns its shape.
// ConfigError("data.vectors", "data.vectors: ...") naming the file when it is missing, neither
// .npy nor .h5/.hdf5, lacks data.vectors_dataset, is not 2-D, holds NaN or Inf or a zero row
// (named by its number), has fewer than `min_rows` rows, or, where `labels_for` is not empty (what
// needs them: "mia's classifier"), has no per-row `labels` of 0 and 1.
UserVectorsShape check_user_vectors(const YAML::Node& config, std::int64_t min_rows = 1,
                                    const std::string& labels_for = "");

// The file's vectors and labels, loaded once per run (the run's cache) for run_point.
const UserVectors& load_user_vectors(const YAML::Node& config, RunCache& cache);

// The rows `rows` of `table` as a text whose every sentence is one row ([begin, end) = [i, i + 1)),
// none of them public or special, with the given labels (one per row, or none): the form the
// KNN attack, the sentiment utility and the mia classifiers read (a sentence's mean-pooled
// feature is its row).
PrivateText rows_as_sentences(const at::Tensor& table, const std::vector<std::int64_t>& rows,
                              const std::vector<std::int64_t>& labels);

// For each row of `table`, the first row holding the same bits (the same text embedded twice
// gives the same vector: a guess of either is right).
std::vector<std::int64_t> first_equal_rows(const at::Tensor& table);

}  // namespace embpriv
