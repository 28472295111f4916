#include "experiments/results_table.h"

#include <hdf5.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "core/error.h"

namespace embpriv {
namespace {

// Closes an HDF5 handle when it leaves scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(Handle&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = -1; }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

Handle variable_string_type() {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

void write_column(hid_t group, const Column& column) {
  const hsize_t n = column.size();
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  herr_t status = -1;
  if (const auto* v = std::get_if<std::vector<double>>(&column.values)) {
    Handle set(H5Dcreate2(group, column.name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                          H5P_DEFAULT, H5P_DEFAULT),
               H5Dclose);
    status = set.ok() ? H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                 v->data())
                      : -1;
  } else if (const auto* v = std::get_if<std::vector<std::int64_t>>(&column.values)) {
    Handle set(H5Dcreate2(group, column.name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT,
                          H5P_DEFAULT, H5P_DEFAULT),
               H5Dclose);
    status = set.ok() ? H5Dwrite(set.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                 v->data())
                      : -1;
  } else {
    const auto& strings = std::get<std::vector<std::string>>(column.values);
    std::vector<const char*> pointers;
    for (const auto& s : strings) pointers.push_back(s.c_str());
    Handle type = variable_string_type();
    Handle set(H5Dcreate2(group, column.name.c_str(), type.get(), space.get(), H5P_DEFAULT,
                          H5P_DEFAULT, H5P_DEFAULT),
               H5Dclose);
    status = set.ok() ? H5Dwrite(set.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                 pointers.data())
                      : -1;
  }
  EMBPRIV_CHECK(status >= 0, "could not write column '" << column.name << "' to HDF5");
}

void write_attribute(hid_t object, const std::string& name, const std::string& value) {
  Handle type = variable_string_type();
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attribute(H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT,
                              H5P_DEFAULT),
                   H5Aclose);
  const char* text = value.c_str();
  EMBPRIV_CHECK(attribute.ok() && H5Awrite(attribute.get(), type.get(), &text) >= 0,
                "could not write attribute '" << name << "' to HDF5");
}

std::string read_attribute(hid_t object, const char* name) {
  Handle attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  Handle type = variable_string_type();
  char* text = nullptr;
  EMBPRIV_CHECK(attribute.ok() && H5Aread(attribute.get(), type.get(), &text) >= 0,
                "could not read attribute '" << name << "'");
  std::string value = text ? text : "";
  H5free_memory(text);
  return value;
}

Column read_column(hid_t group, const std::string& name) {
  Handle set(H5Dopen2(group, name.c_str(), H5P_DEFAULT), H5Dclose);
  EMBPRIV_CHECK(set.ok(), "could not open dataset /table/" << name);
  Handle space(H5Dget_space(set.get()), H5Sclose);
  hsize_t n = 0;
  EMBPRIV_CHECK(H5Sget_simple_extent_ndims(space.get()) == 1,
                "/table/" << name << " is not a 1-D dataset");
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  Handle type(H5Dget_type(set.get()), H5Tclose);
  Column column{name, {}};
  herr_t status = -1;
  switch (H5Tget_class(type.get())) {
    case H5T_FLOAT: {
      std::vector<double> v(n);
      status = H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
      column.values = std::move(v);
      break;
    }
    case H5T_INTEGER: {
      std::vector<std::int64_t> v(n);
      status = H5Dread(set.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
      column.values = std::move(v);
      break;
    }
    case H5T_STRING: {
      std::vector<char*> pointers(n, nullptr);
      Handle string_type = variable_string_type();
      status = H5Dread(set.get(), string_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                       pointers.data());
      std::vector<std::string> v;
      for (char* p : pointers) {
        v.emplace_back(p ? p : "");
        H5free_memory(p);
      }
      column.values = std::move(v);
      break;
    }
    default:
      EMBPRIV_CHECK(false, "/table/" << name << " has an unsupported type");
  }
  EMBPRIV_CHECK(status >= 0, "could not read /table/" << name);
  return column;
}

herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->emplace_back(name);
  return 0;
}

}  // namespace

std::size_t Column::size() const {
  return std::visit([](const auto& v) { return v.size(); }, values);
}

const Column& ResultsTable::column(const std::string& name) const {
  for (const auto& c : columns) {
    if (c.name == name) return c;
  }
  EMBPRIV_CHECK(false, "results table has no column '" << name << "'");
  return columns.front();
}

std::size_t ResultsTable::rows() const { return columns.empty() ? 0 : columns.front().size(); }

void write_results_h5(const std::string& path, const ResultsTable& table) {
  for (const auto& c : table.columns) {
    EMBPRIV_ASSERT(c.size() == table.rows(), "column '" << c.name << "' has " << c.size()
                                                        << " rows, not " << table.rows());
  }
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are reported through EMBPRIV_CHECK
    Handle file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    EMBPRIV_CHECK(file.ok(), "cannot create HDF5 file " << temporary);
    for (const auto& [name, value] : table.attributes) write_attribute(file.get(), name, value);
    // Track creation order so readers list the columns in the order they were written.
    Handle order(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    H5Pset_link_creation_order(order.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    Handle group(H5Gcreate2(file.get(), "table", H5P_DEFAULT, order.get(), H5P_DEFAULT),
                 H5Gclose);
    EMBPRIV_CHECK(group.ok(), "cannot create /table in " << temporary);
    for (const auto& c : table.columns) write_column(group.get(), c);
    EMBPRIV_CHECK(H5Fflush(file.get(), H5F_SCOPE_GLOBAL) >= 0, "cannot flush " << temporary);
  }
  std::filesystem::rename(temporary, path);
}

ResultsTable read_results_h5(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  EMBPRIV_CHECK(std::filesystem::exists(path), "no such results file: " << path);
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  EMBPRIV_CHECK(file.ok(), path << " is not a readable HDF5 file (truncated or corrupt?)");
  ResultsTable table;
  Handle root(H5Gopen2(file.get(), "/", H5P_DEFAULT), H5Gclose);
  H5O_info_t root_info;
  EMBPRIV_CHECK(root.ok() && H5Oget_info(root.get(), &root_info) >= 0,
                path << ": cannot read the root group");
  for (hsize_t i = 0; i < root_info.num_attrs; ++i) {
    char name[256];
    Handle attribute(H5Aopen_by_idx(root.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT,
                                    H5P_DEFAULT),
                     H5Aclose);
    EMBPRIV_CHECK(attribute.ok() && H5Aget_name(attribute.get(), sizeof name, name) >= 0,
                  path << ": cannot read root attribute " << i);
    table.attributes[name] = read_attribute(root.get(), name);
  }
  Handle group(H5Gopen2(file.get(), "table", H5P_DEFAULT), H5Gclose);
  EMBPRIV_CHECK(group.ok(), path << " has no /table group");
  std::vector<std::string> names;
  if (H5Literate(group.get(), H5_INDEX_CRT_ORDER, H5_ITER_INC, nullptr, collect_name, &names) <
      0) {
    names.clear();  // a file written without creation order: list the columns by name
    H5Literate(group.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names);
  }
  for (const auto& name : names) table.columns.push_back(read_column(group.get(), name));
  return table;
}

}  // namespace embpriv
