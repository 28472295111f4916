#include "core/params.h"

#include <cmath>

#include "core/error.h"

namespace embpriv {

double require_positive(std::string_view name, double value) {
  EMBPRIV_CHECK(std::isfinite(value) && value > 0,
                name << " must be finite and > 0, got " << value);
  return value;
}

double require_open_interval(std::string_view name, double value, double lo, double hi) {
  EMBPRIV_CHECK(std::isfinite(value) && value > lo && value < hi,
                name << " must be in (" << lo << ", " << hi << "), got " << value);
  return value;
}

long long require_at_least(std::string_view name, long long value, long long lo) {
  EMBPRIV_CHECK(value >= lo, name << " must be >= " << lo << ", got " << value);
  return value;
}

}  // namespace embpriv
