#include "data/tables/jsonl_file.h"

#include "core/atomic_file.h"

namespace embpriv {

void write_jsonl(const std::string& path, const std::vector<nlohmann::json>& lines) {
  write_file_atomically(path, [&](std::ostream& out) {
    for (const nlohmann::json& line : lines) {
      out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    }
  });
}

}  // namespace embpriv
