#pragma once
// Messages for the user on stderr: warnings (always) and progress lines.
#include <string_view>

namespace embpriv {

// Prints "embpriv: warning: <message>" on stderr.
void warn(std::string_view message);
// warn(), but each distinct message only the first time in a process (for warnings that every
// point of a sweep would repeat).
void warn_once(std::string_view message);
// Prints "embpriv: <message>" on stderr unless quiet mode is on.
void info(std::string_view message);
// Quiet mode silences info() (warnings still show).
void set_quiet(bool quiet);

}  // namespace embpriv
