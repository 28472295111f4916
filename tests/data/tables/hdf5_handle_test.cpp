// hdf5::Handle closes what it owns exactly once: at the end of its scope, not after a move out
// of it, never a failed (negative) id.
#include "tests/catch.h"

#include "data/tables/hdf5_handle.h"

using namespace embpriv;

namespace {

int closes = 0;
herr_t counting_close(hid_t id) {
  ++closes;
  return H5Sclose(id);
}

}  // namespace

TEST_CASE("an HDF5 handle closes its id once, when its last owner leaves scope", "[data][hdf5]") {
  closes = 0;
  const hsize_t n = 3;
  hid_t id = -1;
  {
    hdf5::Handle space(H5Screate_simple(1, &n, nullptr), counting_close);
    REQUIRE(space.ok());
    id = space.get();
    CHECK(H5Iis_valid(id) > 0);
    hdf5::Handle moved(std::move(space));
    CHECK(moved.get() == id);
    CHECK_FALSE(space.ok());  // NOLINT(bugprone-use-after-move): the moved-from handle owns nothing
    CHECK(closes == 0);
  }
  CHECK(closes == 1);
  CHECK(H5Iis_valid(id) <= 0);
}

TEST_CASE("an HDF5 handle of a failed call is not ok and is never closed", "[data][hdf5]") {
  closes = 0;
  {
    const hdf5::Handle failed(-1, counting_close);
    CHECK_FALSE(failed.ok());
  }
  CHECK(closes == 0);
}
