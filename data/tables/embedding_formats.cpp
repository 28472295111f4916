// Embedding tables from text, .npy, safetensors and HDF5 files.
#include "data/tables/embedding_formats.h"

#include <ATen/ATen.h>
#include <fcntl.h>
#include <hdf5.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "data/tables/hdf5_handle.h"

namespace embpriv {
namespace {

std::vector<std::string> numbered_words(std::int64_t n) {
  std::vector<std::string> words;
  for (std::int64_t i = 0; i < n; ++i) words.push_back(std::to_string(i));
  return words;
}

std::vector<std::string> read_words(const std::string& path, std::int64_t n) {
  if (path.empty()) return numbered_words(n);
  std::ifstream in(path);
  EMBPRIV_CHECK(in, "cannot read the words file '" << path << "'");
  std::vector<std::string> words;
  for (std::string line; std::getline(in, line);) words.push_back(line);
  EMBPRIV_CHECK(static_cast<std::int64_t>(words.size()) == n,
                path << " has " << words.size() << " words for " << n << " rows");
  return words;
}

std::string read_all(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read " << what << " '" << path << "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// A [rows, cols] tensor of `type` over raw little-endian bytes, as float32.
at::Tensor float_matrix(const char* data, std::int64_t rows, std::int64_t cols, at::ScalarType type) {
  return at::from_blob(const_cast<char*>(data), {rows, cols}, type).to(at::kFloat).clone();
}

}  // namespace

EmbeddingTable read_text_vectors(const std::string& path) {
  std::ifstream in(path);
  EMBPRIV_CHECK(in, "cannot read text vectors '" << path << "'");
  std::vector<std::string> words;
  std::vector<float> values;
  std::int64_t d = -1, line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string word;
    fields >> word;
    std::vector<float> row;
    for (std::string field; fields >> field;) {
      char* end = nullptr;
      const float value = std::strtof(field.c_str(), &end);
      EMBPRIV_CHECK(end && *end == '\0', path << " line " << line_number << ": '" << field << "' is not a number");
      row.push_back(value);
    }
    // word2vec text starts with "V d".
    if (line_number == 1 && row.size() == 1 && word.find_first_not_of("0123456789") == std::string::npos) continue;
    EMBPRIV_CHECK(!row.empty(), path << " line " << line_number << ": a word without a vector");
    if (d < 0) d = static_cast<std::int64_t>(row.size());
    EMBPRIV_CHECK(static_cast<std::int64_t>(row.size()) == d,
                  path << " line " << line_number << ": " << row.size() << " values, the first line had " << d);
    words.push_back(word);
    values.insert(values.end(), row.begin(), row.end());
  }
  EMBPRIV_CHECK(!words.empty(), path << " holds no vectors");
  const at::Tensor matrix = at::from_blob(values.data(), {static_cast<std::int64_t>(words.size()), d}, at::kFloat).clone();
  return EmbeddingTable(std::move(words), matrix, path);
}

EmbeddingTable read_npy(const std::string& path, const std::string& words_path) {
  const std::string bytes = read_all(path, "the .npy file");
  EMBPRIV_CHECK(bytes.size() >= 10 && bytes.compare(0, 6, "\x93NUMPY") == 0, path << " is not a .npy file");
  const int major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_length = 0, start = 0;
  if (major == 1) {
    header_length = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    start = 10;
  } else {
    EMBPRIV_CHECK(bytes.size() >= 12, path << " is truncated inside its header");
    std::uint32_t length;
    std::memcpy(&length, bytes.data() + 8, 4);
    header_length = length;
    start = 12;
  }
  EMBPRIV_CHECK(bytes.size() >= start + header_length, path << " is truncated inside its header");
  const std::string header = bytes.substr(start, header_length);
  std::smatch descr, shape, order;
  EMBPRIV_CHECK(std::regex_search(header, descr, std::regex("'descr':\\s*'([<|>]?)([fi])(\\d)'")),
                path << ": unsupported dtype in header " << header);
  EMBPRIV_CHECK(std::regex_search(header, order, std::regex("'fortran_order':\\s*(True|False)")) && order[1] == "False",
                path << ": Fortran-order arrays are not supported (save with np.ascontiguousarray)");
  EMBPRIV_CHECK(std::regex_search(header, shape, std::regex("'shape':\\s*\\((\\d+),\\s*(\\d+),?\\s*\\)")),
                path << ": the array must be 2-D [V, d], header " << header);
  EMBPRIV_CHECK(descr[1] != ">", path << ": big-endian arrays are not supported");
  at::ScalarType type;
  if (descr[2] == "f" && descr[3] == "4") {
    type = at::kFloat;
  } else if (descr[2] == "f" && descr[3] == "8") {
    type = at::kDouble;
  } else if (descr[2] == "f" && descr[3] == "2") {
    type = at::kHalf;
  } else {
    throw Error(path + ": embeddings must be float16/32/64, got " + descr.str(0));
  }
  const std::int64_t rows = std::stoll(shape[1]), cols = std::stoll(shape[2]);
  const std::size_t need = static_cast<std::size_t>(rows * cols) * at::elementSize(type);
  EMBPRIV_CHECK(bytes.size() - start - header_length >= need,
                path << " is truncated: " << bytes.size() - start - header_length << " data bytes for ["
                     << rows << ", " << cols << "] (" << need << ")");
  return EmbeddingTable(read_words(words_path, rows),
                        float_matrix(bytes.data() + start + header_length, rows, cols, type), path);
}

// The read-only mapping of a whole file; unmapped when the last tensor over it is gone.
struct SafetensorsFile::Mapping {
  const char* bytes = nullptr;
  std::size_t size = 0;
  ~Mapping() {
    if (bytes && size > 0) munmap(const_cast<char*>(bytes), size);
  }
};

namespace {

at::ScalarType safetensors_dtype(const std::string& dtype, const std::string& path, const std::string& name) {
  if (dtype == "F32") return at::kFloat;
  if (dtype == "F16") return at::kHalf;
  if (dtype == "BF16") return at::kBFloat16;
  throw Error(path + ": tensor '" + name + "' has dtype '" + dtype + "'; supported: F32, F16, BF16");
}

const char* safetensors_dtype_name(at::ScalarType type) {
  if (type == at::kFloat) return "F32";
  if (type == at::kHalf) return "F16";
  if (type == at::kBFloat16) return "BF16";
  throw Error(std::string("safetensors: cannot write dtype ") + at::toString(type) + "; supported: F32, F16, BF16");
}

}  // namespace

SafetensorsFile::SafetensorsFile(const std::string& path) : path_(path), mapping_(std::make_shared<Mapping>()) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK);  // O_NONBLOCK: a FIFO must not block the open
  EMBPRIV_CHECK(fd >= 0, "cannot read the safetensors file '" << path << "': " << std::strerror(errno));
  struct stat info {};
  const bool stat_ok = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  const std::size_t size = stat_ok ? static_cast<std::size_t>(info.st_size) : 0;
  void* bytes = size >= 8 ? mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  EMBPRIV_CHECK(stat_ok, "'" << path << "' is not a regular file");
  EMBPRIV_CHECK(size >= 8, path << " is too short for a safetensors header (" << size << " bytes)");
  EMBPRIV_CHECK(bytes != MAP_FAILED, "cannot map '" << path << "': " << std::strerror(errno));
  mapping_->bytes = static_cast<const char*>(bytes);
  mapping_->size = size;
  std::uint64_t header_length;
  std::memcpy(&header_length, mapping_->bytes, 8);
  EMBPRIV_CHECK(header_length <= size - 8, path << " is truncated inside its JSON header (header length "
                                                 << header_length << ", file " << size << " bytes)");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(mapping_->bytes + 8, mapping_->bytes + 8 + header_length);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": malformed safetensors header: " + e.what());
  }
  EMBPRIV_CHECK(header.is_object(), path << ": the safetensors header is not a JSON object");
  const std::uint64_t data_size = size - 8 - header_length;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") continue;
    EMBPRIV_CHECK(value.is_object() && value.contains("dtype") && value.contains("shape") && value.contains("data_offsets"),
                  path << ": tensor '" << name << "' lacks dtype, shape or data_offsets");
    Entry entry;
    std::vector<std::uint64_t> offsets;
    // Whole numbers only: nlohmann's get<> would truncate an offset of 1.5 or a shape of 2.5.
    const auto whole_numbers = [](const nlohmann::json& list) {
      return list.is_array() && std::all_of(list.begin(), list.end(), [](const nlohmann::json& v) {
               return v.is_number_integer();
             });
    };
    EMBPRIV_CHECK(whole_numbers(value.at("shape")) && whole_numbers(value.at("data_offsets")),
                  path << ": tensor '" << name << "' has a shape or data_offsets that are not lists of whole numbers");
    try {
      entry.dtype = safetensors_dtype(value.at("dtype").get<std::string>(), path, name);
      entry.shape = value.at("shape").get<std::vector<std::int64_t>>();
      offsets = value.at("data_offsets").get<std::vector<std::uint64_t>>();
    } catch (const nlohmann::json::exception& e) {
      throw Error(path + ": tensor '" + name + "' has a malformed entry: " + e.what());
    }
    std::uint64_t elements = 1;
    for (const std::int64_t n : entry.shape) {
      EMBPRIV_CHECK(n >= 0 && (n == 0 || elements <= (std::uint64_t{1} << 56) / static_cast<std::uint64_t>(n)),
                    path << ": tensor '" << name << "' has an impossible shape");
      elements *= static_cast<std::uint64_t>(n);
    }
    EMBPRIV_CHECK(offsets.size() == 2 && offsets[0] <= offsets[1] &&
                      offsets[1] - offsets[0] == elements * at::elementSize(entry.dtype),
                  path << ": tensor '" << name << "' has data_offsets that do not match its shape and dtype");
    EMBPRIV_CHECK(offsets[1] <= data_size, path << " is truncated: tensor '" << name << "' ends at byte " << offsets[1]
                                                << " of a data section of " << data_size << " bytes");
    entry.begin = offsets[0] + 8 + header_length;
    entry.end = offsets[1] + 8 + header_length;
    entries_.emplace(name, std::move(entry));
  }
  // No two tensors may share bytes (the safetensors library refuses overlapping offsets too):
  // sorted by where they begin, each non-empty tensor must end before the next one begins.
  std::vector<std::pair<const std::string*, const Entry*>> by_begin;
  for (const auto& [name, entry] : entries_) {
    if (entry.end > entry.begin) by_begin.emplace_back(&name, &entry);
  }
  std::sort(by_begin.begin(), by_begin.end(),
            [](const auto& a, const auto& b) { return a.second->begin < b.second->begin; });
  for (std::size_t i = 1; i < by_begin.size(); ++i) {
    EMBPRIV_CHECK(by_begin[i - 1].second->end <= by_begin[i].second->begin,
                  path << ": tensors '" << *by_begin[i - 1].first << "' and '" << *by_begin[i].first
                       << "' overlap (their data_offsets share bytes)");
  }
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : entries_) names.push_back(name);
  return names;
}

