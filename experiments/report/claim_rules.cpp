#include "experiments/report/claim_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>
#include <sstream>
#include <vector>

#include "core/error.h"

namespace embpriv {

std::string format_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

namespace {

// One table and the claim that reads it: every lookup names both in its errors.
class TableView {
 public:
  TableView(const ResultsTable& table, const std::string& where, const std::string& results_path)
      : table_(table), where_(where), results_path_(results_path) {}

  const Column& column(const std::string& name) const {
    EMBPRIV_CHECK(table_.has_column(name), where_ << ": column '" << name << "' is not in " << results_path_
                                                  << " (" << column_list() << ")");
    return table_.column(name);
  }

  double number(const std::string& name, std::size_t row) const {
    const Column& c = column(name);
    if (const auto* d = std::get_if<std::vector<double>>(&c.values)) return (*d)[row];
    if (const auto* i = std::get_if<std::vector<std::int64_t>>(&c.values)) return static_cast<double>((*i)[row]);
    throw Error(where_ + ": column '" + name + "' of " + results_path_ + " holds text, not numbers");
  }

  bool holds_text(const std::string& name) const {
    return std::holds_alternative<std::vector<std::string>>(column(name).values);
  }

  const std::string& where() const { return where_; }
  const std::string& results_path() const { return results_path_; }

  std::string text(const std::string& name, std::size_t row) const {
    const Column& c = column(name);
    if (const auto* s = std::get_if<std::vector<std::string>>(&c.values)) return (*s)[row];
    return format_number(number(name, row));
  }

  bool matches(std::size_t row, const Selection& selection) const {
    for (const auto& [name, match] : selection) {
      const Column& c = column(name);
      if (match.min || match.max) {
        const double v = number(name, row);
        if (match.min && !(v >= *match.min)) return false;
        if (match.max && !(v <= *match.max)) return false;
        continue;
      }
      bool any = false;
      if (const auto* s = std::get_if<std::vector<std::string>>(&c.values)) {
        any = std::find(match.values.begin(), match.values.end(), (*s)[row]) != match.values.end();
      } else {
        const double v = number(name, row);
        for (const std::string& wanted : match.values) {
          char* end = nullptr;
          const double w = std::strtod(wanted.c_str(), &end);
          EMBPRIV_CHECK(end != wanted.c_str() && *end == '\0',
                        where_ << ": column '" << name << "' is numeric; '" << wanted << "' is not a number");
          if (std::abs(v - w) <= 1e-9 * std::max(1.0, std::abs(w))) any = true;
        }
      }
      if (!any) return false;
    }
    return true;
  }

  // The rows with status ok (every row when the table has no status column) that `selection`
  // keeps. Its listed values (the swept settings) keeping no row is an error: the claim names
  // rows the file does not hold (a typo, another config). Its ranges may then keep none (e.g. no
  // row with accuracy_drop <= 0.06): that is a result, and the rule reading them fails.
  std::vector<std::size_t> rows(const Selection& selection, const std::string& what) const {
    Selection listed, ranges;
    for (const auto& [name, match] : selection) (match.min || match.max ? ranges : listed)[name] = match;
    std::vector<std::size_t> kept;
    const bool has_status = table_.has_column("status");
    for (std::size_t r = 0; r < table_.rows(); ++r) {
      if (has_status && text("status", r) != "ok") continue;
      if (matches(r, listed)) kept.push_back(r);
    }
    EMBPRIV_CHECK(!kept.empty(), where_ << ": " << what << " selects no row with status ok of " << results_path_
                                        << " (" << describe(listed) << ")");
    std::vector<std::size_t> in_range;
    for (std::size_t r : kept) {
      if (matches(r, ranges)) in_range.push_back(r);
    }
    return in_range;
  }

  std::size_t seeds(const std::vector<std::size_t>& rows) const {
    if (!table_.has_column("seed")) return 0;
    std::set<double> seen;
    for (std::size_t r : rows) seen.insert(number("seed", r));
    return seen.size();
  }

  static std::string describe(const Selection& selection) {
    if (selection.empty()) return "all rows";
    std::string text;
    for (const auto& [name, match] : selection) {
      text += (text.empty() ? "" : ", ") + name + " ";
      if (match.min || match.max) {
        text += match.min ? (match.max ? "in [" + format_number(*match.min) + ", " + format_number(*match.max) + "]"
                                       : ">= " + format_number(*match.min))
                          : "<= " + format_number(*match.max);
      } else {
        std::string values;
        for (const std::string& v : match.values) values += (values.empty() ? "" : "|") + v;
        text += values;
      }
    }
    return text;
  }

