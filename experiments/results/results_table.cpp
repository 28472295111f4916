#include "experiments/results/results_table.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "core/atomic_file.h"
#include "core/error.h"
#include "experiments/results/hdf5_io.h"
#include "experiments/results/results_fence.h"

namespace embpriv {

using hdf5::Handle;

namespace {

// The bytes of the HDF5 file holding `table`, built in memory; `name` names it in messages.
std::string hdf5_image(const std::string& name, const ResultsTable& table) {
  const Handle access = hdf5::in_memory_file_access(name);
  // The user block holds the checksum fence (results_fence.h): H5Fget_file_image gives the bytes
  // after it, and sealed_results_image puts the fence in front.
  Handle creation(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  EMBPRIV_CHECK(creation.ok() && H5Pset_userblock(creation.get(), kResultsFenceBytes) >= 0,
                "cannot set up the user block of the HDF5 file " << name);
  Handle file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, creation.get(), access.get()), H5Fclose);
  EMBPRIV_CHECK(file.ok(), "cannot create the HDF5 file " << name << " in memory");
  for (const auto& [key, value] : table.attributes) hdf5::write_attribute(file.get(), key, value);
  {
    Handle group = hdf5::create_ordered_group(file.get(), "table");
    for (const auto& c : table.columns) hdf5::write_column(group.get(), c);
  }
  if (!table.curves.empty()) {
    Handle curves = hdf5::create_ordered_group(file.get(), "curves");
    for (const RowCurves& row : table.curves) {
      Handle group = hdf5::create_ordered_group(curves.get(), std::to_string(row.row));
      for (const auto& [array, values] : row.arrays) hdf5::write_column(group.get(), Column{array, values});
    }
  }
  if (!table.seconds.empty()) {
    Handle timing = hdf5::create_ordered_group(file.get(), "timing");
    hdf5::write_column(timing.get(), Column{"seconds", table.seconds});
    for (const auto& [phase, values] : table.phase_seconds) hdf5::write_column(timing.get(), Column{phase, values});
  }
  return sealed_results_image(hdf5::file_image(file.get(), name));
}

// The whole file (results files are tables of at most kMaxGridRows rows: megabytes).
std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read the results file " << path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  EMBPRIV_CHECK(!in.bad(), "cannot read the results file " << path);
  return bytes.str();
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

namespace {
template <class T>
const char* kind_name() {
  if constexpr (std::is_same_v<T, double>) return "floating-point numbers";
  if constexpr (std::is_same_v<T, std::int64_t>) return "integers";
  return "text";
}
}  // namespace

template <class T>
const std::vector<T>& ResultsTable::values(const std::string& name) const {
  const auto* typed = std::get_if<std::vector<T>>(&column(name).values);
  EMBPRIV_CHECK(typed, "results column '" << name << "' must hold " << kind_name<T>()
                                          << " (the file was not written by this embpriv, or was edited)");
  return *typed;
}
template const std::vector<double>& ResultsTable::values<double>(const std::string&) const;
template const std::vector<std::int64_t>& ResultsTable::values<std::int64_t>(const std::string&) const;
template const std::vector<std::string>& ResultsTable::values<std::string>(const std::string&) const;

bool ResultsTable::has_column(const std::string& name) const {
  for (const auto& c : columns) {
    if (c.name == name) return true;
  }
  return false;
}

std::size_t ResultsTable::rows() const { return columns.empty() ? 0 : columns.front().size(); }

void write_results_h5(const std::string& path, const ResultsTable& table) {
  for (const auto& c : table.columns) {
    EMBPRIV_ASSERT(c.size() == table.rows(), "column '" << c.name << "' has " << c.size()
                                                        << " rows, not " << table.rows());
  }
  EMBPRIV_ASSERT(table.seconds.empty() || table.seconds.size() == table.rows(),
                 "timing has " << table.seconds.size() << " rows, not " << table.rows());
  for (const auto& [phase, values] : table.phase_seconds) {
    EMBPRIV_ASSERT(!table.seconds.empty() && values.size() == table.rows() && phase != "seconds",
                   "timing of phase '" << phase << "' has " << values.size() << " rows, not " << table.rows());
  }
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  // HDF5 writes into memory (the core driver, no backing store) and the image goes to disk in
  // one atomic write: a full disk is then one write() error, reported with its reason, and never
  // an HDF5 file left open on a failed flush (which HDF5 would close again at exit and crash).
  write_file_atomically(path, hdf5_image(path, table));
}

ResultsTable read_results_h5(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  EMBPRIV_CHECK(std::filesystem::exists(path), "no such results file: " << path);
  // The bytes are read once, checked against the fence and handed to HDF5 from memory: HDF5
  // reads exactly the bytes that were checked.
  // HDF5 gets the image as H5Fget_file_image gave it: the bytes after the fence's user block.
  std::string bytes = file_bytes(path);
  if (check_results_fence(path, bytes) == ResultsFence::intact) bytes.erase(0, kResultsFenceBytes);
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  EMBPRIV_CHECK(access.ok() && H5Pset_fapl_core(access.get(), 1 << 20, 0) >= 0 &&
                    H5Pset_file_image(access.get(), bytes.data(), bytes.size()) >= 0,
                "cannot hand the bytes of " << path << " to HDF5");
  // The core driver reads an image only under a name no file has (an existing file is refused):
  // a path under /dev/null, which is never a folder.
  Handle file(H5Fopen("/dev/null/embpriv-results-image", H5F_ACC_RDONLY, access.get()), H5Fclose);
  EMBPRIV_CHECK(file.ok(), path << " is not a readable HDF5 file (truncated or corrupt?)");
  ResultsTable table;
  Handle root(H5Gopen2(file.get(), "/", H5P_DEFAULT), H5Gclose);
  // Only the attribute count is read. HDF5 1.12 changed H5Oget_info (H5Oget_info3, H5O_info2_t);
  // 1.10.3 and later have the call with a field mask as H5Oget_info2: the versioned name of each.
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t root_info;
  EMBPRIV_CHECK(root.ok() && H5Oget_info3(root.get(), &root_info, H5O_INFO_NUM_ATTRS) >= 0,
                path << ": cannot read the root group");
#else
  H5O_info_t root_info;
  EMBPRIV_CHECK(root.ok() && H5Oget_info2(root.get(), &root_info, H5O_INFO_NUM_ATTRS) >= 0,
                path << ": cannot read the root group");
#endif
  for (hsize_t i = 0; i < root_info.num_attrs; ++i) {
    char name[256];
    Handle attribute(H5Aopen_by_idx(root.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT,
                                    H5P_DEFAULT),
                     H5Aclose);
    EMBPRIV_CHECK(attribute.ok() && H5Aget_name(attribute.get(), sizeof name, name) >= 0,
                  path << ": cannot read root attribute " << i);
    table.attributes[name] = hdf5::read_attribute(root.get(), name);
  }
  {
    Handle group(H5Gopen2(file.get(), "table", H5P_DEFAULT), H5Gclose);
    EMBPRIV_CHECK(group.ok(), path << " has no /table group (not an embpriv results file?)");
    for (const auto& name : hdf5::link_names(group.get())) {
      table.columns.push_back(hdf5::read_column(group.get(), name, path + ":/table"));
    }
  }
  for (const auto& c : table.columns) {
    EMBPRIV_CHECK(c.size() == table.rows(), path << ": /table/" << c.name << " has " << c.size()
                                                 << " rows, /table/" << table.columns[0].name
                                                 << " has " << table.rows());
  }
  if (H5Lexists(file.get(), "curves", H5P_DEFAULT) > 0) {
    Handle curves(H5Gopen2(file.get(), "curves", H5P_DEFAULT), H5Gclose);
    EMBPRIV_CHECK(curves.ok(), path << ": cannot open /curves");
    for (const auto& row_name : hdf5::link_names(curves.get())) {
      RowCurves row;
      try {
        row.row = std::stoll(row_name);
      } catch (const std::exception&) {
        throw Error(path + ": /curves/" + row_name + " is not named by a row number");
      }
      Handle group(H5Gopen2(curves.get(), row_name.c_str(), H5P_DEFAULT), H5Gclose);
      EMBPRIV_CHECK(group.ok(), path << ": cannot open /curves/" << row_name);
      for (const auto& name : hdf5::link_names(group.get())) {
        Column c = hdf5::read_column(group.get(), name, path + ":/curves/" + row_name);
        auto* values = std::get_if<std::vector<double>>(&c.values);
        EMBPRIV_CHECK(values, path << ": /curves/" << row_name << "/" << name
                                   << " must hold floating-point values");
        row.arrays.emplace_back(name, std::move(*values));
      }
      table.curves.push_back(std::move(row));
    }
  }
  if (H5Lexists(file.get(), "timing", H5P_DEFAULT) > 0) {
    Handle timing(H5Gopen2(file.get(), "timing", H5P_DEFAULT), H5Gclose);
    EMBPRIV_CHECK(timing.ok(), path << ": cannot open /timing");
    for (const auto& name : hdf5::link_names(timing.get())) {
      Column c = hdf5::read_column(timing.get(), name, path + ":/timing");
      auto* values = std::get_if<std::vector<double>>(&c.values);
      EMBPRIV_CHECK(values && values->size() == table.rows(),
                    path << ": /timing/" << name << " must hold one time per table row");
      if (name == "seconds") {
        table.seconds = std::move(*values);
      } else {
        table.phase_seconds[name] = std::move(*values);
      }
    }
    EMBPRIV_CHECK(table.phase_seconds.empty() || !table.seconds.empty(),
                  path << ": /timing has phases but no /timing/seconds");
  }
  return table;
}

}  // namespace embpriv
