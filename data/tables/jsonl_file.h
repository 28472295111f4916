#pragma once
// JSON Lines files (one JSON value per line), written atomically (core/atomic_file.h), so a
// reader never sees half a file. Bytes of strings that are not UTF-8 are written as U+FFFD.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace embpriv {

void write_jsonl(const std::string& path, const std::vector<nlohmann::json>& lines);

}  // namespace embpriv
