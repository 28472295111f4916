#pragma once
// Helpers over the HDF5 C API for the results files (experiments/ only); handles close through
// hdf5::Handle (data/tables/hdf5_handle.h).
#include <hdf5.h>

#include <string>
#include <vector>

#include "data/tables/hdf5_handle.h"
#include "experiments/results/results_table.h"

namespace embpriv::hdf5 {

// A group whose links keep their creation order (readers list columns as written).
Handle create_ordered_group(hid_t parent, const std::string& name);
// Names of a group's links, in creation order when tracked, else by name.
std::vector<std::string> link_names(hid_t group);

void write_column(hid_t group, const Column& column);
// `where` names the group in messages ("/table").
Column read_column(hid_t group, const std::string& name, const std::string& where);
void write_attribute(hid_t object, const std::string& name, const std::string& value);
std::string read_attribute(hid_t object, const char* name);

// The file access of an HDF5 file built in memory (the core driver, no backing store), written
// out later in one atomic write; HDF5's own error printing is turned off (errors are reported
// through EMBPRIV_CHECK). `name` names the file in messages.
Handle in_memory_file_access(const std::string& name);
// The bytes of such a file, flushed first.
std::string file_image(hid_t file, const std::string& name);

}  // namespace embpriv::hdf5