const SafetensorsFile::Entry& SafetensorsFile::entry(const std::string& name) const {
  const auto found = entries_.find(name);
  if (found != entries_.end()) return found->second;
  std::string names;
  int shown = 0;
  for (const auto& [known, entry] : entries_) {
    if (shown++ < 12) names += (names.empty() ? "" : ", ") + known;
  }
  throw Error(path_ + " has no tensor '" + name + "'; it has: " + names + (shown > 12 ? ", ..." : ""));
}

at::Tensor SafetensorsFile::tensor(const std::string& name) const {
  const Entry& e = entry(name);
  std::shared_ptr<Mapping> keep = mapping_;
  // Read-only pages: the tensor must never be written (every use converts or copies first).
  return at::from_blob(const_cast<char*>(mapping_->bytes + e.begin), e.shape, [keep](void*) {},
                       at::TensorOptions().dtype(e.dtype));
}

void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& tensors) {
  std::vector<std::pair<std::string, at::Tensor>> sorted = tensors;
  // The `safetensors` library orders entries by dtype alignment (largest first), then name.
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    const std::size_t sa = a.second.element_size(), sb = b.second.element_size();
    return sa != sb ? sa > sb : a.first < b.first;
  });
  nlohmann::ordered_json header;
  header["__metadata__"] = {{"format", "pt"}};
  std::string data;
  for (const auto& [name, tensor] : sorted) {
    const at::Tensor t = tensor.contiguous().cpu();
    const std::size_t bytes = t.numel() * t.element_size();
    header[name] = {{"dtype", safetensors_dtype_name(t.scalar_type())},
                    {"shape", t.sizes().vec()},
                    {"data_offsets", {data.size(), data.size() + bytes}}};
    data.append(static_cast<const char*>(t.data_ptr()), bytes);
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');
  const std::uint64_t length = json.size();
  std::string file(8, '\0');
  std::memcpy(file.data(), &length, 8);
  write_file_atomically(path, file + json + data);
}

