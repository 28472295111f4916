#pragma once
// `embpriv info FILE`: what a results file holds, at a glance.
#include <iosfwd>
#include <string>

namespace embpriv {

void print_results_info(const std::string& path, std::ostream& out);

}  // namespace embpriv
