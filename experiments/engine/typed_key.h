#pragma once
// A declared config key with the C++ type of its value: the ConfigKey declaration (path, kind,
// default, range or choices, help: what the defaults document, the value checks and the key
// tables are made from) and the typed read of one point's resolved config. A type declares each
// of its keys once, as a Key, lists them in its keys() and reads them through the same objects
// (settings, memory estimates, plots), so a key's path is written once:
//
//   inline const Key<std::int64_t> kDim = integer_key("data.dim", 4096, "the dimension d").at_least(2);
//   ConfigKeys keys() const override { return {kDim, ...}; }
//   const std::int64_t d = kDim(config);
//
// Text keys with a fixed set of names read as a value of their own type (an enum) through a
// ChoiceKey, whose table of (value, name) pairs is at once the declared one_of list and the
// parser: the names are written once, and a name outside the list is refused, never mapped to a
// fallback.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "experiments/engine/config_document.h"
#include "experiments/engine/config_keys.h"

namespace embpriv {

// What every typed key shares: its declaration, which a ConfigKeys list takes as it is.
class DeclaredKey {
 public:
  explicit DeclaredKey(ConfigKey declaration) : declaration_(std::move(declaration)) {}
  const ConfigKey& declaration() const { return declaration_; }
  operator const ConfigKey&() const { return declaration_; }  // NOLINT: a Key is listed as its declaration
  const std::string& path() const { return declaration_.path; }

 protected:
  // The key's value in a point's resolved config; ConfigError(path, "PATH is missing") without one.
  YAML::Node value_in(const YAML::Node& config) const {
    YAML::Node value = find_path(config, declaration_.path);
    if (!value) throw ConfigError(declaration_.path, declaration_.path + " is missing");
    return value;
  }
  ConfigKey declaration_;
};

// The kind a value of C++ type T is declared with.
template <class T>
constexpr KeyKind kind_of() {
  if constexpr (std::is_same_v<T, bool>) {
    return KeyKind::boolean;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return KeyKind::integer;
  } else if constexpr (std::is_same_v<T, double>) {
    return KeyKind::number;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return KeyKind::text;
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    return KeyKind::numbers;
  } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
    return KeyKind::integers;
  } else {
    static_assert(std::is_same_v<T, std::vector<std::string>>,
                  "Key<T>: T is one of std::int64_t, double, bool, std::string or a std::vector of them "
                  "(a text key with fixed names is a ChoiceKey)");
    return KeyKind::texts;
  }
}

// What a value of kind T is, for a message ("data.dim must be an integer, got big").
template <class T>
const char* expected_value() {
  switch (kind_of<T>()) {
    case KeyKind::boolean: return "true or false";
    case KeyKind::integer: return "an integer";
    case KeyKind::number: return "a number";
    case KeyKind::text: return "text";
    case KeyKind::numbers: return "a list of numbers";
    case KeyKind::integers: return "a list of integers";
    default: return "a list of texts";
  }
}

// A key whose value reads as T (integer: std::int64_t, number: double, boolean: bool, text:
// std::string, lists: std::vector of those).
template <class T>
class Key : public DeclaredKey {
 public:
  explicit Key(ConfigKey declaration) : DeclaredKey(std::move(declaration)) {
    EMBPRIV_ASSERT(declaration_.kind == kind_of<T>(), "config key " << declaration_.path << " is declared as "
                                                                    << kind_name(declaration_.kind)
                                                                    << " but read as " << kind_name(kind_of<T>()));
  }

  // The value at the key's path of one point's resolved config (which the engine has checked
  // against the declaration); ConfigError(path, "PATH must be KIND, got VALUE") otherwise.
  T read(const YAML::Node& config) const {
    const YAML::Node value = value_in(config);
    try {
      return value.as<T>();
    } catch (const YAML::Exception&) {
      throw ConfigError(path(), path() + " must be " + expected_value<T>() + ", got " + flow_yaml(value));
    }
  }
  T operator()(const YAML::Node& config) const { return read(config); }

  // The allowed range (config_keys.h), chainable on the typed key.
  Key& at_least(double v) { return declaration_.at_least(v), *this; }
  Key& above(double v) { return declaration_.above(v), *this; }
  Key& at_most(double v) { return declaration_.at_most(v), *this; }
  Key& below(double v) { return declaration_.below(v), *this; }
  // Text keys read as text whose names another part checks (e.g. a mechanism's name).
  Key& one_of(std::vector<std::string> names) { return declaration_.one_of(std::move(names)), *this; }
  // The same key with its help worded for one type's use of it (a shared key's default, kind
  // and range stay those of its one declaration).
  Key with_help(std::string help) const {
    Key copy = *this;
    copy.declaration_.help = std::move(help);
    return copy;
  }
};

