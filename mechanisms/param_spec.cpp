#include "mechanisms/param_spec.h"

#include <sstream>

#include "core/error.h"
#include "core/params.h"

namespace embpriv {
namespace {

// The shortest decimal text that reads back as the same double (1e-05, not 1.0000000000000001e-05).
std::string shortest(double value) {
  for (int precision = 1; precision <= 17; ++precision) {
    std::ostringstream out;
    out.precision(precision);
    out << value;
    if (std::stod(out.str()) == value) return out.str();
  }
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

}  // namespace

std::string ParamSpec::range_text() const {
  switch (range) {
    case ParamRange::positive: return "> 0";
    case ParamRange::unit_open: return "in (0, 1)";
    case ParamRange::any: break;
  }
  std::string text;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  }
  return text;
}

std::string ParamSpec::default_text() const {
  if (number_default) return shortest(*number_default);
  if (text_default) return *text_default;
  return required ? "required" : "";
}

void ParamSpec::check(const std::string& mechanism, const ParamValue& value) const {
  if (kind == Kind::number) {
    EMBPRIV_CHECK(value.number.has_value(),
                  "mechanism " << mechanism << ": " << name << " must be a number, got " << value.shown);
    if (range == ParamRange::positive) require_positive(name, *value.number);
    if (range == ParamRange::unit_open) require_open_interval(name, *value.number, 0.0, 1.0);
  } else if (kind == Kind::text) {
    EMBPRIV_CHECK(value.text.has_value(), "mechanism " << mechanism << ": " << name << " must be a string");
  }
}

MechanismParams::MechanismParams(std::string mechanism, std::vector<std::pair<std::string, ParamValue>> values,
                                 std::vector<ParamSpec> specs)
    : mechanism_(std::move(mechanism)), values_(std::move(values)), specs_(std::move(specs)) {}

const ParamValue* MechanismParams::find(const std::string& key) const {
  for (const auto& [name, value] : values_) {
    if (name == key) return &value;
  }
  return nullptr;
}

const ParamSpec* MechanismParams::spec(const std::string& key) const {
  for (const ParamSpec& s : specs_) {
    if (s.name == key) return &s;
  }
  return nullptr;
}

bool MechanismParams::has(const std::string& key) const { return find(key) != nullptr; }

double MechanismParams::number(const std::string& key) const {
  const ParamValue* value = find(key);
  const ParamSpec* declared = spec(key);
  if (!value && declared && declared->number_default) return *declared->number_default;
  EMBPRIV_CHECK(value, "mechanism " << mechanism_ << ": missing required key '" << key << "'");
  EMBPRIV_CHECK(value->number.has_value(),
                "mechanism " << mechanism_ << ": " << key << " must be a number, got " << value->shown);
  return *value->number;
}

double MechanismParams::number_or(const std::string& key, double fallback) const {
  return has(key) ? number(key) : fallback;
}

std::string MechanismParams::text(const std::string& key) const {
  const ParamValue* value = find(key);
  const ParamSpec* declared = spec(key);
  if (!value && declared && declared->text_default) return *declared->text_default;
  EMBPRIV_CHECK(value, "mechanism " << mechanism_ << ": missing required key '" << key << "'");
  EMBPRIV_CHECK(value->text.has_value(), "mechanism " << mechanism_ << ": " << key << " must be a string");
  return *value->text;
}

std::string MechanismParams::text_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? text(key) : fallback;
}

}  // namespace embpriv
