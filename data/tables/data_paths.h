#pragma once
// Where a data file named in a config is: as given (absolute, or relative to the working
// folder), else relative to the checkout (.cache/npm: what scripts/setup.sh installs), else
// inside the shared data folder (../shared/data, EMBPRIV_DATA_DIR at build time).
#include <string>

namespace embpriv {

// The folder of the shared real data (its README.md lists the files).
std::string shared_data_dir();
// Throws embpriv::Error naming both places when the file is in neither.
std::string resolve_data_path(const std::string& path);

}  // namespace embpriv
