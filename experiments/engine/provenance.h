#pragma once
// Where a result came from: stored as root attributes of every results file.
#include <string>

namespace embpriv {

// The git commit of the embpriv source tree ("<sha>", "<sha>-dirty", or "unknown").
std::string git_commit();
// The version of embpriv.
std::string embpriv_version();
// The current time as ISO 8601 UTC ("2026-11-22T17:40:05Z").
std::string utc_now();

}  // namespace embpriv
