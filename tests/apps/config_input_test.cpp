// A config that can be read only once (a FIFO, bash's <(cat x.yaml)) runs: embpriv reads it once.
#include "core/source_dir.h"
#include "tests/catch.h"

#include <sys/stat.h>

#include "experiments/results/results_table.h"
#include "tests/test_binary.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

TEST_CASE("a config read from a FIFO runs (the config is read once)", "[apps]") {
  TempDir dir("embpriv_fifo_config_test");
  const std::string fifo = dir / "config.yaml";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const std::string out = dir / "b.h5";
  // The shell writes the config into the FIFO once, in the background, as <(cat ...) does.
  const Outcome outcome = run_binary("run " + fifo + " 'sweep.data.dim=[64]' data.samples=500 --no-plot -q --out " + out,
                                     Capture::errors, "cat " + std::string(embpriv::source_dir()) + "/configs/bounds.yaml > " + fifo + " & ");
  CHECK(outcome.output.empty());
  REQUIRE(outcome.code == 0);
  CHECK(read_results_h5(out).rows() == 58);
}