 private:
  std::string column_list() const {
    std::string names;
    std::size_t shown = 0;
    for (const Column& c : table_.columns) {
      if (shown++ == 40) {
        names += ", ...";
        break;
      }
      names += (names.empty() ? "columns: " : ", ") + c.name;
    }
    return names;
  }

  const ResultsTable& table_;
  std::string where_, results_path_;
};

struct Summary {
  double mean = std::nan(""), sd = 0, min = std::nan(""), max = std::nan("");
  std::size_t n = 0;
};

Summary summarise(const std::vector<double>& values) {
  Summary s;
  s.n = values.size();
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.sd = values.size() > 1 ? std::sqrt(squares / static_cast<double>(values.size() - 1)) : 0;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  if (std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); })) {
    s.mean = s.min = s.max = std::nan("");
  }
  return s;
}

// "0.707 ± 0.002 [0.704, 0.71] (8 rows, 2 seeds)"; one row: "0.707 (1 row, 1 seed)".
std::string spread_text(const Summary& s, std::size_t seeds) {
  std::ostringstream out;
  out << format_number(s.mean);
  if (s.n > 1) out << " ± " << format_number(s.sd) << " [" << format_number(s.min) << ", " << format_number(s.max) << "]";
  out << " (" << s.n << (s.n == 1 ? " row" : " rows");
  if (seeds > 0) out << ", " << seeds << (seeds == 1 ? " seed" : " seeds");
  out << ")";
  return out.str();
}

std::vector<double> values_of(const TableView& view, const std::string& column, const std::vector<std::size_t>& rows) {
  std::vector<double> values;
  for (std::size_t r : rows) values.push_back(view.number(column, r));
  return values;
}

// One setting (max_gap, matched, within with aggregate best): the `by` columns' values of a row, numbers ordered as numbers.
using Setting = std::vector<std::pair<double, std::string>>;

Setting setting_of(const TableView& view, const std::vector<std::string>& by, std::size_t row) {
  Setting setting;
  for (const std::string& column : by) {
    if (view.holds_text(column)) {
      setting.emplace_back(0.0, view.text(column, row));
    } else {
      const double v = view.number(column, row);
      setting.emplace_back(std::isnan(v) ? 0.0 : v, std::isnan(v) ? "nan" : "");
    }
  }
  return setting;
}

std::string setting_text(const std::vector<std::string>& by, const Setting& setting) {
  std::string text;
  for (std::size_t i = 0; i < by.size(); ++i) {
    const auto& [number, name] = setting[i];
    text += (text.empty() ? "" : ", ") + by[i] + " " + (name.empty() ? format_number(number) : name);
  }
  return text;
}

// within, aggregate best: the mean of `column` per setting (the seeds of one setting averaged),
// and the largest of these means against [low, high].
RuleOutcome within_best(const Rule& rule, const TableView& view, const std::vector<std::size_t>& rows, double low,
                        double high) {
  std::map<Setting, std::vector<std::size_t>> settings;
  for (std::size_t r : rows) settings[setting_of(view, rule.by_columns, r)].push_back(r);
  RuleOutcome outcome;
  bool first = true;
  Summary best;
  std::size_t best_seeds = 0;
  std::string at;
  for (const auto& [setting, setting_rows] : settings) {
    const Summary s = summarise(values_of(view, rule.column, setting_rows));
    if (first || std::isnan(s.mean) || s.mean > best.mean) {
      best = s;
      best_seeds = view.seeds(setting_rows);
      at = setting_text(rule.by_columns, setting);
    }
    first = false;
    if (std::isnan(s.mean)) break;  // an unknown setting leaves the best unknown (NaN fails the range)
  }
  outcome.holds = !settings.empty() && best.mean >= low && best.mean <= high;
  outcome.ours = "best setting (" + at + "): " + spread_text(best, best_seeds) + "; " + std::to_string(settings.size()) +
                 (settings.size() == 1 ? " setting" : " settings") + ", " + std::to_string(rows.size()) + " rows";
  outcome.detail = "largest setting mean in [" + format_number(low) + ", " + format_number(high) + "]: " +
                   (outcome.holds ? "yes" : "no");
  if (rows.empty()) {
    outcome.ours = "no row";
    outcome.detail = "no row in " + TableView::describe(rule.where) + ", so " + outcome.detail;
  }
  return outcome;
}

