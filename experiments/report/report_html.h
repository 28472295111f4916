#pragma once
// `embpriv report --html PATH`: the reproduction report as one self-contained HTML5 page (inline
// CSS, no script, no external URL): the header facts and verdict counts of docs/reproduction.md,
// then per paper the same table (experiments/report/reproduction_report.h, report_row_text), the
// verdict cell coloured by verdict, and beside each row that read a results file the figures
// `embpriv run` wrote next to it (FOLDER/STEM.*.png for FOLDER/STEM.h5) embedded as data URIs.
// A results file's figures appear once per page; later rows that read it link to them.
#include <string>
#include <vector>

#include "experiments/report/reproduction_report.h"

namespace embpriv {

std::string render_html(const Report& report, const std::string& report_commit);

// The text with & < > " ' written as character references (for element text and attributes).
std::string html_escape(const std::string& text);
// Standard base64 (RFC 4648, with '=' padding).
std::string base64_encode(const std::string& bytes);
// The figures of a results file: the files of its folder named STEM.*.png, by name (full paths).
// A file that belongs to a longer-named results file of the same folder (STEM.x.h5 beside it:
// STEM.x.*.png) is left to that one.
std::vector<std::string> figures_beside(const std::string& results_path);
// The CSS class of a verdict's cell: "verdict-reproduced", "verdict-not-run", ...
std::string verdict_class(const std::string& verdict);

}  // namespace embpriv
