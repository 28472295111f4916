#include "experiments/types/bounds/bounds_table.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <limits>
#include <map>
#include <ostream>

#include "core/error.h"
#include "experiments/engine/config_document.h"
#include "metrics/intervals.h"

namespace embpriv {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The numbers of one kind of check, each a column "<kind>_<field>".
const char* const kFields[] = {"expected", "measured", "lo", "hi", "standard_error", "pass"};

// How each kind of check decides pass.
const std::map<std::string, std::string>& rules() {
  static const std::map<std::string, std::string> rules = {
      {"norm_kept", "max |ratio-1| <= tol"},
      {"cosine_every_sample", "max |cos-expected| <= tol"},
      {"cor52_cosine", "equal to printed digits"},
      {"cor52_angle_degrees", "equal to printed digits"},
      {"mean_cosine", "expected in CI"},
      {"dot_product", "expected in CI"},
      {"norm_inflation", "expected in CI"},
      {"angle_varies", "sd(cos) > 100 tol"},
      {"angle_depends_on_norm", "CI of mean cos(||x||>=C) - mean cos(||x||<=C/2) > 0"}};
  return rules;
}

std::vector<double>& numbers(ResultsTable& table, const std::string& name) {
  for (Column& column : table.columns) {
    if (column.name == name) return std::get<std::vector<double>>(column.values);
  }
  EMBPRIV_ASSERT(false, "a bounds table has no column " << name);
  throw Error("unreachable");
}

const std::vector<double>& numbers(const ResultsTable& table, const std::string& name) {
  return std::get<std::vector<double>>(table.column(name).values);
}

const std::vector<std::string>& texts(const ResultsTable& table, const std::string& name) {
  return std::get<std::vector<std::string>>(table.column(name).values);
}

std::string format_number(double value) {
  if (std::isnan(value)) return "-";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

}  // namespace

const std::vector<std::string>& bounds_check_kinds() {
  static const std::vector<std::string> kinds = {
      "norm_kept",   "cosine_every_sample", "cor52_cosine",  "cor52_angle_degrees",
      "mean_cosine", "dot_product",         "norm_inflation", "angle_varies",
      "angle_depends_on_norm"};
  return kinds;
}

std::vector<std::string> bounds_number_columns() {
  std::vector<std::string> columns = {"d", "epsilon", "beta", "checks", "checks_failed"};
  for (const std::string& kind : bounds_check_kinds()) {
    for (const char* field : kFields) columns.push_back(kind + "_" + field);
  }
  return columns;
}

std::vector<std::string> bounds_string_columns() {
  std::vector<std::string> columns = {"mechanism_name", "mechanism_config"};
  for (const std::string& kind : bounds_check_kinds()) columns.push_back(kind + "_source");
  return columns;
}

void put_checks(const BoundsSetting& setting, const std::vector<CheckRow>& checks, PointResult& result) {
  std::map<std::string, const CheckRow*> by_kind;
  double failed = 0;
  for (const CheckRow& c : checks) {
    by_kind[c.check] = &c;
    failed += std::isnan(c.standard_error) && !c.pass;
  }
  result.set("d", static_cast<double>(setting.d));
  result.set("epsilon", checks.empty() ? setting.epsilon : checks.front().epsilon);
  result.set("beta", setting.beta);
  result.set("checks", static_cast<double>(checks.size()));
  result.set("checks_failed", failed);
  result.set("mechanism_name", setting.name);
  result.set("mechanism_config", flow_yaml(setting.mechanism));
  for (const std::string& kind : bounds_check_kinds()) {
    const auto found = by_kind.find(kind);
    const CheckRow* c = found == by_kind.end() ? nullptr : found->second;
    const bool judged = c && std::isnan(c->standard_error);  // interval checks: judge_intervals
    result.set(kind + "_expected", c ? c->expected : kNaN);
    result.set(kind + "_measured", c ? c->measured : kNaN);
    result.set(kind + "_lo", judged ? c->lo : kNaN);
    result.set(kind + "_hi", judged ? c->hi : kNaN);
    result.set(kind + "_standard_error", c ? c->standard_error : kNaN);
    result.set(kind + "_pass", judged ? (c->pass ? 1.0 : 0.0) : kNaN);
    result.set(kind + "_source", c ? c->source : std::string());
  }
}

std::vector<CheckRow> checks_from_table(const ResultsTable& table) {
  std::vector<CheckRow> checks;
  const auto& status = texts(table, "status");
  for (std::size_t i = 0; i < status.size(); ++i) {
    if (status[i] != "ok") continue;
    for (const std::string& kind : bounds_check_kinds()) {
      if (std::isnan(numbers(table, kind + "_measured")[i])) continue;
      CheckRow c;
      c.check = kind;
      c.source = texts(table, kind + "_source")[i];
      c.mechanism = texts(table, "mechanism_name")[i];
      c.mechanism_config = texts(table, "mechanism_config")[i];
      c.d = static_cast<std::int64_t>(numbers(table, "d")[i]);
      c.epsilon = numbers(table, "epsilon")[i];
      c.beta = numbers(table, "beta")[i];
      c.expected = numbers(table, kind + "_expected")[i];
      c.measured = numbers(table, kind + "_measured")[i];
      c.lo = numbers(table, kind + "_lo")[i];
      c.hi = numbers(table, kind + "_hi")[i];
      c.standard_error = numbers(table, kind + "_standard_error")[i];
      c.rule = rules().at(kind);
      c.pass = numbers(table, kind + "_pass")[i] == 1.0;
      checks.push_back(c);
    }
  }
  return checks;
}

void judge_intervals(ResultsTable& table, double confidence) {
  const std::size_t rows = texts(table, "status").size();
  std::size_t m = 0;
  for (const std::string& kind : bounds_check_kinds()) {
    for (double se : numbers(table, kind + "_standard_error")) m += !std::isnan(se);
  }
  if (m == 0) return;
  const double z = normal_two_sided_quantile(1.0 - (1.0 - confidence) / static_cast<double>(m));
  std::vector<double>& failed = numbers(table, "checks_failed");
  for (const std::string& kind : bounds_check_kinds()) {
    const std::vector<double>& se = numbers(table, kind + "_standard_error");
    const std::vector<double>& measured = numbers(table, kind + "_measured");
    const std::vector<double>& expected = numbers(table, kind + "_expected");
    std::vector<double>& lo = numbers(table, kind + "_lo");
    std::vector<double>& hi = numbers(table, kind + "_hi");
    std::vector<double>& pass = numbers(table, kind + "_pass");
    const bool contains_expected = rules().at(kind) == "expected in CI";
    for (std::size_t i = 0; i < rows; ++i) {
      if (std::isnan(se[i]) || !std::isnan(pass[i])) continue;  // exact, or judged already
      lo[i] = measured[i] - z * se[i];
      hi[i] = measured[i] + z * se[i];
      const bool ok = contains_expected ? (lo[i] <= expected[i] && expected[i] <= hi[i]) : lo[i] > 0;
      pass[i] = ok ? 1.0 : 0.0;
      failed[i] += !ok;
    }
  }
}

void print_bounds_table(std::ostream& out, const std::vector<CheckRow>& rows) {
  out << std::left << std::setw(22) << "check" << std::setw(31) << "source" << std::setw(12)
      << "mechanism" << std::setw(6) << "d" << std::setw(10) << "eps" << std::setw(6) << "beta"
      << std::setw(13) << "expected" << std::setw(13) << "measured" << std::setw(27)
      << "interval" << "result\n";
  std::size_t passed = 0;
  for (const CheckRow& r : rows) {
    passed += r.pass;
    out << std::setw(22) << r.check << std::setw(31) << r.source.substr(0, 30) << std::setw(12)
        << r.mechanism << std::setw(6) << r.d << std::setw(10) << format_number(r.epsilon)
        << std::setw(6) << format_number(r.beta) << std::setw(13) << format_number(r.expected)
        << std::setw(13) << format_number(r.measured) << std::setw(27)
        << ("[" + format_number(r.lo) + ", " + format_number(r.hi) + "]")
        << (r.pass ? "PASS" : "FAIL") << "\n";
  }
  out << "bounds: " << passed << " of " << rows.size() << " checks pass\n";
}

}  // namespace embpriv
