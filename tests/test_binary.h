#pragma once
// Runs the real embpriv binary from a test, as a user would from a shell.
#include <sys/wait.h>

#include <cstdio>
#include <memory>
#include <string>

namespace embpriv {

struct Outcome {
  int code;            // exit code
  std::string output;  // what it printed (see Capture)
};

enum class Capture { errors, everything };

// Runs `embpriv ARGS` through the shell; captures stderr, or stderr and stdout. `shell_prefix`
// runs first in the same shell ("ulimit -f 16; exec ").
inline Outcome run_binary(const std::string& args, Capture capture = Capture::everything,
                          const std::string& shell_prefix = "") {
  const std::string command = shell_prefix + std::string(EMBPRIV_BINARY) + " " + args +
                              (capture == Capture::errors ? " 2>&1 >/dev/null" : " 2>&1");
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string text;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe.get())) text += buffer;
  const int status = pclose(pipe.release());
  return {WEXITSTATUS(status), text};
}

}  // namespace embpriv
