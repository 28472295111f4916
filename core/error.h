#pragma once
// The one error model of embpriv (GUIDE.md, sec. 4, habit 5): every check throws embpriv::Error
// through EMBPRIV_CHECK; the command line catches it, prints one line and exits with 2 for bad
// input or 1 for an internal fault.
#include <sstream>
#include <stdexcept>
#include <string>

namespace embpriv {

enum class ErrorKind { bad_input, internal };

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ErrorKind kind = ErrorKind::bad_input)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }
  // The process exit code the command line uses for this error.
  int exit_code() const { return kind_ == ErrorKind::bad_input ? 2 : 1; }

 private:
  ErrorKind kind_;
};

}  // namespace embpriv

// Throws embpriv::Error(bad_input) with the streamed message when cond is false, e.g.
//   EMBPRIV_CHECK(eps > 0, "epsilon must be finite and > 0, got " << eps);
#define EMBPRIV_CHECK(cond, msg)                                   \
  do {                                                             \
    if (!(cond)) {                                                 \
      std::ostringstream embpriv_check_stream_;                    \
      embpriv_check_stream_ << msg;                                \
      throw ::embpriv::Error(embpriv_check_stream_.str());         \
    }                                                              \
  } while (false)

// Same, for conditions whose failure is a bug of embpriv rather than bad input (exit code 1).
#define EMBPRIV_ASSERT(cond, msg)                                                  \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::ostringstream embpriv_check_stream_;                                    \
      embpriv_check_stream_ << "internal error: " << msg << " (" << __FILE__ << ":" \
                            << __LINE__ << ")";                                    \
      throw ::embpriv::Error(embpriv_check_stream_.str(), ::embpriv::ErrorKind::internal); \
    }                                                                              \
  } while (false)
