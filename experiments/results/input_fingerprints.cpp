#include "experiments/results/input_fingerprints.h"

#include <map>
#include <set>
#include <sstream>

#include "core/error.h"

namespace embpriv {

std::string escaped_line(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string unescaped_line(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out += text[i + 1] == 'n' ? '\n' : text[i + 1];
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string input_files_text(const std::vector<FileFingerprint>& fingerprints) {
  std::ostringstream text;
  for (const FileFingerprint& f : fingerprints) {
    text << f.blake2b << ' ' << f.size << ' ' << f.key << ' ' << escaped_line(f.file) << '\n';
  }
  return text.str();
}

std::vector<FileFingerprint> parse_input_files_text(const std::string& text, const std::string& where) {
  std::vector<FileFingerprint> fingerprints;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    FileFingerprint f;
    fields >> f.blake2b >> f.size >> f.key;
    std::string file;
    std::getline(fields, file);
    EMBPRIV_CHECK(fields.eof() && f.blake2b.size() == 64 && file.size() > 1 && file[0] == ' ',
                  where << ": malformed input_files line '" << line << "'");
    f.file = unescaped_line(file.substr(1));
    fingerprints.push_back(std::move(f));
  }
  return fingerprints;
}

std::string input_files_difference(const std::string& before_text, const std::string& now_text,
                                   const std::string& before, const std::string& now) {
  std::map<std::string, FileFingerprint> then;
  for (FileFingerprint& f : parse_input_files_text(before_text, before)) then.emplace(f.file, std::move(f));
  const auto describe = [](const FileFingerprint& f) {
    return std::to_string(f.size) + " bytes, blake2b " + f.blake2b.substr(0, 12);
  };
  std::set<std::string> matched;
  for (const FileFingerprint& f : parse_input_files_text(now_text, now)) {
    const auto found = then.find(f.file);
    if (found == then.end()) return f.file + " (" + f.key + ") is read " + now + " but was not " + before;
    matched.insert(f.file);
    if (found->second.size != f.size || found->second.blake2b != f.blake2b) {
      return f.file + " (" + f.key + ") has changed: " + describe(found->second) + " " + before + "; " +
             describe(f) + " " + now;
    }
  }
  for (const auto& [file, f] : then) {
    if (!matched.count(file)) return file + " (" + f.key + ") was read " + before + " but is not " + now;
  }
  return "";
}

}  // namespace embpriv
