// `embpriv perturb` as a user runs it on their own vectors: an .npy or HDF5 matrix in, the
// mechanism's rows out with the seed and the privacy claim as attributes; bad input is one error
// line naming the file or key, exit 2, and no output file.
#include "tests/catch.h"

#include <ATen/ATen.h>
#include <hdf5.h>

#include <algorithm>
#include <filesystem>

#include "data/tables/hdf5_handle.h"
#include "experiments/engine/mechanism_yaml.h"
#include "experiments/results/vector_file.h"
#include "mechanisms/registry.h"
#include "tests/test_binary.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// Rows of a fixed seed, as a user's sentence vectors would be (no zero row).
at::Tensor user_vectors(std::int64_t rows, std::int64_t dim) {
  at::manual_seed(7);
  return at::randn({rows, dim}, at::kFloat);
}

double double_attribute(const std::string& path, const char* name) {
  const hdf5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  const hdf5::Handle attribute(H5Aopen(file.get(), name, H5P_DEFAULT), H5Aclose);
  double value = -1;
  REQUIRE(attribute.ok());
  REQUIRE(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value) >= 0);
  return value;
}

void check_bad_input(const std::string& args, const std::string& message) {
  INFO("embpriv perturb " << args);
  const Outcome outcome = run_binary("-q perturb " + args, Capture::errors);
  CHECK(outcome.code == 2);
  CHECK_THAT(outcome.output, Contains("embpriv: error: ") && Contains(message));
  CHECK(std::count(outcome.output.begin(), outcome.output.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("embpriv perturb gives the mechanism's rows of Rng(seed, i) and records seed and claim", "[apps][perturb]") {
  TempDir dir("embpriv_perturb_cli_test");
  VectorFile in;
  in.vectors = user_vectors(20, 16);
  std::vector<std::string> ids;
  for (int i = 0; i < 20; ++i) ids.push_back("sentence " + std::to_string(i));
  in.row_columns.push_back(Column{"ids", ids});
  write_vector_file(dir / "in.h5", in);
  write_vector_file(dir / "in.npy", in);

  const Outcome run = run_binary("-q perturb --mechanism gaussian --epsilon 2 clip_norm=3 --seed 11 '" + dir / "in.h5" +
                                 "' '" + dir / "out.h5" + "'");
  REQUIRE(run.code == 0);
  CHECK_THAT(run.output, Contains("perturbed 20 rows of dimension 16") && Contains("epsilon_actual"));
  const std::unique_ptr<Mechanism> gaussian =
      make_mechanism("{name: gaussian, epsilon: 2, clip_norm: 3}", default_mechanism_registry());
  const at::Tensor expected = gaussian->perturb(in.vectors, RandomStream{11, 0});
  const VectorFile out = read_vector_file(dir / "out.h5");
  CHECK(at::equal(out.vectors, expected));
  REQUIRE(out.row_columns.size() == 1);
  CHECK(std::get<std::vector<std::string>>(out.row_columns[0].values) == ids);
  // Gaussian at eps >= 1 with the analytic default: the noise gives what the claim says.
  CHECK(double_attribute(dir / "out.h5", "epsilon_actual") == Approx(gaussian->claim().epsilon_actual).epsilon(1e-12));
  CHECK(double_attribute(dir / "out.h5", "claim_epsilon") == 2.0);

  // The same matrix as .npy gives the same bytes, and its attributes go to OUT.npy.json.
  REQUIRE(run_binary("-q perturb --mechanism gaussian --epsilon 2 clip_norm=3 --seed 11 '" + dir / "in.npy" + "' '" +
                     dir / "out.npy" + "'")
              .code == 0);
  CHECK(at::equal(read_vector_file(dir / "out.npy").vectors, expected));
  CHECK_THAT(read_file(dir / "out.npy.json"), Contains("\"seed\": 11") && Contains("\"claim_kind\": \"approx_dp\""));

  // Another seed gives other rows; vmf keeps every norm (vMF paper, Thm 5.1).
  REQUIRE(run_binary("-q perturb --mechanism vmf --epsilon 5 --seed 12 '" + dir / "in.h5" + "' '" + dir / "vmf.h5" + "'")
              .code == 0);
  const at::Tensor vmf = read_vector_file(dir / "vmf.h5").vectors;
  CHECK(at::allclose(vmf.norm(2, {1}), in.vectors.norm(2, {1}), 1e-5, 1e-5));
  CHECK(!at::equal(vmf, in.vectors));
}

TEST_CASE("embpriv perturb refuses bad input by file or key, exit 2, writing nothing", "[apps][perturb]") {
  TempDir dir("embpriv_perturb_bad_test");
  VectorFile in;
  in.vectors = user_vectors(4, 8);
  write_vector_file(dir / "in.h5", in, "emb");
  in.vectors[2].zero_();
  write_vector_file(dir / "zero.npy", in);
  const std::string h5 = "'" + dir / "in.h5" + "' ", out = "'" + dir / "out.h5" + "'";
  check_bad_input("--mechanism vmf --epsilon 2 " + h5 + out, "has no dataset 'vectors' (its datasets: emb)");
  check_bad_input("--mechanism vmff --epsilon 2 --dataset emb " + h5 + out, "vmff");
  check_bad_input("--mechanism vmf --epsilon 2 bta=1 --dataset emb " + h5 + out, "bta");
  check_bad_input("--mechanism vmf --epsilon -1 --dataset emb " + h5 + out, "epsilon");
  check_bad_input("--mechanism vmf --epsilon 2 beta --dataset emb " + h5 + out, "mechanism key 'beta' must be key=value");
  check_bad_input("--mechanism vmf --epsilon 2 '" + dir / "missing.npy" + "' " + out, "missing.npy");
  check_bad_input("--mechanism vmf --epsilon 2 --dataset emb " + h5 + "'" + dir / "out.csv" + "'", "out.csv' must end in .npy");
  check_bad_input("--mechanism vmf --epsilon 2 '" + dir / "zero.npy" + "' " + out, "zero.npy: row 2 is a zero vector");
  CHECK(!std::filesystem::exists(dir / "out.h5"));
  // An existing output is kept unless --overwrite.
  write_file(dir / "out.h5", "old");
  check_bad_input("--mechanism vmf --epsilon 2 --dataset emb " + h5 + out, "exists; pass --overwrite");
  CHECK(read_file(dir / "out.h5") == "old");
  CHECK(run_binary("-q perturb --mechanism vmf --epsilon 2 --dataset emb --overwrite " + h5 + out).code == 0);
  CHECK(read_vector_file(dir / "out.h5", "emb").vectors.size(0) == 4);
}
