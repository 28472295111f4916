#include "data/corpora/person_names.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace embpriv {
namespace {

bool is_name_like(const std::string& word) {
  return word.size() >= 3 && std::isupper(static_cast<unsigned char>(word[0])) &&
         std::all_of(word.begin() + 1, word.end(), [](unsigned char c) { return std::islower(c); });
}

bool is_role_word(const std::string& word) {
  static const std::set<std::string> roles = {
      "Info",      "Admin",      "List",     "Lists",  "Mail",     "Mailer",  "Daemon",  "Root",    "Postmaster",
      "Webmaster", "News",       "Newsletter", "Reply", "Sales",   "Support", "Users",   "User",    "Owner",
      "Request",   "Help",       "Contact",  "Service", "Team",    "The",     "And",     "For",     "Discuss",
      "Devel",     "Talk",       "General",  "Announce", "Online", "Digest",  "Group",   "Club",    "Inc",
      "Ltd",       "Corp",       "Update",   "Updates", "Customer", "Free",   "Your",    "Dear"};
  return roles.count(word) != 0;
}

// Consecutive name-like words, fed one at a time; gap() where a name cannot go on.
class PairReader {
 public:
  explicit PairReader(std::vector<std::string>& out) : out_(out) {}
  void word(const std::string& w) {
    if (w.size() == 1) return;  // an initial keeps the run going
    if (!is_name_like(w) || is_role_word(w)) {
      gap();
      return;
    }
    if (!previous_.empty()) out_.push_back(previous_ + " " + w);
    previous_ = w;
  }
  void gap() { previous_.clear(); }

 private:
  std::vector<std::string>& out_;
  std::string previous_;
};

}  // namespace

std::vector<std::string> name_pairs(const std::string& text) {
  std::vector<std::string> pairs;
  PairReader reader(pairs);
  std::string word;
  bool in_angle = false, in_url = false, in_address = false;
  const auto flush = [&] {
    if (!word.empty()) reader.word(word);
    word.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (c == '<') in_angle = true;
    if (in_angle) {
      if (c == '>') in_angle = false;
      word.clear();
      reader.gap();
      continue;
    }
    if (text.compare(i, 3, "://") == 0 || text.compare(i, 4, "www.") == 0) in_url = true;
    if (c == '@') in_address = true;  // the word before it is the address's user name
    if (std::isspace(u)) {
      const bool skipped = in_url || in_address;
      in_url = in_address = false;
      if (skipped) {
        word.clear();
        reader.gap();
        continue;
      }
      flush();
    } else if (in_url || in_address) {
      continue;
    } else if (std::isalpha(u)) {
      word += c;
    } else if (c == '.' && word.size() == 1) {
      flush();  // "Q." : an initial
    } else {
      flush();
      reader.gap();
    }
  }
  if (!in_url && !in_address) flush();
  return pairs;
}

}  // namespace embpriv