// The typed counterparts of ConfigKey's factories.
inline Key<std::int64_t> integer_key(std::string path, std::int64_t fallback, std::string help) {
  return Key<std::int64_t>(ConfigKey::integer(std::move(path), fallback, std::move(help)));
}
// A number's default is written as YAML text, which the stored config keeps verbatim ("1.0e-3").
inline Key<double> number_key(std::string path, std::string fallback_yaml, std::string help) {
  return Key<double>(ConfigKey::number(std::move(path), std::move(fallback_yaml), std::move(help)));
}
// A number whose default is a library struct's (the one source of the value), written as
// `written` in the stored config; the text must read back as exactly that value.
inline Key<double> number_key(std::string path, double fallback, std::string written, std::string help) {
  EMBPRIV_ASSERT(YAML::Load(written).as<double>() == fallback,
                 "config key " << path << ": its default text '" << written << "' does not read as " << fallback);
  return number_key(std::move(path), std::move(written), std::move(help));
}
inline Key<std::string> text_key(std::string path, std::string fallback, std::string help) {
  return Key<std::string>(ConfigKey::text(std::move(path), std::move(fallback), std::move(help)));
}
inline Key<bool> boolean_key(std::string path, bool fallback, std::string help) {
  return Key<bool>(ConfigKey::boolean(std::move(path), fallback, std::move(help)));
}
inline Key<std::vector<std::string>> texts_key(std::string path, const std::vector<std::string>& fallback,
                                               std::string help) {
  return Key<std::vector<std::string>>(ConfigKey::texts(std::move(path), fallback, std::move(help)));
}

// The names of a choice key's values, in the order the key table lists them.
template <class V>
using Choices = std::vector<std::pair<V, std::string>>;

// The names of enum values as a library's to_string writes them.
template <class E, class ToString>
Choices<E> named_choices(const std::vector<E>& values, ToString to_string) {
  Choices<E> choices;
  for (E value : values) choices.emplace_back(value, to_string(value));
  return choices;
}

// A text key whose names, declared by the choice table, read as values of type V.
template <class V>
class ChoiceKey : public DeclaredKey {
 public:
  // The default is a value (a library struct's, say): the key writes its name.
  ChoiceKey(std::string path, const V& fallback, Choices<V> choices, std::string help)
      : DeclaredKey(ConfigKey::text(path, name_in(choices, fallback, path), std::move(help))),
        choices_(std::move(choices)) {
    std::vector<std::string> names;
    for (const auto& choice : choices_) names.push_back(choice.second);
    declaration_.one_of(std::move(names));
  }

  // The value named at the key's path of one point's resolved config; a name outside the
  // choices is a ConfigError ("PATH must be a, b or c, got 'x'").
  V read(const YAML::Node& config) const {
    const YAML::Node value = value_in(config);
    const std::string name = value.IsScalar() ? value.Scalar() : flow_yaml(value);
    for (const auto& [choice, choice_name] : choices_) {
      if (choice_name == name) return choice;
    }
    throw ConfigError(path(), path() + " must be " + declaration_.allowed() + ", got '" + name + "'");
  }
  V operator()(const YAML::Node& config) const { return read(config); }

  // The name of a value (as the key table and a stored config write it).
  const std::string& name_of(const V& value) const { return name_in(choices_, value, declaration_.path); }
  const Choices<V>& choices() const { return choices_; }
  // The same key with its help worded for one type's use of it (typed Key: with_help).
  ChoiceKey with_help(std::string help) const {
    ChoiceKey copy = *this;
    copy.declaration_.help = std::move(help);
    return copy;
  }

 private:
  static const std::string& name_in(const Choices<V>& choices, const V& value, const std::string& path) {
    for (const auto& choice : choices) {
      if (choice.first == value) return choice.second;
    }
    EMBPRIV_ASSERT(false, "config key " << path << ": a value has no name among its choices");
    return path;  // not reached: the assertion throws
  }
  Choices<V> choices_;
};

template <class V>
ChoiceKey<V> choice_key(std::string path, const V& fallback, Choices<V> choices, std::string help) {
  return ChoiceKey<V>(std::move(path), fallback, std::move(choices), std::move(help));
}

}  // namespace embpriv
