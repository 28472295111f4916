// Typed keys (experiments/engine/typed_key.h): the declaration a key table and the defaults
// document are made from, and the typed read of a point's config, from one object.
#include "tests/catch.h"

#include <optional>

#include "experiments/engine/typed_key.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

enum class Fruit { apple, pear };

const char* to_string(Fruit f) { return f == Fruit::apple ? "apple" : "pear"; }

}  // namespace

TEST_CASE("a typed key is its declaration and reads its value from a point's config", "[config][keys]") {
  const Key<std::int64_t> dim = integer_key("data.dim", 4096, "the dimension d").at_least(2);
  const Key<double> rate = number_key("train.learning_rate", "1.0e-3", "Adam's rate").above(0);
  const Key<std::vector<std::string>> files = texts_key("data.files", {"a.json", "b.json"}, "files");
  const ConfigKeys keys = {dim, rate, files};
  CHECK(keys[0].path == "data.dim");
  CHECK(keys[0].kind == KeyKind::integer);
  CHECK(keys[0].allowed() == ">= 2");
  CHECK(keys[1].default_yaml == "1.0e-3");  // the text a stored config keeps
  const YAML::Node defaults = defaults_document(keys);
  CHECK(dim(defaults) == 4096);
  CHECK(rate(defaults) == 1e-3);
  CHECK(files(defaults) == std::vector<std::string>{"a.json", "b.json"});
  const YAML::Node config = YAML::Load("{data: {dim: 16}, train: {learning_rate: 0.5}}");
  CHECK(dim(config) == 16);
  CHECK(rate(config) == 0.5);
  CHECK_THROWS_WITH(files(config), Contains("data.files is missing"));
  CHECK_THROWS_WITH(dim(YAML::Load("{data: {dim: big}}")), Contains("data.dim must be an integer, got big"));
}

TEST_CASE("a typed key read as another kind than declared is an internal error", "[config][keys]") {
  CHECK_THROWS_WITH(Key<double>(ConfigKey::integer("rounds", 10, "rounds")),
                    Contains("declared as integer but read as number"));
  // A default taken from a library struct must be what the written text says.
  CHECK_NOTHROW(number_key("server.eta", 1e-4, "1.0e-4", "rate"));
  CHECK_THROWS_WITH(number_key("server.eta", 1e-4, "1.0e-3", "rate"), Contains("does not read as"));
}

TEST_CASE("a choice key declares its names once and reads them as values, refusing any other",
          "[config][keys]") {
  const ChoiceKey<Fruit> fruit =
      choice_key("fruit", Fruit::pear, named_choices<Fruit>({Fruit::apple, Fruit::pear}, to_string), "a fruit");
  const ConfigKey& declared = fruit;
  CHECK(declared.default_yaml == "pear");
  CHECK(declared.choices == std::vector<std::string>{"apple", "pear"});
  CHECK(declared.allowed() == "apple or pear");
  CHECK(fruit(YAML::Load("{fruit: apple}")) == Fruit::apple);
  CHECK(fruit(defaults_document({fruit})) == Fruit::pear);
  // No silent fallback: a name outside the list is an error naming the key and the choices.
  CHECK_THROWS_WITH(fruit(YAML::Load("{fruit: plum}")), Contains("fruit must be apple or pear, got 'plum'"));
  CHECK(fruit.name_of(Fruit::apple) == "apple");
  // A choice key's values need not be an enum: "published" can stand for no choice of one's own.
  const ChoiceKey<std::optional<Fruit>> maybe = choice_key<std::optional<Fruit>>(
      "maybe", std::nullopt, {{std::nullopt, "published"}, {Fruit::apple, "apple"}}, "a fruit or the default");
  CHECK(static_cast<const ConfigKey&>(maybe).default_yaml == "published");
  CHECK(maybe(YAML::Load("{maybe: published}")) == std::nullopt);
  CHECK(maybe(YAML::Load("{maybe: apple}")) == Fruit::apple);
}
