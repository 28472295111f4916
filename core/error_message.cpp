#include "core/error_message.h"

#include <c10/util/Exception.h>

#include "core/error.h"

namespace embpriv {

std::string one_line_message(const std::exception& error) {
  if (dynamic_cast<const Error*>(&error)) return error.what();
  const auto* torch_error = dynamic_cast<const c10::Error*>(&error);
  std::string message = torch_error ? torch_error->what_without_backtrace() : error.what();
  const std::size_t end = message.find('\n');
  if (end != std::string::npos) message.erase(end);
  return message;
}

}  // namespace embpriv
