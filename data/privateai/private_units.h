#pragma once
// PrivateAI's data (PrivateAI paper, sec. 5.1; issue 7): text units from real e-mails, labelled
// 1 when they carry private information, by a deterministic rule-based labeller, and a
// Dirichlet(alpha) non-IID split of the units across K clients. docs/privateai.md states the
// rules and their measured precision.
#include <cstdint>
#include <string>
#include <vector>

#include "data/corpora/spam_assassin.h"

namespace embpriv {

// What made a unit private (a bit set; 0: not private).
enum PrivateKind : unsigned {
  kEmailAddress = 1u << 0,  // user@host.tld
  kPhoneNumber = 1u << 1,   // 10-15 digits in the usual groupings: (555) 123-4567, +44 20 7946 0958
  kIpAddress = 1u << 2,     // dotted IPv4 with every part <= 255
  kUserUrl = 1u << 3,       // a URL naming a user: user[:password]@host, /~user, ?user=, &uid=
  kHeaderName = 1u << 4,    // a full name from the e-mail's From/To/Cc headers, recurring in the body
};
std::string describe_private_kinds(unsigned kinds);  // "email_address+phone_number"

struct TextUnit {
  std::string text;
  unsigned kinds = 0;        // PrivateKind bits
  std::int64_t email = 0;    // index of the e-mail it comes from
  int label() const { return kinds != 0 ? 1 : 0; }
};

// The names in an e-mail's From, To and Cc headers: the "Given Family" pairs of their display
// names (data/corpora/person_names.h: "Jane Q. Doe" <jane@x> -> "Jane Doe"; role words such as List,
// Admin, Support are not names), sorted. A unit carries a header name when the pair appears in
// it as written, outside HTML tags, URLs and addresses.
std::vector<std::string> header_names(const std::string& headers);

// The private kinds of one unit of text, given its e-mail's header names.
unsigned label_unit(const std::string& text, const std::vector<std::string>& names);

// Units: the body's lines, trimmed, those of 20 to 400 characters holding at least 3 letters;
// quoted lines (starting with '>') and MIME/boundary noise are left out.
std::vector<TextUnit> email_units(const Email& email, std::int64_t index);
std::vector<TextUnit> labelled_units(const std::vector<Email>& emails);

// Assigns each unit to one of K clients: for each label, client shares ~ Dirichlet(alpha, ...,
// alpha) (Hsu et al. 2019); small alpha: each client holds mostly one label. Deterministic for
// a seed. Returns the units of each client.
std::vector<std::vector<std::int64_t>> dirichlet_split(const std::vector<int>& labels, std::int64_t clients,
                                                       double alpha, std::uint64_t seed);

}  // namespace embpriv
