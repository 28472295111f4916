#include "data/privateai/private_units.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <regex>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/rng.h"
#include "data/corpora/person_names.h"

namespace embpriv {
namespace {

const std::regex& email_pattern() {
  static const std::regex r(R"([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})");
  return r;
}
const std::regex& phone_pattern() {
  // Optional +country, then groups of digits separated by space, dot or dash, or parentheses
  // around the area code; 10 to 15 digits in all (checked after the match).
  static const std::regex r(R"((\+\d{1,3}[\s.-]?)?(\(\d{2,4}\)\s?|\d{2,4}[\s.-])\d{3,4}[\s.-]\d{3,4}\b)");
  return r;
}
const std::regex& ip_pattern() {
  static const std::regex r(R"(\b(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\b)");
  return r;
}
const std::regex& user_url_pattern() {
  static const std::regex r(
      R"((https?|ftp)://[^\s/@]+(:[^\s/@]*)?@|https?://[^\s]*(/~[A-Za-z0-9_.-]+|[?&](user|uid|username|login)=[^\s&]+))",
      std::regex::icase);
  return r;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has_phone(const std::string& text) {
  for (auto it = std::sregex_iterator(text.begin(), text.end(), phone_pattern()); it != std::sregex_iterator(); ++it) {
    const std::string m = it->str();
    const auto digits = std::count_if(m.begin(), m.end(), [](unsigned char c) { return std::isdigit(c); });
    if (digits >= 10 && digits <= 15) return true;
  }
  return false;
}

bool has_ip(const std::string& text) {
  for (auto it = std::sregex_iterator(text.begin(), text.end(), ip_pattern()); it != std::sregex_iterator(); ++it) {
    bool ok = true;
    for (int part = 1; part <= 4; ++part) ok &= std::stoi((*it)[part].str()) <= 255;
    if (ok) return true;
  }
  return false;
}

// The header lines named (with their continuation lines).
std::string header_field(const std::string& headers, const std::string& name) {
  std::istringstream in(headers);
  std::string line, value;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) {
      if (inside) value += " " + line;
      continue;
    }
    inside = lower(line.substr(0, name.size() + 1)) == lower(name) + ":";
    if (inside) value += " " + line.substr(name.size() + 1);
  }
  return value;
}

}  // namespace

std::string describe_private_kinds(unsigned kinds) {
  static const std::vector<std::pair<unsigned, const char*>> names = {
      {kEmailAddress, "email_address"}, {kPhoneNumber, "phone_number"}, {kIpAddress, "ip_address"},
      {kUserUrl, "user_url"},           {kHeaderName, "header_name"}};
  std::string out;
  for (const auto& [bit, name] : names) {
    if (kinds & bit) out += (out.empty() ? "" : "+") + std::string(name);
  }
  return out;
}

std::vector<std::string> header_names(const std::string& headers) {
  std::set<std::string> names;
  for (const char* field : {"From", "To", "Cc"}) {
    for (std::string& pair : name_pairs(header_field(headers, field))) names.insert(std::move(pair));
  }
  return std::vector<std::string>(names.begin(), names.end());
}

unsigned label_unit(const std::string& text, const std::vector<std::string>& names) {
  unsigned kinds = 0;
  if (std::regex_search(text, email_pattern())) kinds |= kEmailAddress;
  if (has_phone(text)) kinds |= kPhoneNumber;
  if (has_ip(text)) kinds |= kIpAddress;
  if (std::regex_search(text, user_url_pattern())) kinds |= kUserUrl;
  if (!names.empty()) {
    for (const std::string& pair : name_pairs(text)) {
      if (std::binary_search(names.begin(), names.end(), pair)) kinds |= kHeaderName;
    }
  }
  return kinds;
}

std::vector<TextUnit> email_units(const Email& email, std::int64_t index) {
  const std::vector<std::string> names = header_names(email.headers);
  std::vector<TextUnit> units;
  std::istringstream in(email.body);
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    if (line.size() < 20 || line.size() > 400 || line[0] == '>') continue;
    if (line.rfind("--", 0) == 0 || line.rfind("Content-", 0) == 0) continue;  // MIME boundaries and parts
    const auto letters = std::count_if(line.begin(), line.end(), [](unsigned char c) { return std::isalpha(c); });
    if (letters < 3 || line.find(' ') == std::string::npos) continue;  // base64 and other blobs
    units.push_back({line, label_unit(line, names), index});
  }
  return units;
}

std::vector<TextUnit> labelled_units(const std::vector<Email>& emails) {
  std::vector<TextUnit> units;
  for (std::size_t i = 0; i < emails.size(); ++i) {
    for (TextUnit& u : email_units(emails[i], static_cast<std::int64_t>(i))) units.push_back(std::move(u));
  }
  return units;
}

std::vector<std::vector<std::int64_t>> dirichlet_split(const std::vector<int>& labels, std::int64_t clients,
                                                       double alpha, std::uint64_t seed) {
  EMBPRIV_CHECK(clients >= 1, "dirichlet split: clients must be >= 1, got " << clients);
  EMBPRIV_CHECK(alpha > 0 && std::isfinite(alpha), "dirichlet split: alpha must be finite and > 0, got " << alpha);
  std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(clients));
  const int classes = labels.empty() ? 0 : *std::max_element(labels.begin(), labels.end()) + 1;
  for (int c = 0; c < classes; ++c) {
    std::vector<std::int64_t> members;
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (labels[i] == c) members.push_back(static_cast<std::int64_t>(i));
    }
    Rng rng(derive_seed(seed, static_cast<std::uint64_t>(c), "dirichlet_split"), 0);
    shuffle(members, rng);  // the class's units in a random order
    // Shares ~ Dirichlet(alpha): normalised Gamma(alpha, 1) draws; cut the shuffled units by them.
    std::vector<double> share(static_cast<std::size_t>(clients));
    double total = 0;
    for (double& s : share) total += s = rng.gamma(alpha);
    std::size_t begin = 0;
    double cumulative = 0;
    for (std::int64_t k = 0; k < clients; ++k) {
      cumulative += share[static_cast<std::size_t>(k)] / total;
      const std::size_t end = k + 1 == clients ? members.size()
                                               : std::min(members.size(), static_cast<std::size_t>(std::llround(
                                                                              cumulative * static_cast<double>(members.size()))));
      for (std::size_t i = begin; i < end; ++i) out[static_cast<std::size_t>(k)].push_back(members[i]);
      begin = std::max(begin, end);
    }
  }
  for (auto& client : out) std::sort(client.begin(), client.end());
  return out;
}

}  // namespace embpriv
