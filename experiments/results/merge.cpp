#include "experiments/results/merge.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "core/error.h"
#include "experiments/results/input_fingerprints.h"

namespace embpriv {
namespace {

std::string attribute(const ResultsTable& table, const std::string& name) {
  const auto found = table.attributes.find(name);
  return found == table.attributes.end() ? std::string() : found->second;
}

// Appends row i of `from` to `to` (same column kind).
void append_value(ColumnValues& to, const ColumnValues& from, std::size_t i) {
  std::visit(
      [&](auto& target) {
        using Vector = std::decay_t<decltype(target)>;
        target.push_back(std::get<Vector>(from)[i]);
      },
      to);
}

}  // namespace

ResultsTable merge_results(const std::vector<std::string>& inputs) {
  EMBPRIV_CHECK(!inputs.empty(), "merge needs at least one input file");
  std::vector<ResultsTable> tables;
  for (const std::string& path : inputs) tables.push_back(read_results_h5(path));
  const ResultsTable& first = tables.front();
  // First what every input must be: a file of `embpriv run` (an HDF5 file of something else has
  // none of its attributes), before comparing them.
  for (std::size_t f = 0; f < tables.size(); ++f) {
    const ResultsTable& t = tables[f];
    EMBPRIV_CHECK(t.has_column("row") && !attribute(t, "config_hash").empty(),
                  inputs[f] << " is not an embpriv results file (it lacks "
                            << (t.has_column("row") ? "the config_hash attribute" : "the row column")
                            << " that embpriv run writes)");
  }
  const bool fingerprinted = first.attributes.count(kInputFilesAttribute) > 0;
  for (std::size_t f = 0; f < tables.size(); ++f) {
    const ResultsTable& t = tables[f];
    EMBPRIV_CHECK(attribute(t, "config_hash") == attribute(first, "config_hash") &&
                      !attribute(t, "config_hash").empty(),
                  inputs[f] << " was written by another config than " << inputs[0]
                            << " (config_hash " << attribute(t, "config_hash") << " vs "
                            << attribute(first, "config_hash") << ")");
    // The config names the data files; their contents must be the same too (input_files.h).
    EMBPRIV_CHECK(t.attributes.count(kInputFilesAttribute) == (fingerprinted ? 1u : 0u),
                  (fingerprinted ? inputs[f] : inputs[0])
                      << " does not record the contents of its input files (written before embpriv did) while "
                      << (fingerprinted ? inputs[0] : inputs[f])
                      << " does: cannot check that the shards were computed on the same data");
    const std::string difference = input_files_difference(
        attribute(first, kInputFilesAttribute), attribute(t, kInputFilesAttribute), "in " + inputs[0], "in " + inputs[f]);
    EMBPRIV_CHECK(difference.empty(), inputs[f] << " was computed on other data than " << inputs[0] << ": "
                                                << difference);
    EMBPRIV_CHECK(t.columns.size() == first.columns.size(),
                  inputs[f] << " has other columns than " << inputs[0]);
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      EMBPRIV_CHECK(t.columns[c].name == first.columns[c].name &&
                        t.columns[c].values.index() == first.columns[c].values.index(),
                    inputs[f] << ": column " << t.columns[c].name << " differs from " << inputs[0]
                              << "'s " << first.columns[c].name);
    }
  }
  // Every row once, sorted by its index in the full grid.
  struct Source {
    std::size_t file, index;
  };
  std::map<std::int64_t, Source> rows;
  for (std::size_t f = 0; f < tables.size(); ++f) {
    const auto& row = tables[f].values<std::int64_t>("row");
    for (std::size_t i = 0; i < row.size(); ++i) {
      const auto [it, inserted] = rows.emplace(row[i], Source{f, i});
      EMBPRIV_CHECK(inserted, "row " << row[i] << " is in both " << inputs[it->second.file]
                                     << " and " << inputs[f] << " (overlapping shards)");
    }
  }
  ResultsTable merged;
  for (const Column& c : first.columns) {
    Column empty{c.name, c.values};
    std::visit([](auto& v) { v.clear(); }, empty.values);
    merged.columns.push_back(std::move(empty));
  }
  const bool timed = std::all_of(tables.begin(), tables.end(),
                                 [](const ResultsTable& t) { return !t.seconds.empty(); });
  std::map<std::pair<std::size_t, std::int64_t>, const RowCurves*> curves;
  for (std::size_t f = 0; f < tables.size(); ++f) {
    for (const RowCurves& c : tables[f].curves) curves[{f, c.row}] = &c;
  }
  for (const auto& [row, source] : rows) {
    const ResultsTable& t = tables[source.file];
    for (std::size_t c = 0; c < merged.columns.size(); ++c) {
      append_value(merged.columns[c].values, t.columns[c].values, source.index);
    }
    if (timed) {
      merged.seconds.push_back(t.seconds[source.index]);
      for (const auto& [phase, seconds] : t.phase_seconds) {
        auto& column = merged.phase_seconds[phase];
        column.resize(merged.seconds.size() - 1, 0.0);  // rows of files without this phase
        column.push_back(seconds[source.index]);
      }
    }
    if (const auto found = curves.find({source.file, row}); found != curves.end()) {
      merged.curves.push_back(*found->second);
    }
  }
  for (auto& [phase, column] : merged.phase_seconds) column.resize(merged.seconds.size(), 0.0);
  merged.attributes = first.attributes;
  std::string start = attribute(first, "start_time"), end = attribute(first, "end_time");
  for (const ResultsTable& t : tables) {
    start = std::min(start, attribute(t, "start_time"));
    end = std::max(end, attribute(t, "end_time"));
  }
  merged.attributes["start_time"] = start;
  merged.attributes["end_time"] = end;
  merged.attributes["shard"] = "merged";
  const std::string grid_rows = attribute(first, "grid_rows");
  merged.attributes["complete"] =
      !grid_rows.empty() && std::to_string(rows.size()) == grid_rows ? "true" : "false";
  return merged;
}

ResultsTable merge_results_files(const std::string& out, const std::vector<std::string>& inputs) {
  ResultsTable merged = merge_results(inputs);
  write_results_h5(out, merged);
  return merged;
}

}  // namespace embpriv
