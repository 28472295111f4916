#include "experiments/report/reproduction_report.h"

#include <filesystem>
#include <optional>
#include <sstream>

#include "core/error.h"
#include "experiments/report/claim_rules.h"

namespace embpriv {

namespace {

std::string short_commit(const ResultsTable& table) {
  const auto at = table.attributes.find("git_commit");
  if (at == table.attributes.end()) return "unknown";
  const std::string commit = at->second;
  const bool dirty = commit.size() > 6 && commit.compare(commit.size() - 6, 6, "-dirty") == 0;
  const std::string sha = commit.substr(0, dirty ? commit.size() - 6 : commit.size());
  return sha.substr(0, 12) + (dirty ? "-dirty" : "");
}

std::string scale_name(ReportScale scale) { return scale == ReportScale::ci ? "ci" : "paper"; }

}  // namespace

std::string results_path_for(const std::string& results_folder, const std::string& config) {
  return (std::filesystem::path(results_folder) / (std::filesystem::path(config).stem().string() + ".h5")).string();
}

ClaimVerdict judge_claim(const Claim& claim, ReportScale scale, const ResultsTable* table,
                         const std::string& results_path) {
  ClaimVerdict v;
  v.claim = claim;
  v.config = scale == ReportScale::ci ? claim.ci_config : claim.config;
  if (!claim.not_measured.empty()) {
    v.verdict = "NOT RUN";
    v.why = claim.not_measured;
    return v;
  }
  if (v.config.empty()) {
    v.verdict = "NOT RUN";
    v.why = "no CI config measures it: run " + claim.config + " (`embpriv report --scale paper`)";
    return v;
  }
  if (table == nullptr) {
    v.verdict = "NOT RUN";
    v.why = "no results file (" + results_path + ")";
    return v;
  }
  v.results_path = results_path;
  v.commit = short_commit(*table);
  const auto incomplete = table->attributes.find("complete");
  const bool is_partial = incomplete != table->attributes.end() && incomplete->second == "false";
  const std::string partial = is_partial ? " (results file incomplete)" : "";
  // A rule that cannot read a complete file is a fault of the claims file (one error); on an
  // incomplete one (a sweep still running, or stopped) it may only lack rows not yet written.
  const auto evaluate = [&](const Rule& rule, const std::string& source) -> std::optional<RuleOutcome> {
    try {
      return evaluate_rule(rule, *table, source, results_path);
    } catch (const Error& e) {
      if (!is_partial) throw;
      v.verdict = "NOT RUN";
      v.why = "the results file is incomplete (a sweep still running or stopped: `embpriv run --resume` "
              "finishes it) and cannot decide the rule yet: " + std::string(e.what());
      return std::nullopt;
    }
  };
  const Rule& rule = scale == ReportScale::ci && claim.ci_rule ? *claim.ci_rule : *claim.rule;
  const std::optional<RuleOutcome> decided = evaluate(rule, claim.source);
  if (!decided) return v;
  const RuleOutcome& outcome = *decided;
  v.ours = outcome.ours;
  v.detail = outcome.detail;
  const std::optional<Rule>& control_rule =
      scale == ReportScale::ci && claim.ci_control ? claim.ci_control : claim.control;
  if (control_rule) {
    const std::optional<RuleOutcome> checked = evaluate(*control_rule, claim.source + ", control");
    if (!checked) return v;
    const RuleOutcome& control = *checked;
    if (!control.holds) {
      v.verdict = "INCONCLUSIVE";
      v.why = "the control failed, so the test could not show the effect: " + control.ours + "; " + control.detail +
              partial;
      return v;
    }
  }
  if (outcome.holds) {
    v.verdict = "REPRODUCED";
    std::string setting = claim.setting;
    if (scale == ReportScale::ci && !claim.ci_setting.empty()) setting += (setting.empty() ? "" : " ") + claim.ci_setting;
    if (!setting.empty()) v.why = "in our setting: " + setting;
    v.why += partial;
    return v;
  }
  std::string setting = claim.setting;
  if (scale == ReportScale::ci && !claim.ci_setting.empty()) setting += (setting.empty() ? "" : " ") + claim.ci_setting;
  v.verdict = setting.empty() ? "REFUTED" : "DIFFERENT SETTING";
  v.why = setting + partial;
  return v;
}

// The results file of `config`, or null with why (empty: no file). At --scale paper a file
// whose config_hash is not the one the config plans today is not read (ReportOptions::config_hash).
struct ResultsRead {
  std::unique_ptr<ResultsTable> table;
  std::string not_read;
};

ResultsRead read_results_of(const ReportOptions& options, const std::string& path, const std::string& config) {
  ResultsRead read;
  if (!std::filesystem::exists(path)) return read;
  read.table = std::make_unique<ResultsTable>(read_results_h5(path));
  if (options.scale != ReportScale::paper || !options.config_hash) return read;
  const auto stored = read.table->attributes.find("config_hash");
  const std::string written = stored == read.table->attributes.end() ? "" : stored->second;
  const std::string planned = options.config_hash((std::filesystem::path(options.root) / config).string());
  if (written == planned) return read;
  read.table.reset();
  read.not_read = path + " was written by another config (config_hash " + (written.empty() ? "absent" : written) +
                  "; " + config + " plans " + planned + " today: another config of the same name, or an older " +
                  "embpriv whose defaults differ): run " + config + " again";
  return read;
}

Report build_report(const ReportOptions& options) {
  Report report;
  report.options = options;
  if (report.options.results_folder.empty()) {
    report.options.results_folder =
        (std::filesystem::path(options.root) / (options.scale == ReportScale::ci ? "build/test-results" : "results"))
            .string();
  }
  report.files = load_claims_folder(options.claims_folder, options.root);
  std::map<std::string, ResultsRead> reads;  // path -> its table, read once
  for (const ClaimsFile& file : report.files) {
    for (const Claim& claim : file.claims) {
      const std::string config = options.scale == ReportScale::ci ? claim.ci_config : claim.config;
      std::string path;
      const ResultsRead* read = nullptr;
      if (!config.empty()) {
        path = results_path_for(report.options.results_folder, config);
        auto at = reads.find(path);
        if (at == reads.end()) at = reads.emplace(path, read_results_of(report.options, path, config)).first;
        read = &at->second;
      }
      ClaimVerdict verdict = judge_claim(claim, options.scale, read ? read->table.get() : nullptr, path);
      if (read && !read->not_read.empty()) verdict.why = read->not_read;
      verdict.paper = file.paper;
      report.rows.push_back(std::move(verdict));
    }
  }
  return report;
}

std::map<std::string, std::map<std::string, int>> verdict_counts(const Report& report) {
  std::map<std::string, std::map<std::string, int>> counts;
  for (const ClaimsFile& file : report.files) {
    for (const std::string& verdict : kVerdicts) counts[file.paper][verdict] = 0;
  }
  for (const ClaimVerdict& row : report.rows) ++counts[row.paper][row.verdict];
  return counts;
}

std::vector<std::string> verdict_mismatches(const Report& report) {
  std::vector<std::string> lines;
  if (report.options.scale != ReportScale::ci) return lines;
  for (const ClaimVerdict& row : report.rows) {
    const std::string expected = row.claim.expected_ci.empty() ? "NOT RUN" : row.claim.expected_ci;
    if (row.verdict != expected) {
      lines.push_back(row.claim.source + ": verdict " + row.verdict + " at CI size, the claims file expects " +
                      expected + " (" + (row.ours.empty() ? row.why : row.ours + "; " + row.detail) +
                      "): change expected_ci with the claim, or find what changed the result");
    }
  }
  return lines;
}

ReportRowText report_row_text(const ClaimVerdict& row) {
  ReportRowText text;
  text.ours = row.ours.empty() ? "—" : row.ours + "; " + row.detail;
  text.verdict = row.verdict;
  text.why = row.why;
  text.config = row.config;
  text.docs = row.claim.docs;
  text.commit = row.commit.empty() ? "—" : row.commit;
  return text;
}

namespace {

// A markdown table cell: no '|' or line break inside.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string relative_to_docs(const std::string& path) { return "../" + path; }

}  // namespace

std::string render_markdown(const Report& report, const std::string& report_commit) {
  std::ostringstream md;
  const bool ci = report.options.scale == ReportScale::ci;
  md << "# Reproduction report\n\n"
     << "<!-- Generated by `embpriv report` from configs/claims/*.yaml and the results files: do not edit by "
        "hand; edit the claims and run `embpriv report` again. -->\n\n"
     << "Every headline claim of the three papers (`configs/claims/*.yaml`, one entry each), decided on results "
        "files by the rule its entry states. Scale: **"
     << (ci ? "CI" : "paper") << "** — the "
     << (ci ? "small configs of `configs/ci/` that `make test` runs (results in build/test-results/); a verdict "
              "here is what those few rows show, not what the paper-size config would show. The paper-size "
              "verdicts: run the configs named in the claims files, then `embpriv report --scale paper`, which "
              "writes [docs/reproduction_paper.md](reproduction_paper.md) (the last one made is there)."
            : "configs named by each claim (results/NAME.h5). A results file counts only when its "
              "config_hash is the one its config gives today (as `embpriv run --resume` requires): one "
              "written by another config of the same name, or before a default changed, is NOT RUN.")
     << " Report made by embpriv " << report_commit << "; each row names the commit of the results it read.\n\n"
     << "Verdicts: **REPRODUCED** the rule held on our results; **REFUTED** it failed, in a setting the claim "
        "does not call different; **DIFFERENT SETTING** it failed where our setting differs from the paper's "
        "(the reason is given), so the failure says nothing about the paper's setting; **INCONCLUSIVE** the "
        "claim's control failed, so the test could not have shown the effect either way; **NOT RUN** no "
        "results file (or no config measures the claim). \"Ours\" is the mean ± standard deviation [min, max] "
        "over the rows the rule reads, with their number and the seeds among them.\n\n";
  const auto counts = verdict_counts(report);
  md << "| paper |";
  for (const std::string& verdict : kVerdicts) md << " " << verdict << " |";
  md << "\n|---|";
  for (std::size_t i = 0; i < kVerdicts.size(); ++i) md << "---|";
  md << "\n";
  for (const ClaimsFile& file : report.files) {
    md << "| " << file.paper << " |";
    for (const std::string& verdict : kVerdicts) md << " " << counts.at(file.paper).at(verdict) << " |";
    md << "\n";
  }
  for (const ClaimsFile& file : report.files) {
    md << "\n## " << file.title << "\n\n"
       << "Paper: `" << file.paper_file << "`; claims: [" << file.path << "](" << relative_to_docs(file.path)
       << ").\n\n"
       << "| claim | where | the paper | ours | verdict | config | results commit |\n"
       << "|---|---|---|---|---|---|---|\n";
    for (const ClaimVerdict& row : report.rows) {
      if (row.paper != file.paper) continue;
      const Claim& c = row.claim;
      const ReportRowText text = report_row_text(row);
      std::string verdict = "**" + text.verdict + "**" + (text.why.empty() ? "" : ": " + text.why);
      std::string config = text.config.empty() ? "—" : "[" + text.config + "](" + relative_to_docs(text.config) + ")";
      if (!text.docs.empty()) {
        config += "; discussed in [" + text.docs + "](" + text.docs.substr(text.docs.find('/') + 1) + ")";
      }
      md << "| <a id=\"" << c.id << "\"></a>`" << c.id << "`: " << cell(c.statement) << " | " << cell(c.where) << " | "
         << cell(c.paper_value) << " | " << cell(text.ours) << " | " << cell(verdict) << " | " << cell(config) << " | "
         << text.commit << " |\n";
    }
  }
  return md.str();
}

}  // namespace embpriv
