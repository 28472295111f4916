#include "data/jsonl_file.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace embpriv {

void write_jsonl(const std::string& path, const std::vector<nlohmann::json>& lines) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    EMBPRIV_CHECK(out, "cannot write " << temporary);
    for (const nlohmann::json& line : lines) {
      out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    }
    EMBPRIV_CHECK(out, "cannot write " << temporary << " (disk full?)");
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace embpriv
