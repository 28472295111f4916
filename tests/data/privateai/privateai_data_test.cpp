// The four parts of a PrivateAI run's data (data/privateai/privateai_data.h), on the real e-mails.
#include "data/privateai/privateai_data.h"

#include <ATen/ATen.h>

#include <set>

#include "data/privateai/private_units.h"
#include "tests/catch.h"
#include "tests/federated/privateai_test_data.h"

using namespace embpriv;

namespace {

double private_share(const EncodedUnits& units) { return units.labels.mean().item<double>(); }

std::set<std::string> texts_of(const EncodedUnits& units) { return {units.texts.begin(), units.texts.end()}; }

}  // namespace

TEST_CASE("privateai data: parts of the asked sizes and private share, each text once", "[privateai]") {
  const PrivateAiData& data = small_privateai_data();
  CHECK(data.candidates.ids.size(0) == 400);
  CHECK(data.proxy.ids.size(0) == 300);
  CHECK(data.test.ids.size(0) == 400);
  for (const EncodedUnits* part : {&data.candidates, &data.proxy, &data.public_split, &data.test}) {
    CHECK(private_share(*part) == 0.5);
    CHECK(part->ids.max().item<std::int64_t>() < data.embeddings.size(0));
  }
  // Every text once: within a part and across parts (mailing-list footers recur in hundreds of
  // e-mails and would otherwise be members and non-members, training and test units at once).
  for (const EncodedUnits* part : {&data.candidates, &data.proxy, &data.test}) {
    CHECK(texts_of(*part).size() == part->texts.size());
  }
  const std::set<std::string> test = texts_of(data.test);
  std::size_t shared = 0;
  for (const std::string& t : data.candidates.texts) shared += test.count(t);
  CHECK(shared == 0);
}

TEST_CASE("privateai data: a proxy set of review sentences, the other parts unchanged", "[privateai]") {
  PrivateAiDataSettings s = small_privateai_settings();
  s.proxy_reviews = {"sentiment/yelp.json"};
  const PrivateAiData reviews = load_privateai_data(s);
  const PrivateAiData& emails = small_privateai_data();
  REQUIRE(reviews.proxy.ids.size(0) == 300);
  CHECK(reviews.candidates.texts == emails.candidates.texts);
  CHECK(reviews.test.texts == emails.test.texts);
  // Reviews rarely hold what the rules flag; the e-mail proxy is drawn half private.
  CHECK(private_share(reviews.proxy) < 0.05);
  // Their texts are review sentences, none of them an e-mail line of the proxy.
  std::size_t overlap = 0;
  const std::set<std::string> email_proxy = texts_of(emails.proxy);
  for (const std::string& t : reviews.proxy.texts) overlap += email_proxy.count(t);
  CHECK(overlap == 0);
  CHECK(texts_of(reviews.proxy).size() == 300);
}

TEST_CASE("privateai data: transfer heterogeneity skews only the proxy", "[privateai]") {
  PrivateAiDataSettings s = small_privateai_settings();
  const PrivateAiData& even = small_privateai_data();
  s.proxy_beta = 0.1;
  const PrivateAiData skewed = load_privateai_data(s);
  s.proxy_beta = 1000;
  const PrivateAiData close = load_privateai_data(s);
  CHECK(skewed.candidates.texts == even.candidates.texts);
  CHECK(skewed.test.texts == even.test.texts);
  REQUIRE(skewed.proxy.ids.size(0) == 300);
  INFO("TV distance of the proxy's categories from the clients': even " << even.proxy_distance << ", beta 0.1 "
                                                                       << skewed.proxy_distance << ", beta 1000 "
                                                                       << close.proxy_distance);
  CHECK(even.proxy_distance < 0.15);  // drawn like the clients' (half private), kinds in their own mix
  CHECK(skewed.proxy_distance > 0.3);
  CHECK(close.proxy_distance < 0.15);
}

TEST_CASE("privateai data: token shapes tell case and keep digit patterns", "[privateai]") {
  PrivateAiDataSettings s = small_privateai_settings();
  s.token_shapes = false;
  const PrivateAiData plain = load_privateai_data(s);
  const PrivateAiData& shaped = small_privateai_data();  // token_shapes on: the default
  REQUIRE(shaped.candidates.texts == plain.candidates.texts);
  // More rows with shapes: "Bob" and "bob" differ; digits collapse ("555" and "123" are "000").
  INFO(shaped.embeddings.size(0) << " rows with shapes, " << plain.embeddings.size(0) << " without");
  CHECK(shaped.embeddings.size(0) != plain.embeddings.size(0));
  // The same units, token by token: where the unshaped ids agree, the shaped ids can differ only by
  // case; the number of tokens per unit is the same.
  CHECK(shaped.candidates.ids.ne(0).sum(1).equal(plain.candidates.ids.ne(0).sum(1)));
}
