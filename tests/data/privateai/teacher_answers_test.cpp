// Teachers' answer files (data/privateai/teacher_answers.h): JSONL round trip, HDF5 read, and one clear
// error for each way a file can be wrong.
#include "tests/catch.h"

#include <ATen/ATen.h>
#include <hdf5.h>

#include <fstream>

#include "core/error.h"
#include "data/privateai/teacher_answers.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string error_of(const std::string& path, std::int64_t units) {
  try {
    read_teacher_answers(path, units);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("teacher answers: JSONL round trip", "[federated][data]") {
  TempDir dir("embpriv_teachers_test");
  TeacherAnswers answers{{"gpt", "labeller"}, at::tensor({0.1, 0.9, 0.5, 1.0, 0.0, 0.25}, at::kDouble).view({2, 3})};
  const std::string path = dir / "a.jsonl";
  write_teacher_answers(path, answers);
  const TeacherAnswers back = read_teacher_answers(path, 3);
  CHECK(back.teachers == answers.teachers);
  CHECK(at::allclose(back.scores, answers.scores));
  // Lines may come in any order.
  write_text(dir / "b.jsonl",
             "{\"teacher\": \"x\", \"unit\": 1, \"score\": 0.5}\n\n{\"teacher\": \"x\", \"unit\": 0, \"score\": 1}\n");
  CHECK(read_teacher_answers(dir / "b.jsonl", 2).scores[0][0].item<double>() == 1.0);
}

TEST_CASE("teacher answers: a bad file is one clear error", "[federated][data]") {
  TempDir dir("embpriv_teachers_bad_test");
  const auto with = [&](const std::string& name, const std::string& text) {
    write_text(dir / name, text);
    return error_of(dir / name, 2);
  };
  CHECK_THAT(with("missing.jsonl", "{\"teacher\": \"x\", \"unit\": 0, \"score\": 1}\n"),
             Catch::Matchers::Contains("does not answer unit 1"));
  CHECK_THAT(with("twice.jsonl", "{\"teacher\": \"x\", \"unit\": 0, \"score\": 1}\n{\"teacher\": \"x\", \"unit\": 0, \"score\": 0}\n"),
             Catch::Matchers::Contains("twice"));
  CHECK_THAT(with("range.jsonl", "{\"teacher\": \"x\", \"unit\": 0, \"score\": 1.5}\n"), Catch::Matchers::Contains("not in [0, 1]"));
  CHECK_THAT(with("unit.jsonl", "{\"teacher\": \"x\", \"unit\": 7, \"score\": 1}\n"), Catch::Matchers::Contains("outside the proxy set"));
  CHECK_THAT(with("broken.jsonl", "{\"teacher\": \"x\", \"unit\": 0, \"sco"), Catch::Matchers::Contains("broken.jsonl:1"));
  CHECK_THAT(with("keys.jsonl", "{\"model\": \"x\", \"unit\": 0, \"score\": 1}\n"), Catch::Matchers::Contains("expected"));
  CHECK_THAT(with("empty.jsonl", ""), Catch::Matchers::Contains("no answers"));
  CHECK_THAT(with("a.csv", "x"), Catch::Matchers::Contains(".jsonl, .h5 or .hdf5"));
  CHECK_THAT(error_of(dir / "absent.jsonl", 2), Catch::Matchers::Contains("cannot open"));
}

TEST_CASE("teacher answers: HDF5 /scores and /teachers", "[federated][data]") {
  TempDir dir("embpriv_teachers_h5_test");
  const std::string path = dir / "a.h5";
  {
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[2] = {2, 3};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t set = H5Dcreate2(file, "scores", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const double scores[6] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, scores);
    const hsize_t n = 2;
    const hid_t names_space = H5Screate_simple(1, &n, nullptr);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    const hid_t names = H5Dcreate2(file, "teachers", type, names_space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const char* values[2] = {"deepseek", "gpt"};
    H5Dwrite(names, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    H5Dclose(names);
    H5Tclose(type);
    H5Sclose(names_space);
    H5Dclose(set);
    H5Sclose(space);
    H5Fclose(file);
  }
  const TeacherAnswers answers = read_teacher_answers(path, 3);
  CHECK(answers.teachers == std::vector<std::string>{"deepseek", "gpt"});
  CHECK(answers.scores[1][2].item<double>() == Approx(0.6));
  CHECK_THAT(error_of(path, 4), Catch::Matchers::Contains("proxy units"));
}
