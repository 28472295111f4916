#pragma once
// Thin RAII helpers over the HDF5 C API, used by the results files (experiments/ only).
#include <hdf5.h>

#include <string>
#include <vector>

#include "experiments/results/results_table.h"

namespace embpriv::hdf5 {

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

// A group whose links keep their creation order (readers list columns as written).
Handle create_ordered_group(hid_t parent, const std::string& name);
// Names of a group's links, in creation order when tracked, else by name.
std::vector<std::string> link_names(hid_t group);

void write_column(hid_t group, const Column& column);
// `where` names the group in messages ("/table").
Column read_column(hid_t group, const std::string& name, const std::string& where);
void write_attribute(hid_t object, const std::string& name, const std::string& value);
std::string read_attribute(hid_t object, const char* name);

}  // namespace embpriv::hdf5
