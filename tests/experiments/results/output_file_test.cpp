// Output safety: the checks of an output path and the advisory lock of a results file.
#include "tests/catch.h"

#include <filesystem>
#include <fstream>
#include <memory>

#include "core/error.h"
#include "experiments/results/output_file.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

TEST_CASE("one OutputLock per file at a time; released, it can be taken again", "[results]") {
  TempDir dir("embpriv_output_lock_test");
  const std::string out = dir / "x.h5";
  {
    const OutputLock first(out);
    CHECK(fs::exists(out + ".lock"));
    CHECK_THROWS_WITH(OutputLock(out), Contains("another embpriv process is writing " + out));
    const OutputLock other(dir / "y.h5");  // another file: its own lock
  }
  CHECK(!fs::exists(out + ".lock"));
  std::ofstream(out + ".lock") << "";  // left by a killed run: reused
  CHECK_NOTHROW(OutputLock(out));
}

TEST_CASE("check_output_writable makes a missing folder and refuses folders and files in the way", "[results]") {
  TempDir dir("embpriv_output_path_test");
  CHECK_NOTHROW(check_output_writable(dir / "new/deeper/x.h5"));
  CHECK(fs::is_directory(dir / "new/deeper"));
  std::ofstream(dir / "file") << "x";
  CHECK_THROWS_WITH(check_output_writable(dir / "file/x.h5"), Contains("is a file, not a folder"));
  CHECK_THROWS_WITH(check_output_writable(dir / "new"), Contains("it is a folder"));
  CHECK_NOTHROW(check_not_replacing(dir / "missing.h5", false, "hint"));
  CHECK_THROWS_WITH(check_not_replacing(dir / "file", false, "pass --overwrite"),
                    Contains("file exists; pass --overwrite"));
  CHECK_NOTHROW(check_not_replacing(dir / "file", true, "pass --overwrite"));
}
