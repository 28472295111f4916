// Bad input exits with code 2 and one `embpriv: error:` line, never 1 ("internal error"): complex
// YAML keys, results files that lie about their rows or types, outputs that cannot be written,
// and data files that cannot be loaded (which stop the run before any row).
#include "core/source_dir.h"
#include "tests/catch.h"

#include <hdf5.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "data/tables/hdf5_handle.h"
#include "experiments/results/results_table.h"
#include "tests/test_binary.h"
#include "tests/test_data.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

std::string config(const std::string& name) { return std::string(embpriv::source_dir()) + "/configs/" + name; }

// Expects exit code 2 and one error line holding `message`.
void check_bad_input(const std::string& args, const std::string& message) {
  INFO("embpriv " << args);
  const Outcome outcome = run_binary(args + " -q", Capture::errors);
  CHECK(outcome.code == 2);
  CHECK_THAT(outcome.output, Contains("embpriv: error: " ) && Contains(message));
  CHECK(std::count(outcome.output.begin(), outcome.output.end(), '\n') == 1);
}

// A results file whose /table/x claims `rows` values and stores none (chunked, never written).
void write_lying_results(const std::string& path, hsize_t rows) {
  hdf5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  hdf5::Handle table(H5Gcreate2(file.get(), "table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  hdf5::Handle space(H5Screate_simple(1, &rows, nullptr), H5Sclose);
  hdf5::Handle layout(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  const hsize_t chunk = 1024;
  H5Pset_chunk(layout.get(), 1, &chunk);
  hdf5::Handle set(H5Dcreate2(table.get(), "x", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, layout.get(), H5P_DEFAULT),
                   H5Dclose);
  REQUIRE(set.ok());
}

}  // namespace

TEST_CASE("complex YAML keys are bad input", "[apps][exit_codes]") {
  TempDir dir("embpriv_complex_key_test");
  write_file(dir / "complex.yaml", "type: bounds\n? [a, b]\n: 1\n");
  check_bad_input("run " + (dir / "complex.yaml") + " --dry-run", "line 2: a key must be a plain name, got '[a, b]'");
  write_file(dir / "nested.yaml", "type: perturbation\nmechanism:\n  ? {x: 1}\n  : 2\n");
  check_bad_input("run " + (dir / "nested.yaml") + " --dry-run", "line 3: a key must be a plain name, got '{x: 1}'");
  check_bad_input("run " + config("bounds.yaml") + " 'data={? [a]: 1}' --dry-run",
                  "command line 'data={? [a]: 1}': a key must be a plain name");
}

TEST_CASE("results files that claim rows they do not store, or a float row column, are bad input", "[apps][exit_codes]") {
  TempDir dir("embpriv_lying_results_test");
  write_lying_results(dir / "huge.h5", 1000000000000ULL);
  check_bad_input("info " + (dir / "huge.h5"), "/table/x claims 1000000000000 values but stores only 0 bytes");
  ResultsTable table;
  table.columns = {{"row", std::vector<double>{0.5, 1}},
                   {"status", std::vector<std::string>{"ok", "ok"}},
                   {"error", std::vector<std::string>{"", ""}}};
  table.attributes = {{"config_hash", "x"}, {"complete", "true"}};
  write_results_h5(dir / "float_row.h5", table);
  check_bad_input("merge " + (dir / "merged.h5") + " " + (dir / "float_row.h5"),
                  "results column 'row' must hold integers");
}

TEST_CASE("outputs that cannot be written are bad input", "[apps][exit_codes]") {
  TempDir dir("embpriv_bad_output_test");
  const std::string small = "bounds --dim 64 --samples 500 --no-plot";
  REQUIRE(run_binary(small + " -q --out " + (dir / "b.h5")).code == 0);
  fs::create_directories(dir / "folder");
  check_bad_input("merge " + (dir / "folder") + " " + (dir / "b.h5"), "it is a folder");
  check_bad_input(small + " --out " + (dir / "b.h5/x.h5"), "b.h5 is a file, not a folder");
  const std::string read_only = dir / "read_only";
  fs::create_directories(read_only);
  // root writes into any folder whatever its mode: then a read-only tmpfs is the read-only folder
  const bool mounted = getuid() == 0 &&
      std::system(("mount -t tmpfs -o ro,size=16k tmpfs " + read_only + " 2>/dev/null").c_str()) == 0;
  if (!mounted) fs::permissions(read_only, fs::perms::owner_read | fs::perms::owner_exec);
  if (mounted || getuid() != 0) {
    check_bad_input(small + " --out " + read_only + "/x.h5", "is not writable");
  } else {
    std::cout << "skipped: root cannot mount a read-only tmpfs here, and writes into read-only folders\n";
  }
  if (mounted) std::system(("umount " + read_only).c_str());
  fs::permissions(read_only, fs::perms::owner_all);
}

TEST_CASE("a data file that cannot be loaded stops the run before any row, with exit code 2", "[apps][exit_codes]") {
  TempDir dir("embpriv_bad_data_test");
  {  // the first 3000 bytes of the real tokenizer, and of the real model
    std::ifstream tokenizer(stories260k_tokenizer(), std::ios::binary), model(stories260k_checkpoint(), std::ios::binary);
    std::string head(3000, '\0');
    tokenizer.read(head.data(), 3000);
    write_file(dir / "tok.bin", head);
    model.read(head.data(), 3000);
    write_file(dir / "model.bin", head);
  }
  const std::string run = "run " + config("obfuslm_stories260k.yaml") + " --no-plot --out " + (dir / "o.h5");
  check_bad_input(run + " data.tokenizer=" + (dir / "tok.bin"), "tok.bin is truncated");
  // The memory estimate reads the header first and finds the file too short for it.
  check_bad_input(run + " data.model=" + (dir / "model.bin"),
                  "data.model '" + (dir / "model.bin") + "' is not a llama2.c checkpoint (header dim=64 vocab=512 "
                  "does not fit its 3000 bytes)");
  CHECK(!fs::exists(dir / "o.h5"));  // no row ran, no file written
}

TEST_CASE("the dry run prints the limits it checks before any work", "[apps][exit_codes]") {
  const Outcome outcome = run_binary("run " + config("bounds.yaml") + " --dry-run");
  CHECK(outcome.code == 0);
  CHECK_THAT(outcome.output, Contains("limits (checked before any work): a grid of at most 1000000 rows; "
                                      "a batch of at most ") &&
                                 Contains("(half of this machine's "));
}
