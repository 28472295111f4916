#include "experiments/results/hdf5_io.h"

#include "core/error.h"

namespace embpriv::hdf5 {
namespace {

Handle variable_string_type() {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->emplace_back(name);
  return 0;
}

}  // namespace

Handle create_ordered_group(hid_t parent, const std::string& name) {
  Handle order(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
  H5Pset_link_creation_order(order.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  Handle group(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, order.get(), H5P_DEFAULT),
               H5Gclose);
  EMBPRIV_CHECK(group.ok(), "cannot create HDF5 group " << name);
  return group;
}

std::vector<std::string> link_names(hid_t group) {
  std::vector<std::string> names;
  if (H5Literate(group, H5_INDEX_CRT_ORDER, H5_ITER_INC, nullptr, collect_name, &names) < 0) {
    names.clear();  // written without creation order: list by name
    H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names);
  }
  return names;
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

Column read_column(hid_t group, const std::string& name, const std::string& where) {
  Handle set(H5Dopen2(group, name.c_str(), H5P_DEFAULT), H5Dclose);
  EMBPRIV_CHECK(set.ok(), "could not open dataset " << where << "/" << name);
  Handle space(H5Dget_space(set.get()), H5Sclose);
  hsize_t n = 0;
  EMBPRIV_CHECK(H5Sget_simple_extent_ndims(space.get()) == 1,
                where << "/" << name << " is not a 1-D dataset");
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  // Every value of a dataset embpriv writes takes at least one byte of the file: a dataset
  // claiming more values than it stores (a crafted or damaged file) is refused before any
  // allocation of n values.
  const hsize_t stored = H5Dget_storage_size(set.get());
  EMBPRIV_CHECK(n <= stored, where << "/" << name << " claims " << n << " values but stores only "
                                   << stored << " bytes (truncated or not written by embpriv)");
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
      EMBPRIV_CHECK(false, where << "/" << name << " has an unsupported type");
  }
  EMBPRIV_CHECK(status >= 0, "could not read " << where << "/" << name);
  return column;
}

Handle in_memory_file_access(const std::string& name) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  EMBPRIV_CHECK(access.ok() && H5Pset_fapl_core(access.get(), 1 << 20, 0) >= 0,
                "cannot set up an in-memory HDF5 file for " << name);
  return access;
}

std::string file_image(hid_t file, const std::string& name) {
  EMBPRIV_CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, "cannot flush the HDF5 file " << name);
  const ssize_t size = H5Fget_file_image(file, nullptr, 0);
  EMBPRIV_CHECK(size > 0, "cannot get the image of the HDF5 file " << name);
  std::string image(static_cast<std::size_t>(size), '\0');
  EMBPRIV_CHECK(H5Fget_file_image(file, image.data(), image.size()) == size,
                "cannot get the image of the HDF5 file " << name);
  return image;
}

}  // namespace embpriv::hdf5
