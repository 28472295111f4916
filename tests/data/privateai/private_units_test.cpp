// PrivateAI's data (data/privateai/private_units.h): the labeller's rules on crafted text (each rule and
// its near misses), the units of the real SpamAssassin e-mails, and the Dirichlet split
// (a partition; skewed for small alpha, near even for large; seeded).
#include "tests/catch.h"

#include <cmath>
#include <set>

#include "core/error.h"
#include "data/tables/data_paths.h"
#include "data/privateai/private_units.h"

using namespace embpriv;

TEST_CASE("the labeller's rules and their near misses", "[data][privateai]") {
  CHECK(label_unit("write to jane.doe@example.org today", {}) == kEmailAddress);
  CHECK(label_unit("write to jane.doe at example dot org", {}) == 0);
  CHECK(label_unit("call (555) 123-4567 after six", {}) == kPhoneNumber);
  CHECK(label_unit("call +44 20 7946 0958", {}) == kPhoneNumber);
  CHECK(label_unit("order 12345 shipped 2002-09-08", {}) == 0);
  CHECK(label_unit("the server at 192.168.0.17 is down", {}) == kIpAddress);
  CHECK(label_unit("not an address: 999.1.1.1", {}) == 0);
  // user:password@host also reads as an address: both kinds.
  CHECK(label_unit("see ftp://bob:secret@files.example.org/x", {}) == (kUserUrl | kEmailAddress));
  CHECK(label_unit("see http://www.example.org/~alice/notes.html", {}) == kUserUrl);
  CHECK(label_unit("see http://www.example.org/index.html", {}) == 0);
  const std::vector<std::string> names =
      header_names("From: \"Jane Q. Doe\" <jane.doe@example.org>\nTo: list@example.org\nCc: Bob Smith <bob@y.net>,\n"
                   " Support Team <help@z.com>, jm@jmason.org (Justin Mason)\nSubject: Bob\n");
  CHECK(names == std::vector<std::string>{"Bob Smith", "Jane Doe", "Justin Mason"});
  CHECK(header_names("From: Lockergnome <news@lockergnome.com>\n").empty());  // one word: not a person's name
  CHECK(label_unit("On Monday, Jane Doe wrote:", names) == kHeaderName);
  CHECK(label_unit("On Monday, Jane Q. Doe wrote:", names) == kHeaderName);
  CHECK(label_unit("Jane wrote nothing", names) == 0);                    // a given name alone is not the name
  CHECK(label_unit("jane doe wrote nothing", names) == 0);                // names match as written
  CHECK(label_unit("Doe, Jane: nothing", names) == 0);                    // nor reversed
  CHECK(label_unit("<a href=\"Jane Doe\">click</a> here", names) == 0);  // not inside HTML tags
  CHECK(label_unit("http://www.example.org/Jane Doe/ here", names) == 0);  // "Jane" is in the URL
  CHECK(label_unit("see http://www.example.org/JaneDoe/Bob_Smith here", names) == 0);  // nor inside URLs
  CHECK(describe_private_kinds(kEmailAddress | kHeaderName) == "email_address+header_name");
}

TEST_CASE("units of the real e-mails: about 214,000, about 5% private", "[data][privateai]") {
  const std::vector<Email> emails = load_spam_assassin(resolve_data_path(kSpamAssassinPackage));
  const std::vector<TextUnit> units = labelled_units(emails);
  std::int64_t private_units = 0, emails_seen = 0, last = -1;
  for (const TextUnit& u : units) {
    private_units += u.label();
    CHECK(u.text.size() >= 20);
    emails_seen += u.email != last;
    last = u.email;
  }
  INFO(units.size() << " units, " << private_units << " private");
  CHECK(units.size() > 200000);
  CHECK(units.size() < 230000);
  CHECK(private_units > 8000);
  CHECK(private_units < 12000);
  CHECK(emails_seen > 5900);  // a few e-mails have no line that makes a unit
  // Deterministic: the same labels again.
  const std::vector<TextUnit> again = email_units(emails[10], 10);
  std::int64_t k = 0;
  for (const TextUnit& u : units) {
    if (u.email == 10) CHECK(u.kinds == again[static_cast<std::size_t>(k++)].kinds);
  }
}

TEST_CASE("Dirichlet split: a seeded partition, skewed for small alpha", "[data][privateai]") {
  std::vector<int> labels(4000);
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = i % 4 == 0;  // 25% positive
  const auto skew = [&](double alpha) {
    const auto clients = dirichlet_split(labels, 10, alpha, 3);
    std::set<std::int64_t> seen;
    double deviation = 0;
    for (const auto& c : clients) {
      double positive = 0;
      for (std::int64_t i : c) {
        CHECK(seen.insert(i).second);  // each unit once
        positive += labels[static_cast<std::size_t>(i)];
      }
      if (!c.empty()) deviation += std::abs(positive / static_cast<double>(c.size()) - 0.25) / 10;
    }
    CHECK(seen.size() == labels.size());
    return deviation;
  };
  CHECK(skew(0.1) > 0.15);   // clients hold mostly one label
  CHECK(skew(100.0) < 0.03);  // close to the global 25%
  CHECK(dirichlet_split(labels, 10, 1.0, 3) == dirichlet_split(labels, 10, 1.0, 3));
  CHECK(dirichlet_split(labels, 10, 1.0, 3) != dirichlet_split(labels, 10, 1.0, 4));
  CHECK_THROWS_WITH(dirichlet_split(labels, 10, 0.0, 3), Catch::Contains("alpha must be finite and > 0"));
}
