// Token shapes (data/tokenizers/token_shape.h): the case pattern and the digit-normalised form.
#include "tests/catch.h"

#include "data/tokenizers/token_shape.h"

using namespace embpriv;

TEST_CASE("a token's case pattern", "[data][privateai]") {
  CHECK(token_case("jane") == TokenCase::lower);
  CHECK(token_case("Jane") == TokenCase::capitalized);
  CHECK(token_case("IBM") == TokenCase::upper);
  CHECK(token_case("I") == TokenCase::upper);
  CHECK(token_case("McDonald") == TokenCase::mixed);
  CHECK(token_case("iPhone") == TokenCase::mixed);
  CHECK(token_case("42") == TokenCase::none);
  CHECK(token_case("@") == TokenCase::none);
  CHECK(token_case("B2B") == TokenCase::upper);  // digits do not count
  CHECK(std::string(to_string(TokenCase::capitalized)) == "capitalized");
}

TEST_CASE("normalised tokens: lower case, digits as 0", "[data][privateai]") {
  CHECK(normalized_token("555") == "000");
  CHECK(normalized_token("Bob") == "bob");
  CHECK(normalized_token("Win2K") == "win0k");
  CHECK(normalized_token("@") == "@");
  CHECK(normalized_token("") == "");
}
