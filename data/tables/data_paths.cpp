#include "core/source_dir.h"
#include "data/tables/data_paths.h"

#include <cstdlib>
#include <filesystem>

#include "core/error.h"

namespace embpriv {

std::string shared_data_dir() {
  if (const char* dir = std::getenv("EMBPRIV_DATA_DIR"); dir && *dir) return dir;  // a run-time choice
  return EMBPRIV_DATA_DIR;
}

std::string resolve_data_path(const std::string& path) {
  namespace fs = std::filesystem;
  // Whether `p` names something; a path the system cannot resolve for another reason than its
  // absence (a symbolic-link loop, a 300-character name, too long a path) is refused naming it.
  const auto exists = [&](const fs::path& p) {
    std::error_code error;
    const fs::file_status status = fs::status(p, error);
    if (error && status.type() != fs::file_type::not_found) {
      throw Error("cannot read the data file '" + p.string() + "': " + error.message());
    }
    return fs::exists(status);
  };
  if (exists(path)) return path;
  if (!fs::path(path).is_absolute()) {
    // The checkout (the npm data scripts/setup.sh installs in .cache/), then the shared folder.
    for (const fs::path& base : {fs::path(embpriv::source_dir()), fs::path(shared_data_dir())}) {
      if (exists(base / path)) return (base / path).string();
    }
  }
  throw Error("data file '" + path + "' not found (looked in the working folder, in the checkout " +
              embpriv::source_dir() + " and in the shared data folder " + shared_data_dir() +
              "; scripts/setup.sh installs the npm data; EMBPRIV_DATA_DIR moves the shared folder)");
}

}  // namespace embpriv
