#include "experiments/engine/result_rows.h"

#include <algorithm>
#include <limits>

#include "core/error.h"

namespace embpriv {
namespace {

enum class ValueKind { integer, number, text };

// The value of a swept key at a point: its assignment, or, where an any_of block does not
// sweep the key, its value in the point's resolved config (undefined when that has none, e.g.
// mechanism.beta when the block's mechanism map has no beta).
YAML::Node swept_value(const RunPlan& plan, const GridPoint& point, const std::string& path) {
  for (const Assignment& a : point.assignment) {
    if (a.path == path) return a.value;
  }
  return find_path(resolve_point(plan.base, point), path);
}

// One column type for every value a swept key takes in the full grid (not just this shard's),
// so the shards of one run have the same columns.
ValueKind kind_of_values(const RunPlan& plan, const std::string& path) {
  bool all_integer = true, all_number = true;
  for (std::size_t i = 0; i < plan.grid.size(); i += static_cast<std::size_t>(plan.seeds)) {
    const YAML::Node value = swept_value(plan, plan.grid[i], path);
    if (!value.IsDefined()) {  // NaN or "" in the table
      all_integer = false;
      continue;
    }
    std::int64_t integer;
    double number;
    all_integer &= value.IsScalar() && YAML::convert<std::int64_t>::decode(value, integer);
    all_number &= value.IsScalar() && YAML::convert<double>::decode(value, number);
  }
  return all_integer ? ValueKind::integer : all_number ? ValueKind::number : ValueKind::text;
}

// An ok row must set exactly the columns its type declares, each of its kind.
template <class T>
void check_columns(const ExperimentType& type, const std::map<std::string, T>& values,
                   const std::vector<std::string>& declared, const char* kind) {
  for (const auto& [name, value] : values) {
    EMBPRIV_ASSERT(std::find(declared.begin(), declared.end(), name) != declared.end(),
                   type.name() << " set the " << kind << " column '" << name << "', which it does not declare");
  }
  for (const std::string& name : declared) {
    EMBPRIV_ASSERT(values.count(name), type.name() << " did not set its " << kind << " column '" << name << "'");
  }
}

}  // namespace

void check_result_columns(const ExperimentType& type, const PointResult& result) {
  check_columns(type, result.numbers, type.number_columns(), "number");
  check_columns(type, result.strings, type.string_columns(), "string");
}

ResultsTable table_from_records(const RunPlan& plan, const RowRecords& records) {
  ResultsTable table;
  std::vector<std::int64_t> rows, replicates, seeds;
  std::vector<std::string> status, errors;
  for (const auto& [row, record] : records) {
    const GridPoint& point = plan.grid.at(static_cast<std::size_t>(row));
    if (record.ok) check_result_columns(*plan.type, record.result);
    rows.push_back(row);
    replicates.push_back(point.replicate);
    seeds.push_back(static_cast<std::int64_t>(point.seed));
    status.push_back(record.ok ? "ok" : "failed");
    errors.push_back(record.ok ? "" : record.error);
    table.seconds.push_back(record.seconds);
    for (const auto& [phase, seconds] : record.result.phase_seconds) {
      auto& column = table.phase_seconds[phase];
      column.resize(table.seconds.size() - 1, 0.0);  // earlier rows without this phase
      column.push_back(seconds);
    }
    if (record.ok && !record.result.curves.empty()) {
      table.curves.push_back({row, record.result.curves});
    }
  }
  for (auto& [phase, column] : table.phase_seconds) column.resize(table.seconds.size(), 0.0);
  table.columns.push_back({"row", rows});
  table.columns.push_back({"replicate", replicates});
  table.columns.push_back({"seed", seeds});
  for (const std::string& path : plan.swept) {
    const ValueKind kind = kind_of_values(plan, path);
    std::vector<std::int64_t> integers;
    std::vector<double> numbers;
    std::vector<std::string> texts;
    for (const auto& [row, record] : records) {
      const YAML::Node value = swept_value(plan, plan.grid.at(static_cast<std::size_t>(row)), path);
      if (kind == ValueKind::integer) integers.push_back(value.as<std::int64_t>());
      if (kind == ValueKind::number) {
        numbers.push_back(value.IsDefined() ? value.as<double>() : std::numeric_limits<double>::quiet_NaN());
      }
      if (kind == ValueKind::text) {
        texts.push_back(!value.IsDefined() ? "" : value.IsScalar() ? value.as<std::string>() : flow_yaml(value));
      }
    }
    if (kind == ValueKind::integer) table.columns.push_back({path, integers});
    if (kind == ValueKind::number) table.columns.push_back({path, numbers});
    if (kind == ValueKind::text) table.columns.push_back({path, texts});
  }
  table.columns.push_back({"status", status});
  table.columns.push_back({"error", errors});
  for (const std::string& name : plan.type->number_columns()) {
    std::vector<double> values;
    for (const auto& [row, record] : records) {
      values.push_back(record.ok ? record.result.numbers.at(name) : std::numeric_limits<double>::quiet_NaN());
    }
    table.columns.push_back({name, values});
  }
  for (const std::string& name : plan.type->string_columns()) {
    std::vector<std::string> values;
    for (const auto& [row, record] : records) {
      values.push_back(record.ok ? record.result.strings.at(name) : "");
    }
    table.columns.push_back({name, values});
  }
  return table;
}

RowRecords records_from_table(const RunPlan& plan, const ResultsTable& table) {
  RowRecords records;
  const auto& rows = table.values<std::int64_t>("row");
  const auto& status = table.values<std::string>("status");
  std::map<std::int64_t, const RowCurves*> curves;
  for (const RowCurves& c : table.curves) curves[c.row] = &c;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EMBPRIV_CHECK(rows[i] >= 0 && rows[i] < static_cast<std::int64_t>(plan.grid.size()),
                  "results row " << rows[i] << " is outside the grid of " << plan.grid.size()
                                 << " rows");
    if (status[i] != "ok") continue;
    RowRecord record;
    record.ok = true;
    record.seconds = table.seconds.empty() ? 0 : table.seconds[i];
    for (const auto& [phase, seconds] : table.phase_seconds) {
      if (seconds[i] != 0) record.result.phase_seconds[phase] = seconds[i];
    }
    for (const std::string& name : plan.type->number_columns()) {
      record.result.set(name, table.values<double>(name)[i]);
    }
    for (const std::string& name : plan.type->string_columns()) {
      record.result.set(name, table.values<std::string>(name)[i]);
    }
    if (const auto found = curves.find(rows[i]); found != curves.end()) {
      record.result.curves = found->second->arrays;
    }
    records[rows[i]] = std::move(record);
  }
  return records;
}

}  // namespace embpriv
