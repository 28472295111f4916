// The results table takes a type's columns by name, in the order the type declares them; a row
// that sets a column the type does not declare, or leaves a declared one unset, stops the run
// with an internal error (a bug of the type, not of the config).
#include "tests/catch.h"

#include "experiments/engine/result_rows.h"
#include "experiments/types/registry.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// Every column of type audit set, in reverse of its declared order.
PointResult full_audit_row() {
  const ExperimentType& audit = default_experiment_registry().find("audit");
  PointResult result;
  const std::vector<std::string> numbers = audit.number_columns(), strings = audit.string_columns();
  for (auto c = numbers.rbegin(); c != numbers.rend(); ++c) result.set(*c, static_cast<double>(c - numbers.rbegin()));
  for (auto c = strings.rbegin(); c != strings.rend(); ++c) result.set(*c, "text of " + *c);
  return result;
}

std::string internal_error_of(const PointResult& result) {
  try {
    check_result_columns(default_experiment_registry().find("audit"), result);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::internal);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a row's columns are set by name and written in the declared order", "[engine]") {
  const RunPlan plan = plan_from_document(parse_config_text("type: audit\n", "x.yaml"), {},
                                          default_experiment_registry(), default_mechanism_registry());
  RowRecords records;
  records[0].ok = true;
  records[0].result = full_audit_row();
  const ResultsTable table = table_from_records(plan, records);
  std::vector<std::string> names;
  for (const auto& column : table.columns) names.push_back(column.name);
  std::vector<std::string> expected = {"row", "replicate", "seed", "status", "error"};
  for (const std::string& c : plan.type->number_columns()) expected.push_back(c);
  for (const std::string& c : plan.type->string_columns()) expected.push_back(c);
  CHECK(names == expected);
  const std::size_t n = plan.type->number_columns().size();
  CHECK(std::get<std::vector<double>>(table.column("epsilon").values)[0] == static_cast<double>(n - 1));
  CHECK(std::get<std::vector<std::string>>(table.column("test").values)[0] == "text of test");
  // Read back from the table: the same row.
  const RowRecords again = records_from_table(plan, table);
  CHECK(again.at(0).result.numbers == records[0].result.numbers);
  CHECK(again.at(0).result.strings == records[0].result.strings);
}

TEST_CASE("an undeclared, missing or twice-set column of an ok row is an internal error", "[engine]") {
  CHECK(internal_error_of(full_audit_row()).empty());
  PointResult extra = full_audit_row();
  extra.set("eps_upper_bound", 1.0);
  CHECK_THAT(internal_error_of(extra), Contains("audit set the number column 'eps_upper_bound', which it does not declare"));
  PointResult missing = full_audit_row();
  missing.numbers.erase("threshold");
  CHECK_THAT(internal_error_of(missing), Contains("audit did not set its number column 'threshold'"));
  PointResult wrong_kind = full_audit_row();
  wrong_kind.strings.erase("test");
  wrong_kind.set("test", 1.0);
  CHECK_THAT(internal_error_of(wrong_kind), Contains("number column 'test', which it does not declare"));
  PointResult twice = full_audit_row();
  CHECK_THROWS_WITH(twice.set("epsilon", 2.0), Contains("column epsilon is set twice"));
}
