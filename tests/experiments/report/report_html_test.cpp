// `embpriv report --html` (experiments/report/report_html.h): the text of claims and results is
// escaped, each verdict's cell has its colour class, a results file's figures are embedded once
// (base64 data URIs, named), and a NOT RUN row has no figures.
#include "tests/catch.h"

#include <string>

#include "experiments/report/report_html.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

ClaimVerdict row_of(const std::string& id, const std::string& verdict, const std::string& results_path) {
  ClaimVerdict row;
  row.paper = "p";
  row.claim.id = id;
  row.claim.statement = "statement of " + id;
  row.claim.where = "Fig. 1";
  row.claim.paper_value = "0.5";
  row.verdict = verdict;
  row.results_path = results_path;
  if (!results_path.empty()) {
    row.config = "configs/ci/run.yaml";
    row.ours = "0.49";
    row.detail = "2 rows";
    row.commit = "abcdef123456";
  }
  return row;
}

}  // namespace

TEST_CASE("html_escape: & < > \" ' as character references, other text as it is", "[report][html]") {
  CHECK(html_escape("a<b>&\"c'd") == "a&lt;b&gt;&amp;&quot;c&#39;d");
  CHECK(html_escape("plain ± text") == "plain ± text");
  CHECK(html_escape("&amp;") == "&amp;amp;");
}

TEST_CASE("base64_encode: whole groups and the 1- and 2-byte tails with padding", "[report][html]") {
  CHECK(base64_encode("") == "");
  CHECK(base64_encode("Man") == "TWFu");
  CHECK(base64_encode("Ma") == "TWE=");
  CHECK(base64_encode("M") == "TQ==");
  CHECK(base64_encode("Many") == "TWFueQ==");
  CHECK(base64_encode(std::string("\xff\x00\xfe", 3)) == "/wD+");
}

TEST_CASE("render_html: escaped text, a class per verdict, figures once per results file", "[report][html]") {
  TempDir dir("embpriv_report_html");
  const std::string results = dir / "run.h5";
  write_file(results, "not read by the renderer");
  write_file(dir / "run.cosines.png", "Man");
  write_file(dir / "run.accuracy.png", "Ma");
  write_file(dir / "run.cosines.svg", "M");          // not a png
  write_file(dir / "run.longer.h5", "another results file");
  write_file(dir / "run.longer.loss.png", "M");       // the longer-named results file's figure
  write_file(dir / "other.cosines.png", "M");         // another results file's figure

  Report report;
  ClaimsFile file;
  file.paper = "p";
  file.title = "Paper <P> & co";
  file.path = "configs/claims/p.yaml";
  file.paper_file = "papers/p.txt";
  report.files = {file};
  ClaimVerdict hostile = row_of("hostile", "REPRODUCED", results);
  hostile.claim.statement = "<script>alert(\"x\") & 'y'</script>";
  report.rows = {hostile, row_of("refuted", "REFUTED", results), row_of("setting", "DIFFERENT SETTING", results),
                 row_of("inconclusive", "INCONCLUSIVE", results), row_of("notrun", "NOT RUN", "")};
  report.rows.back().why = "no results file (x.h5)";

  const std::string html = render_html(report, "0123abcd");
  CHECK_THAT(html, Contains("<!DOCTYPE html>"));
  CHECK_THAT(html, Contains("0123abcd"));
  // Escaped: the hostile statement is text, never markup.
  CHECK_THAT(html, Contains("&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;"));
  CHECK_THAT(html, !Contains("<script"));
  CHECK_THAT(html, Contains("Paper &lt;P&gt; &amp; co"));
  // No external resource.
  CHECK_THAT(html, !Contains("http://"));
  CHECK_THAT(html, !Contains("https://"));
  // Each verdict's cell has its class, and the class its colour.
  CHECK(verdict_class("DIFFERENT SETTING") == "verdict-different-setting");
  CHECK_THAT(html, Contains("<td class=\"verdict-reproduced\"><strong>REPRODUCED</strong>"));
  CHECK_THAT(html, Contains("<td class=\"verdict-refuted\"><strong>REFUTED</strong>"));
  CHECK_THAT(html, Contains("<td class=\"verdict-different-setting\"><strong>DIFFERENT SETTING</strong>"));
  CHECK_THAT(html, Contains("<td class=\"verdict-inconclusive\"><strong>INCONCLUSIVE</strong>"));
  CHECK_THAT(html, Contains("<td class=\"verdict-not-run\"><strong>NOT RUN</strong>: no results file (x.h5)"));
  CHECK_THAT(html, Contains(".verdict-reproduced{background:#c8ecc8}"));
  CHECK_THAT(html, Contains(".verdict-refuted{background:#f5c0c0}"));
  // The two figures of run.h5, by name, each once, although four rows read it.
  CHECK(count_of(html, "<img src=\"data:image/png;base64,TWFu\" alt=\"run.cosines.png\">") == 1);
  CHECK(count_of(html, "<img src=\"data:image/png;base64,TWE=\" alt=\"run.accuracy.png\">") == 1);
  CHECK(count_of(html, "<figcaption>run.cosines.png</figcaption>") == 1);
  CHECK(count_of(html, "<img ") == 2);
  CHECK(html.find("run.accuracy.png") < html.find("run.cosines.png"));  // sorted
  CHECK_THAT(html, !Contains("run.longer.loss.png"));
  CHECK_THAT(html, !Contains("other.cosines.png"));
  CHECK_THAT(html, !Contains("run.cosines.svg"));
  CHECK(count_of(html, "<details id=\"figures-1\"") == 1);
  CHECK(count_of(html, "<a href=\"#figures-1\">") == 3);
  // The NOT RUN row is the last: no figures row after it.
  const std::string after_not_run = html.substr(html.find("verdict-not-run\"><strong>"));
  CHECK_THAT(after_not_run, !Contains("class=\"figures\""));
  CHECK(count_of(html, "<tr class=\"figures\">") == 4);
}

TEST_CASE("figures_beside: the STEM.*.png of the results file's folder, none when the folder is absent",
          "[report][html]") {
  TempDir dir("embpriv_report_html_figures");
  write_file(dir / "a.h5", "");
  write_file(dir / "a.z.png", "");
  write_file(dir / "a.b.png", "");
  write_file(dir / "ab.c.png", "");
  const std::vector<std::string> figures = figures_beside(dir / "a.h5");
  REQUIRE(figures.size() == 2);
  CHECK(figures[0] == dir / "a.b.png");
  CHECK(figures[1] == dir / "a.z.png");
  CHECK(figures_beside(dir / "missing/a.h5").empty());
}