RuleOutcome within(const Rule& rule, const TableView& view) {
  const std::vector<std::size_t> rows = view.rows(rule.where, "where");
  const std::vector<double> values = values_of(view, rule.column, rows);
  const Summary s = summarise(values);
  RuleOutcome outcome;
  outcome.ours = spread_text(s, view.seeds(rows));
  if (!rule.reference_column.empty()) {
    // Each row against its own reference (e.g. mean_cosine against theory_cosine).
    double worst = 0;
    bool holds = !rows.empty(), any = false;
    for (std::size_t r : rows) {
      const double diff = std::abs(view.number(rule.column, r) - view.number(rule.reference_column, r));
      if (!(diff <= *rule.tolerance)) holds = false;
      if (diff <= *rule.tolerance) any = true;
      worst = std::isnan(diff) ? diff : std::max(worst, diff);
    }
    if (rule.aggregate == "any") holds = any;
    if (rule.aggregate == "mean") {
      const Summary reference = summarise(values_of(view, rule.reference_column, rows));
      worst = std::abs(s.mean - reference.mean);
      holds = worst <= *rule.tolerance;
    }
    outcome.holds = holds;
    outcome.detail = (rule.aggregate == "mean" ? "|mean - mean " : "max |diff| to ") + rule.reference_column +
                     (rule.aggregate == "mean" ? "|" : "") + " = " + format_number(worst) + (holds ? " <= " : " > ") +
                     format_number(*rule.tolerance);
    return outcome;
  }
  const double low = rule.value ? *rule.value - *rule.tolerance : rule.min.value_or(-INFINITY);
  const double high = rule.value ? *rule.value + *rule.tolerance : rule.max.value_or(INFINITY);
  const auto inside = [&](double v) { return v >= low && v <= high; };
  if (rule.aggregate == "best") return within_best(rule, view, rows, low, high);
  if (rule.aggregate == "mean") {
    outcome.holds = inside(s.mean);
  } else if (rule.aggregate == "any") {
    outcome.holds = std::any_of(values.begin(), values.end(), inside);
  } else {
    outcome.holds = !values.empty() && std::all_of(values.begin(), values.end(), inside);
  }
  const std::string subject = rule.aggregate == "mean" ? "mean" : rule.aggregate == "any" ? "some row" : "every row";
  outcome.detail = subject + " in [" + format_number(low) + ", " + format_number(high) + "]: " +
                   (outcome.holds ? "yes" : "no");
  if (rows.empty()) outcome.detail = "no row in " + TableView::describe(rule.where) + ", so " + outcome.detail;
  return outcome;
}

// The rows of `higher` and of `lower` (ordering, ratio, max_gap), each selection narrowing `where`.
std::pair<std::vector<std::size_t>, std::vector<std::size_t>> rows_of_sides(const Rule& rule, const TableView& view) {
  Selection higher = rule.where, lower = rule.where;
  for (const auto& [name, match] : rule.higher) higher[name] = match;
  for (const auto& [name, match] : rule.lower) lower[name] = match;
  return {view.rows(higher, "higher"), view.rows(lower, "lower")};
}

RuleOutcome ordering_or_ratio(const Rule& rule, const TableView& view) {
  const auto [high_rows, low_rows] = rows_of_sides(rule, view);
  const Summary a = summarise(values_of(view, rule.column, high_rows));
  const Summary b = summarise(values_of(view, rule.column, low_rows));
  RuleOutcome outcome;
  const std::string a_name = TableView::describe(rule.higher), b_name = TableView::describe(rule.lower);
  if (rule.kind == "ordering") {
    outcome.holds = a.mean - b.mean > rule.margin;
    outcome.ours = a_name + ": " + spread_text(a, view.seeds(high_rows)) + "; " + b_name + ": " +
                   spread_text(b, view.seeds(low_rows));
    outcome.detail = "difference of means " + format_number(a.mean - b.mean) + (outcome.holds ? " > " : " <= ") +
                     "margin " + format_number(rule.margin);
  } else {
    const double ratio = a.mean / b.mean;
    outcome.holds = ratio >= rule.min.value_or(-INFINITY) && ratio <= rule.max.value_or(INFINITY);
    outcome.ours = "ratio " + format_number(ratio) + " (" + a_name + ": " + format_number(a.mean) + " / " + b_name +
                   ": " + format_number(b.mean) + "; " + std::to_string(high_rows.size() + low_rows.size()) + " rows)";
    outcome.detail = "ratio in [" + format_number(rule.min.value_or(-INFINITY)) + ", " +
                     format_number(rule.max.value_or(INFINITY)) + "]: " + (outcome.holds ? "yes" : "no");
  }
  return outcome;
}

