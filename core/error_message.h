#pragma once
// The message of any exception as one line for the user (the CLI's error line, a results row's
// `error` column): LibTorch's c10::Error carries a backtrace of some 25 lines after its message.
#include <exception>
#include <string>

namespace embpriv {

// embpriv::Error: what() as it is. c10::Error: what_without_backtrace(). Any other exception:
// what(). LibTorch's and the others' are cut at their first line.
std::string one_line_message(const std::exception& error);

}  // namespace embpriv
