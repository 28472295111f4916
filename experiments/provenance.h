#pragma once
// Where a result came from: stored as root attributes of every results file.
#include <string>

namespace embpriv {

// The git commit of the embpriv source tree ("<sha>", "<sha>-dirty", or "unknown").
std::string git_commit();

}  // namespace embpriv