RuleOutcome monotone(const Rule& rule, const TableView& view) {
  const std::vector<std::size_t> rows = view.rows(rule.where, "where");
  // group -> by value -> values (averaged over the seeds and other rows of the point).
  std::map<std::string, std::map<double, std::vector<double>>> groups;
  for (std::size_t r : rows) {
    std::string group;
    for (const std::string& g : rule.group_by) group += (group.empty() ? "" : ", ") + g + " " + view.text(g, r);
    groups[group][view.number(rule.by, r)].push_back(view.number(rule.column, r));
  }
  const bool increasing = rule.direction == "increasing";
  RuleOutcome outcome;
  outcome.holds = !groups.empty();
  double worst = 0;  // the largest step against the trend
  for (const auto& [group, points] : groups) {
    std::string line = group.empty() ? "" : group + ": ";
    double previous = std::nan("");
    bool first = true;
    for (const auto& [by, values] : points) {
      const double mean = summarise(values).mean;
      line += (first ? "" : " → ") + format_number(mean);
      if (!first) {
        const double against = increasing ? previous - mean : mean - previous;
        if (!(against <= rule.slack)) outcome.holds = false;
        worst = std::isnan(against) ? against : std::max(worst, against);
      }
      previous = mean;
      first = false;
    }
    outcome.ours += (outcome.ours.empty() ? "" : "; ") + line;
  }
  outcome.ours += " (" + rule.by + " ascending; " + std::to_string(rows.size()) + " rows, " +
                  std::to_string(view.seeds(rows)) + " seeds)";
  outcome.detail = "largest step against " + rule.direction + " " + format_number(worst) +
                   (outcome.holds ? " <= " : " > ") + "slack " + format_number(rule.slack);
  return outcome;
}

RuleOutcome bound(const Rule& rule, const TableView& view) {
  const std::vector<std::size_t> rows = view.rows(rule.where, "where");
  RuleOutcome outcome;
  outcome.holds = !rows.empty();
  double worst = -INFINITY;  // the largest excess over the bound (negative: room left)
  for (std::size_t r : rows) {
    const double v = view.number(rule.column, r);
    std::vector<double> excess;
    if (rule.at_most) excess.push_back(v - *rule.at_most);
    if (!rule.at_most_column.empty()) excess.push_back(v - view.number(rule.at_most_column, r));
    if (rule.at_least) excess.push_back(*rule.at_least - v);
    for (double e : excess) {
      if (!(e <= rule.slack)) outcome.holds = false;
      worst = std::isnan(e) ? e : std::max(worst, e);
    }
  }
  outcome.ours = spread_text(summarise(values_of(view, rule.column, rows)), view.seeds(rows));
  std::string bound_text;
  if (rule.at_most) bound_text += "at most " + format_number(*rule.at_most);
  if (!rule.at_most_column.empty()) bound_text += std::string(bound_text.empty() ? "" : ", ") + "at most " + rule.at_most_column;
  if (rule.at_least) bound_text += std::string(bound_text.empty() ? "" : ", ") + "at least " + format_number(*rule.at_least);
  outcome.detail = bound_text + ": largest excess " + format_number(worst) + (outcome.holds ? " <= " : " > ") +
                   "slack " + format_number(rule.slack);
  return outcome;
}

