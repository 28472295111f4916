#include "data/data_paths.h"

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
  if (fs::exists(path)) return path;
  const fs::path shared = fs::path(shared_data_dir()) / path;
  EMBPRIV_CHECK(!fs::path(path).is_absolute() && fs::exists(shared),
                "data file '" << path << "' not found (looked in the working folder and in the "
                              << "shared data folder " << shared_data_dir()
                              << "; set EMBPRIV_DATA_DIR to move it)");
  return shared.string();
}

}  // namespace embpriv
