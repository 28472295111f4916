#include "experiments/results/vector_file.h"

#include <ATen/ATen.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/atomic_file.h"
#include "core/error.h"
#include "data/tables/embedding_formats.h"
#include "experiments/results/hdf5_io.h"

namespace embpriv {
namespace {

using hdf5::Handle;

std::string extension_of(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

std::string sidecar_path(const std::string& npy_path) { return npy_path + ".json"; }

std::string dataset_list(hid_t file) {
  std::string names;
  for (const std::string& name : hdf5::link_names(file)) names += (names.empty() ? "" : ", ") + name;
  return names.empty() ? "none" : names;
}

// The 1-D root datasets of `file` holding one value per row, except `matrix`.
std::vector<Column> hdf5_row_columns(hid_t file, const std::string& path, const std::string& matrix, std::int64_t rows) {
  std::vector<Column> columns;
  for (const std::string& name : hdf5::link_names(file)) {
    if (name == matrix) continue;
    // The object's type only: H5Oget_info_by_name3 (HDF5 1.12+) or H5Oget_info_by_name2 (1.10.3+).
#if H5_VERSION_GE(1, 12, 0)
    H5O_info2_t info;
    if (H5Oget_info_by_name3(file, name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) continue;
#else
    H5O_info_t info;
    if (H5Oget_info_by_name2(file, name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) continue;
#endif
    if (info.type != H5O_TYPE_DATASET) continue;
    const Handle set(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
    const Handle space(H5Dget_space(set.get()), H5Sclose);
    if (H5Sget_simple_extent_ndims(space.get()) != 1 || H5Sget_simple_extent_npoints(space.get()) != rows) continue;
    columns.push_back(hdf5::read_column(file, name, path));
  }
  return columns;
}

VectorFile read_hdf5_vectors(const std::string& path, const std::string& dataset) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  EMBPRIV_CHECK(std::filesystem::is_regular_file(path), "no such file: " << path);
  const Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  EMBPRIV_CHECK(file.ok(), "cannot open HDF5 file '" << path << "' (truncated or not HDF5)");
  EMBPRIV_CHECK(H5Lexists(file.get(), dataset.c_str(), H5P_DEFAULT) > 0,
                path << " has no dataset '" << dataset << "' (its datasets: " << dataset_list(file.get())
                     << "); name the matrix with --dataset, or data.vectors_dataset in a config");
  VectorFile out;
  out.vectors = read_hdf5_matrix(path, dataset).vectors();
  out.row_columns = hdf5_row_columns(file.get(), path, dataset, out.vectors.size(0));
  return out;
}

VectorFile read_npy_vectors(const std::string& path) {
  EMBPRIV_CHECK(std::filesystem::is_regular_file(path), "no such file: " << path);
  VectorFile out;
  out.vectors = read_npy(path).vectors();
  const std::string sidecar = sidecar_path(path);
  if (!std::filesystem::exists(sidecar)) return out;
  std::ifstream in(sidecar);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    EMBPRIV_CHECK(false, sidecar << " is not JSON: " << e.what());
  }
  if (!j.contains("rows") || !j["rows"].is_object()) return out;
  for (const auto& [name, values] : j["rows"].items()) {
    EMBPRIV_CHECK(values.is_array() && static_cast<std::int64_t>(values.size()) == out.vectors.size(0),
                  sidecar << ": rows." << name << " must hold one value per row of " << path << " ("
                          << out.vectors.size(0) << ")");
    if (!values.empty() && values[0].is_string()) {
      out.row_columns.push_back(Column{name, values.get<std::vector<std::string>>()});
    } else {
      out.row_columns.push_back(Column{name, values.get<std::vector<std::int64_t>>()});
    }
  }
  return out;
}

// NumPy's format 1.0 (numpy/lib/format.py): magic, version, a little-endian uint16 header
// length, the header dict padded with spaces and ended by '\n' so that the data starts at a
// multiple of 64 bytes, then the float32 values in C order.
void write_npy(const std::string& path, const at::Tensor& vectors) {
  const at::Tensor values = vectors.to(at::kCPU, at::kFloat).contiguous();
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(values.size(0)) +
                       ", " + std::to_string(values.size(1)) + "), }";
  const std::size_t preamble = 10;
  header.append(64 - (preamble + header.size() + 1) % 64, ' ');
  header += '\n';
  write_file_atomically(path, [&](std::ostream& out) {
    out.write("\x93NUMPY\x01\x00", 8);
    const char length[2] = {static_cast<char>(header.size() & 0xFF), static_cast<char>(header.size() >> 8)};
    out.write(length, 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(static_cast<const char*>(values.data_ptr()), static_cast<std::streamsize>(values.numel() * sizeof(float)));
  });
}

nlohmann::json attribute_json(const VectorAttribute& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

void write_npy_vectors(const std::string& path, const VectorFile& file) {
  nlohmann::json side = nlohmann::json::object();
  side["attributes"] = nlohmann::json::object();
  for (const auto& [name, value] : file.attributes) {
    const nlohmann::json v = attribute_json(value);
    // JSON has no NaN or infinity: they are written as the text numpy prints ("nan", "inf").
    if (v.is_number_float() && !std::isfinite(v.get<double>())) {
      const double x = v.get<double>();
      side["attributes"][name] = std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
    } else {
      side["attributes"][name] = v;
    }
  }
  side["rows"] = nlohmann::json::object();
  for (const Column& c : file.row_columns) {
    std::visit([&](const auto& values) { side["rows"][c.name] = values; }, c.values);
  }
  write_npy(path, file.vectors);
  write_file_atomically(sidecar_path(path), side.dump(1) + "\n");
}

void write_number_attribute(hid_t object, const std::string& name, hid_t file_type, hid_t memory_type, const void* value) {
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle attribute(H5Acreate2(object, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  EMBPRIV_CHECK(attribute.ok() && H5Awrite(attribute.get(), memory_type, value) >= 0,
                "could not write attribute '" << name << "' to HDF5");
}

// The bytes of the HDF5 file, built in memory (the core driver, no backing store) and written in
// one atomic write, as the results files are (experiments/results/results_table.cpp).
std::string hdf5_vectors_image(const std::string& path, const VectorFile& file, const std::string& dataset) {
  const Handle access = hdf5::in_memory_file_access(path);
  // The root keeps its links' creation order, so readers list the datasets as written.
  const Handle creation(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  EMBPRIV_CHECK(creation.ok() && H5Pset_link_creation_order(creation.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0,
                "cannot set up the HDF5 file " << path);
  const Handle out(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, creation.get(), access.get()), H5Fclose);
  EMBPRIV_CHECK(out.ok(), "cannot create the HDF5 file " << path << " in memory");
  const at::Tensor values = file.vectors.to(at::kCPU, at::kFloat).contiguous();
  const hsize_t dims[2] = {static_cast<hsize_t>(values.size(0)), static_cast<hsize_t>(values.size(1))};
  {
    const Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    const Handle set(H5Dcreate2(out.get(), dataset.c_str(), H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                H5P_DEFAULT),
                     H5Dclose);
    EMBPRIV_CHECK(set.ok() && H5Dwrite(set.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data_ptr()) >= 0,
                  "could not write the dataset '" << dataset << "' of " << path);
  }
  for (const Column& c : file.row_columns) hdf5::write_column(out.get(), c);
  for (const auto& [name, value] : file.attributes) {
    if (const auto* text = std::get_if<std::string>(&value)) {
      hdf5::write_attribute(out.get(), name, *text);
    } else if (const auto* number = std::get_if<double>(&value)) {
      write_number_attribute(out.get(), name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, number);
    } else {
      write_number_attribute(out.get(), name, H5T_STD_I64LE, H5T_NATIVE_INT64, &std::get<std::int64_t>(value));
    }
  }
  return hdf5::file_image(out.get(), path);
}

}  // namespace

bool is_npy_path(const std::string& path, const std::string& role) {
  const std::string ext = extension_of(path);
  EMBPRIV_CHECK(ext == ".npy" || ext == ".h5" || ext == ".hdf5",
                role << " '" << path << "' must end in .npy, .h5 or .hdf5 (the format is chosen by the extension)");
  return ext == ".npy";
}

VectorFile read_vector_file(const std::string& path, const std::string& dataset) {
  return is_npy_path(path, "the vector file") ? read_npy_vectors(path) : read_hdf5_vectors(path, dataset);
}

void write_vector_file(const std::string& path, const VectorFile& file, const std::string& dataset) {
  EMBPRIV_ASSERT(file.vectors.defined() && file.vectors.dim() == 2, "vectors must be [N, d]");
  std::set<std::string> names{dataset};
  for (const Column& c : file.row_columns) {
    EMBPRIV_ASSERT(static_cast<std::int64_t>(c.size()) == file.vectors.size(0),
                   "row column '" << c.name << "' has " << c.size() << " values for " << file.vectors.size(0) << " rows");
    EMBPRIV_ASSERT(names.insert(c.name).second, "two datasets named '" << c.name << "'");
  }
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  if (is_npy_path(path, "the output")) return write_npy_vectors(path, file);
  write_file_atomically(path, hdf5_vectors_image(path, file, dataset));
}

}  // namespace embpriv