RuleOutcome max_gap(const Rule& rule, const TableView& view) {
  const auto [high_rows, low_rows] = rows_of_sides(rule, view);
  const std::string bounds = "largest gap in [" + format_number(rule.min.value_or(-INFINITY)) + ", " +
                             format_number(rule.max.value_or(INFINITY)) + "]";
  RuleOutcome outcome;
  if (high_rows.empty() || low_rows.empty()) {  // a range kept no row: a result, as for within
    outcome.detail = "no row in " + TableView::describe(high_rows.empty() ? rule.higher : rule.lower) + ", so " +
                     bounds + ": no";
    return outcome;
  }
  // setting -> the higher rows; setting -> competitor -> the lower rows.
  std::map<Setting, std::vector<std::size_t>> high;
  std::map<Setting, std::map<std::string, std::vector<std::size_t>>> low;
  for (std::size_t r : high_rows) high[setting_of(view, rule.by_columns, r)].push_back(r);
  for (std::size_t r : low_rows) low[setting_of(view, rule.by_columns, r)][view.text(rule.over, r)].push_back(r);
  std::size_t settings = 0, skipped = 0;
  double largest = -INFINITY;
  std::string at;  // the setting of the largest gap, what was compared there
  for (const auto& [setting, rows] : high) {
    const auto competitors = low.find(setting);
    if (competitors == low.end()) {
      ++skipped;
      continue;
    }
    ++settings;
    const Summary ours = summarise(values_of(view, rule.column, rows));
    // The best competitor of the setting: the largest mean over its rows (seeds averaged).
    std::string best_name;
    Summary best;
    std::size_t best_seeds = 0;
    for (const auto& [name, competitor_rows] : competitors->second) {
      const Summary s = summarise(values_of(view, rule.column, competitor_rows));
      if (best_name.empty() || std::isnan(s.mean) || s.mean > best.mean) {
        best_name = name;
        best = s;
        best_seeds = view.seeds(competitor_rows);
      }
      if (std::isnan(s.mean)) break;  // an unknown competitor leaves the gap unknown
    }
    const double gap = ours.mean - best.mean;
    if (std::isnan(largest)) continue;  // a NaN gap stays the result
    if (std::isnan(gap) || gap > largest) {
      largest = gap;
      at = setting_text(rule.by_columns, setting) + ": " + TableView::describe(rule.higher) + " " +
           spread_text(ours, view.seeds(rows)) + " against the best " + rule.over + " there, " + best_name + " " +
           spread_text(best, best_seeds);
    }
  }
  for (const auto& [setting, competitors] : low) skipped += high.count(setting) == 0;
  std::string by;
  for (const std::string& column : rule.by_columns) by += (by.empty() ? "" : ", ") + column;
  EMBPRIV_CHECK(settings > 0, view.where() << ": higher and lower share no setting (" << by << ") in rows with status ok of "
                                           << view.results_path());
  outcome.holds = largest >= rule.min.value_or(-INFINITY) && largest <= rule.max.value_or(INFINITY);
  outcome.ours = "largest gap " + format_number(largest) + " at " + at + "; " + std::to_string(settings) +
                 (settings == 1 ? " setting" : " settings");
  if (skipped > 0) outcome.ours += ", " + std::to_string(skipped) + " on one side only skipped";
  outcome.detail = bounds + ": " + (outcome.holds ? "yes" : "no");
  return outcome;
}

// matched: each competitor's `column` at the utility `higher` reaches. A competitor's points are
// its settings' means (seeds averaged) of (utility_column, column), sorted by utility (points of
// equal utility averaged); its column at utility u is the linear interpolation between the two
// points whose utilities enclose u. Outside its utility range it is not known: that comparison
// is "not covered", never extrapolated, and never a win.
struct UtilityPoint {
  double utility, value;
};

// The competitor's value at `utility`, or NaN when its points do not cover it.
double interpolate_at(const std::vector<UtilityPoint>& points, double utility) {
  if (points.empty() || std::isnan(utility) || utility < points.front().utility || utility > points.back().utility) {
    return std::nan("");
  }
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const UtilityPoint& a = points[i];
    const UtilityPoint& b = points[i + 1];
    if (utility >= a.utility && utility <= b.utility) {
      const double share = (utility - a.utility) / (b.utility - a.utility);
      return a.value + share * (b.value - a.value);
    }
  }
  return points.back().value;  // one point, at exactly that utility
}

