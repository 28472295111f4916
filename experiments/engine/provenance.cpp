#include "core/source_dir.h"
#include "experiments/engine/provenance.h"

#include <array>
#include <ctime>
#include <cstdio>
#include <memory>

namespace embpriv {
namespace {

std::string run_command(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return "";
  std::string output;
  std::array<char, 256> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe.get())) output += buffer.data();
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  return output;
}

}  // namespace

std::string git_commit() {
  const std::string git = std::string("git -C '") + embpriv::source_dir() + "' ";
  const std::string sha = run_command(git + "rev-parse HEAD 2>/dev/null");
  const bool is_sha = sha.size() == 40 && sha.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!is_sha) return "unknown";  // not a git checkout, or no commit yet
  const std::string changes = run_command(git + "status --porcelain --untracked-files=no 2>/dev/null");
  return changes.empty() ? sha : sha + "-dirty";
}

std::string embpriv_version() { return "0.1.0"; }

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace embpriv
