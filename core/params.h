#pragma once
// Parameter checks shared by every constructor (GUIDE.md, sec. 4, habit 2): each names the
// parameter and the value it got, e.g. "epsilon must be finite and > 0, got -1".
#include <string_view>

namespace embpriv {

// Requires a finite value > 0; returns it.
double require_positive(std::string_view name, double value);
// Requires a finite value in the open interval (lo, hi); returns it.
double require_open_interval(std::string_view name, double value, double lo, double hi);
// Requires an integer >= lo; returns it.
long long require_at_least(std::string_view name, long long value, long long lo);

}  // namespace embpriv