RuleOutcome matched(const Rule& rule, const TableView& view) {
  const auto [high_rows, low_rows] = rows_of_sides(rule, view);
  RuleOutcome outcome;
  const std::string who = TableView::describe(rule.higher);
  if (high_rows.empty() || low_rows.empty()) {
    outcome.detail = "no row in " + TableView::describe(high_rows.empty() ? rule.higher : rule.lower);
    return outcome;
  }
  // competitor -> its points, from setting -> rows.
  std::map<std::string, std::map<Setting, std::vector<std::size_t>>> competitor_settings;
  for (std::size_t r : low_rows) competitor_settings[view.text(rule.over, r)][setting_of(view, rule.by_columns, r)].push_back(r);
  std::map<std::string, std::vector<UtilityPoint>> competitors;
  for (const auto& [name, settings] : competitor_settings) {
    std::map<double, std::vector<double>> by_utility;  // equal utilities averaged
    bool unknown = false;
    for (const auto& [setting, rows] : settings) {
      const double utility = summarise(values_of(view, rule.utility_column, rows)).mean;
      if (std::isnan(utility)) unknown = true;
      if (!unknown) by_utility[utility].push_back(summarise(values_of(view, rule.column, rows)).mean);
    }
    std::vector<UtilityPoint>& points = competitors[name];
    if (unknown) continue;  // no points: never covered (NaN utility is not a curve)
    for (const auto& [utility, values] : by_utility) points.push_back({utility, summarise(values).mean});
  }
  std::map<Setting, std::vector<std::size_t>> ours;
  for (std::size_t r : high_rows) ours[setting_of(view, rule.by_columns, r)].push_back(r);

  const bool lower_is_better = rule.better == "lower";
  std::size_t wins = 0;
  std::string lines;
  for (const auto& [setting, rows] : ours) {
    const Summary utility = summarise(values_of(view, rule.utility_column, rows));
    const Summary value = summarise(values_of(view, rule.column, rows));
    std::string line = setting_text(rule.by_columns, setting) + ": " + format_number(value.mean) + " at " +
                       rule.utility_column + " " + format_number(utility.mean) + " (" +
                       std::to_string(view.seeds(rows)) + (view.seeds(rows) == 1 ? " seed" : " seeds") + ") against";
    bool wins_here = true;
    for (const auto& [name, points] : competitors) {
      const double theirs = interpolate_at(points, utility.mean);
      if (std::isnan(theirs)) {
        wins_here = false;
        line += " " + name + " not covered (" +
                (points.empty() ? "its " + rule.utility_column + " is NaN"
                                : "its " + rule.utility_column + " spans [" + format_number(points.front().utility) +
                                      ", " + format_number(points.back().utility) + "]") +
                ")";
        continue;
      }
      const double gain = lower_is_better ? theirs - value.mean : value.mean - theirs;
      if (!(gain > rule.margin)) wins_here = false;
      line += " " + name + " " + format_number(theirs);
    }
    wins += wins_here;
    lines += (lines.empty() ? "" : "; ") + line + (wins_here ? " (beats all)" : " (does not beat all)");
  }
  outcome.holds = rule.aggregate == "any" ? wins > 0 : wins == ours.size();
  outcome.ours = who + ": " + lines;
  outcome.detail = std::string(rule.aggregate == "any" ? "some setting" : "every setting") + " of " + who + " " +
                   (lower_is_better ? "below" : "above") + " every " + rule.over + " at matched " +
                   rule.utility_column + " by more than " + format_number(rule.margin) + " (" +
                   std::to_string(wins) + " of " + std::to_string(ours.size()) + " settings; interpolated, never "
                   "extrapolated): " + (outcome.holds ? "yes" : "no");
  return outcome;
}

}  // namespace

RuleOutcome evaluate_rule(const Rule& rule, const ResultsTable& table, const std::string& where,
                          const std::string& results_path) {
  const TableView view(table, where, results_path);
  view.column(rule.column);  // a missing column is named even where no row is read
  if (!rule.reference_column.empty()) view.column(rule.reference_column);
  if (!rule.at_most_column.empty()) view.column(rule.at_most_column);
  if (!rule.by.empty()) view.column(rule.by);
  for (const std::string& g : rule.group_by) view.column(g);
  for (const std::string& b : rule.by_columns) view.column(b);
  if (!rule.over.empty()) view.column(rule.over);
  if (!rule.utility_column.empty()) view.column(rule.utility_column);
  if (rule.kind == "within") return within(rule, view);
  if (rule.kind == "ordering" || rule.kind == "ratio") return ordering_or_ratio(rule, view);
  if (rule.kind == "monotone") return monotone(rule, view);
  if (rule.kind == "bound") return bound(rule, view);
  if (rule.kind == "max_gap") return max_gap(rule, view);
  if (rule.kind == "matched") return matched(rule, view);
  throw Error(where + ": unknown rule kind '" + rule.kind + "'");
}

}  // namespace embpriv
