#include "experiments/types/shared/user_vectors.h"

#include <ATen/ATen.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "core/error.h"
#include "data/tables/data_paths.h"
#include "experiments/engine/experiment_type.h"
#include "experiments/engine/input_files.h"
#include "experiments/results/vector_file.h"
#include "experiments/types/shared/user_vectors_keys.h"

namespace embpriv {
namespace {

using namespace user_vectors_key;

std::string resolved_path(const std::string& path) {
  try {
    return resolve_data_path(path);
  } catch (const Error& e) {
    throw ConfigError(kVectors.path(), kVectors.path() + ": " + e.what());
  }
}

// The per-row `labels` of a file as 0/1 integers; empty when it has no such dataset. Integer or
// floating-point datasets holding other values are refused naming the row.
std::vector<std::int64_t> labels_of(const VectorFile& file, const std::string& path) {
  for (const Column& c : file.row_columns) {
    if (c.name != "labels") continue;
    std::vector<std::int64_t> labels;
    if (const auto* integers = std::get_if<std::vector<std::int64_t>>(&c.values)) {
      labels = *integers;
    } else if (const auto* numbers = std::get_if<std::vector<double>>(&c.values)) {
      for (double v : *numbers) labels.push_back(v == 0.0 ? 0 : (v == 1.0 ? 1 : -1));
    } else {
      EMBPRIV_CHECK(false, path << ": its per-row dataset 'labels' holds text; it must hold 0 or 1 per row");
    }
    for (std::size_t i = 0; i < labels.size(); ++i) {
      EMBPRIV_CHECK(labels[i] == 0 || labels[i] == 1,
                    path << ": labels must be 0 or 1 (a binary classifier reads them), row " << i << " is not");
    }
    return labels;
  }
  return {};
}

// Reads the file and checks what every type needs: finite (read_vector_file) and no zero row,
// whose direction (cosine, vMF) is undefined.
UserVectors read_checked(const std::string& path, const std::string& dataset) {
  VectorFile file = read_vector_file(path, dataset);
  const at::Tensor zero = (file.vectors.abs().amax(1) == 0).nonzero();
  EMBPRIV_CHECK(zero.numel() == 0, path << ": row " << zero[0][0].item<std::int64_t>() << " of '" << dataset
                                        << "' is zero (" << zero.numel()
                                        << " zero rows): its direction is undefined; drop such rows");
  UserVectors out;
  out.labels = labels_of(file, path);
  out.vectors = file.vectors.to(at::kFloat).contiguous();
  return out;
}

// A version of the file: its path, dataset, size and modification time (and its .npy.json's).
std::string version_key(const std::string& resolved, const std::string& dataset) {
  std::string key = resolved + "\n" + dataset;
  for (const std::string& p : {resolved, resolved + ".json"}) {
    std::error_code error;
    const auto size = std::filesystem::file_size(p, error);
    if (error) continue;
    key += "\n" + std::to_string(size) + " " +
           std::to_string(std::filesystem::last_write_time(p, error).time_since_epoch().count());
  }
  return key;
}

}  // namespace

bool uses_user_vectors(const YAML::Node& config) { return !kVectors(config).empty(); }

UserVectorsShape check_user_vectors(const YAML::Node& config, std::int64_t min_rows, const std::string& labels_for) {
  const std::string path = kVectors(config), dataset = kDataset(config);
  const std::string resolved = resolved_path(path);
  record_input_file({kVectors.path(), path, resolved});
  if (std::filesystem::exists(resolved + ".json")) record_input_file({kVectors.path(), path + ".json", resolved + ".json"});
  // Every distinct point is checked: the file is read once per version, not once per point.
  static std::mutex mutex;
  static std::map<std::string, UserVectorsShape> checked;
  const std::string key = version_key(resolved, dataset);
  UserVectorsShape shape;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto found = checked.find(key);
    if (found != checked.end()) shape = found->second;
  }
  if (shape.rows == 0) {
    try {
      const UserVectors v = read_checked(resolved, dataset);
      shape = {v.vectors.size(0), v.vectors.size(1), !v.labels.empty()};
    } catch (const Error& e) {
      throw ConfigError(kVectors.path(), kVectors.path() + ": " + e.what());
    }
    std::lock_guard<std::mutex> lock(mutex);
    checked[key] = shape;
  }
  require_key(shape.rows >= min_rows, kVectors.path(),
              "'" + path + "' has " + std::to_string(shape.rows) + " rows; this type needs at least " +
                  std::to_string(min_rows));
  require_key(labels_for.empty() || shape.labels, kVectors.path(),
              "'" + path + "' has no per-row dataset 'labels' (0 or 1 per row), which " + labels_for +
                  " needs (embpriv embed writes it from a sentences JSON with labels)");
  return shape;
}

const UserVectors& load_user_vectors(const YAML::Node& config, RunCache& cache) {
  const std::string path = kVectors(config), dataset = kDataset(config);
  const std::string resolved = resolved_path(path);
  return cache.get_or_make<UserVectors>("user_vectors\n" + resolved + "\n" + dataset, [&] {
    try {
      return read_checked(resolved, dataset);
    } catch (const Error& e) {
      throw Error(kVectors.path() + ": " + e.what());
    }
  });
}

PrivateText rows_as_sentences(const at::Tensor& table, const std::vector<std::int64_t>& rows,
                              const std::vector<std::int64_t>& labels) {
  PrivateText text;
  text.table = text.search_table = table;
  text.special = at::zeros({table.size(0)}, at::kBool);
  for (std::int64_t row : rows) {
    text.spans.emplace_back(text.flat.size(), text.flat.size() + 1);
    text.flat.push_back(row);
    if (!labels.empty()) text.labels.push_back(labels[static_cast<std::size_t>(row)]);
  }
  text.public_tokens = at::zeros({static_cast<std::int64_t>(rows.size())}, at::kBool);
  return text;
}

std::vector<std::int64_t> first_equal_rows(const at::Tensor& table) {
  const at::Tensor rows = table.contiguous();
  const std::int64_t n = rows.size(0);
  const std::size_t bytes = static_cast<std::size_t>(rows.size(1)) * rows.element_size();
  const char* base = static_cast<const char*>(rows.data_ptr());
  std::unordered_map<std::string_view, std::int64_t> first;
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::string_view row(base + static_cast<std::size_t>(i) * bytes, bytes);
    out[static_cast<std::size_t>(i)] = first.emplace(row, i).first->second;
  }
  return out;
}

}  // namespace embpriv
