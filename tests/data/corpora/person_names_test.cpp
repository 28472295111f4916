// Person names for the PrivateAI labeller (data/corpora/person_names.h): "Given Family" pairs.
#include "tests/catch.h"

#include "data/corpora/person_names.h"

using namespace embpriv;
using Pairs = std::vector<std::string>;

TEST_CASE("name pairs: consecutive name-like words, initials skipped", "[data][privateai]") {
  CHECK(name_pairs("\"Jane Q. Doe\" <jane.doe@example.org>") == Pairs{"Jane Doe"});
  CHECK(name_pairs("Mary Ann Smith wrote") == Pairs{"Mary Ann", "Ann Smith"});
  CHECK(name_pairs("Thanks, Bob Smith.") == Pairs{"Bob Smith"});
  CHECK(name_pairs("Bob Smith's car") == Pairs{"Bob Smith"});
  CHECK(name_pairs("the end") == Pairs{});
}

TEST_CASE("name pairs: what breaks a name", "[data][privateai]") {
  CHECK(name_pairs("Doe, Jane") == Pairs{});             // punctuation
  CHECK(name_pairs("Support Team").empty());            // role words
  CHECK(name_pairs("Jane Support Doe").empty());        // a role word between
  CHECK(name_pairs("JANE DOE and IBM").empty());        // not written like names
  CHECK(name_pairs("Jane <b>Doe</b>").empty());         // a tag between
  CHECK(name_pairs("Jane.Doe@example.org Bob").empty());  // an address
  CHECK(name_pairs("http://example.org/Jane Doe").empty());  // "Jane" is in the URL
  CHECK(name_pairs("jm@jmason.org (Justin Mason)") == Pairs{"Justin Mason"});
}
