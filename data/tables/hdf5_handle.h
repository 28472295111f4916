#pragma once
// The one RAII wrapper of an HDF5 C API handle (hid_t): embedding tables read from HDF5
// (data/tables/embedding_formats.h) and the results files (experiments/results/) both use it.
#include <hdf5.h>

namespace embpriv::hdf5 {

// Owns an HDF5 identifier and closes it with `close` (H5Fclose, H5Dclose, ...) when it leaves
// scope. A negative id (what the HDF5 opening and creating functions return on failure) is
// held but never closed: check ok() after opening. Movable, not copyable.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(Handle&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = -1; }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle& operator=(Handle&&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

}  // namespace embpriv::hdf5
