#pragma once
// A mechanism's keys without any file format. Each mechanism declares its keys once, as a table
// of typed fields (name, default, help, allowed range) over its parameter struct
// (mechanisms/mechanism_params.h); adapters turn what a user wrote into a MechanismConfig: YAML
// maps in experiments/engine/mechanism_yaml.h, Python dicts in python/mechanisms.cpp.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace embpriv {

// One value as the user wrote it. `number` is set when it reads as a number, `text` when it is a
// scalar (a number's own digits included), `shown` is how messages quote it ("'two'",
// "'1' (quoted: text)").
struct ParamValue {
  std::optional<double> number;
  std::optional<std::string> text;
  std::string shown;
};

// A mechanism as a config names it: its `name` (empty when none was given) and its other keys in
// the order given.
struct MechanismConfig {
  std::string name;
  std::vector<std::pair<std::string, ParamValue>> values;
};

// The values a key allows; the checks are core/params.h's, so that their messages are the ones
// the mechanisms' constructors give.
enum class ParamRange {
  any,       // no check here (the constructor checks, or the key is text)
  positive,  // finite and > 0
  unit_open  // finite and in (0, 1)
};

struct ParamSpec {
  enum class Kind { number, text, any };

  std::string name;
  Kind kind = Kind::any;
  bool required = false;               // no default: the config must give the key
  std::optional<double> number_default;
  std::optional<std::string> text_default;
  ParamRange range = ParamRange::any;
  std::vector<std::string> choices;    // the texts a text key accepts
  std::string help;

  ParamSpec() = default;
  // A key known by its name only (any value; its factory reads and checks it).
  ParamSpec(const char* key) : name(key) {}  // NOLINT: implicit, so {"epsilon", "beta"} lists keys
  ParamSpec(std::string key) : name(std::move(key)) {}  // NOLINT

  // "> 0", "in (0, 1)", "classic or analytic", or "" without a range.
  std::string range_text() const;
  // "1", "1e-05", "analytic", or "required".
  std::string default_text() const;
  // Throws embpriv::Error naming the key when a given value is of the wrong kind or out of range.
  void check(const std::string& mechanism, const ParamValue& value) const;
};

// The checked values of one mechanism's config, as its factory reads them: a key the config
// leaves out gives its declared default.
class MechanismParams {
 public:
  MechanismParams(std::string mechanism, std::vector<std::pair<std::string, ParamValue>> values,
                  std::vector<ParamSpec> specs);
  double number(const std::string& key) const;  // the value, else the default; required if none
  double number_or(const std::string& key, double fallback) const;
  std::string text(const std::string& key) const;  // the value, else the default
  std::string text_or(const std::string& key, const std::string& fallback) const;
  bool has(const std::string& key) const;

 private:
  const ParamValue* find(const std::string& key) const;
  const ParamSpec* spec(const std::string& key) const;

  std::string mechanism_;
  std::vector<std::pair<std::string, ParamValue>> values_;
  std::vector<ParamSpec> specs_;
};

// A parameter struct P's keys, each declared once with the member it fills: the specs list them
// (for messages, `embpriv mechanisms` and docs) and read() builds a P from checked values.
template <class P>
class ParamTable {
 public:
  // A number key; no default (std::nullopt) makes it required.
  ParamTable& number(std::string name, double P::*member, std::optional<double> fallback, ParamRange range,
                     std::string help) {
    ParamSpec spec(name);
    spec.kind = ParamSpec::Kind::number;
    spec.required = !fallback.has_value();
    spec.number_default = fallback;
    spec.range = range;
    spec.help = std::move(help);
    specs_.push_back(std::move(spec));
    readers_.push_back([name, member](const MechanismParams& p, P& out) { out.*member = p.number(name); });
    return *this;
  }

  // A text key with a fixed set of choices, parsed into the member by `parse` (which names the
  // choices when it refuses a text).
  template <class E>
  ParamTable& choice(std::string name, E P::*member, std::string fallback, std::vector<std::string> choices,
                     E (*parse)(std::string_view), std::string help) {
    ParamSpec spec(name);
    spec.kind = ParamSpec::Kind::text;
    spec.text_default = std::move(fallback);
    spec.choices = std::move(choices);
    spec.help = std::move(help);
    specs_.push_back(std::move(spec));
    readers_.push_back([name, member, parse](const MechanismParams& p, P& out) { out.*member = parse(p.text(name)); });
    return *this;
  }

  const std::vector<ParamSpec>& specs() const { return specs_; }

  P read(const MechanismParams& params) const {
    P out{};
    for (const auto& reader : readers_) reader(params, out);
    return out;
  }

 private:
  std::vector<ParamSpec> specs_;
  std::vector<std::function<void(const MechanismParams&, P&)>> readers_;
};

}  // namespace embpriv