EmbeddingTable read_safetensors(const std::string& path, const std::string& tensor) {
  const SafetensorsFile file(path);
  const SafetensorsFile::Entry& entry = file.entry(tensor);
  EMBPRIV_CHECK(entry.shape.size() == 2, path << ": tensor '" << tensor << "' must be 2-D [V, d], has "
                                              << entry.shape.size() << " dimensions");
  return EmbeddingTable(numbered_words(entry.shape[0]), file.tensor(tensor).to(at::kFloat).clone(), path);
}

EmbeddingTable read_hdf5_matrix(const std::string& path, const std::string& dataset,
                                const std::string& words_dataset) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hdf5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  EMBPRIV_CHECK(file.ok(), "cannot open HDF5 file '" << path << "' (missing, truncated or not HDF5)");
  const hdf5::Handle set(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
  EMBPRIV_CHECK(set.ok(), path << " has no dataset '" << dataset << "'");
  const hdf5::Handle space(H5Dget_space(set.get()), H5Sclose);
  EMBPRIV_CHECK(H5Sget_simple_extent_ndims(space.get()) == 2, path << ":" << dataset << " must be 2-D [V, d]");
  hsize_t dims[2];
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  at::Tensor matrix = at::empty({static_cast<std::int64_t>(dims[0]), static_cast<std::int64_t>(dims[1])}, at::kFloat);
  EMBPRIV_CHECK(H5Dread(set.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, matrix.data_ptr<float>()) >= 0,
                "cannot read " << path << ":" << dataset << " as floats");
  std::vector<std::string> words = numbered_words(matrix.size(0));
  if (!words_dataset.empty()) {
    const hdf5::Handle words_set(H5Dopen2(file.get(), words_dataset.c_str(), H5P_DEFAULT), H5Dclose);
    EMBPRIV_CHECK(words_set.ok(), path << " has no dataset '" << words_dataset << "'");
    const hdf5::Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    std::vector<char*> pointers(static_cast<std::size_t>(matrix.size(0)), nullptr);
    const hdf5::Handle words_space(H5Dget_space(words_set.get()), H5Sclose);
    EMBPRIV_CHECK(H5Sget_simple_extent_npoints(words_space.get()) == matrix.size(0),
                  path << ":" << words_dataset << " must hold one word per row of " << dataset);
    EMBPRIV_CHECK(H5Dread(words_set.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) >= 0,
                  "cannot read " << path << ":" << words_dataset << " as variable-length strings");
    for (std::size_t i = 0; i < pointers.size(); ++i) {
      words[i] = pointers[i] ? pointers[i] : "";
      H5free_memory(pointers[i]);
    }
  }
  return EmbeddingTable(std::move(words), matrix, path + ":" + dataset);
}

}  // namespace embpriv
