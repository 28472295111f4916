// The content fingerprints of the files a run reads (experiments/engine/input_files.h): resume and
// merge refuse rows computed on other data, naming the file; the types' data files reach the
// engine through check_data_files.
#include "tests/catch.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/blake2b.h"
#include "experiments/engine/input_files.h"
#include "experiments/engine/run_plan.h"
#include "experiments/engine/runner.h"
#include "experiments/results/merge.h"
#include "experiments/types/registry.h"
#include "tests/test_data.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

FileFingerprint only(const std::vector<FileFingerprint>& fingerprints) {
  REQUIRE(fingerprints.size() == 1);
  return fingerprints.front();
}

// A small inversion run on a copy of the yelp sentences: 2 grid rows, no language model texts,
// no utility classifier.
std::string inversion_config(const std::string& sentences) {
  return "type: inversion\ndata: {max_sentences: 4, sentences: '" + sentences +
         "'}\nlanguage_model: {texts: 0}\nutility: {train_sentences: []}\n"
         "mechanism: {name: vmf, epsilon: 1, beta: 1}\nsweep:\n  mechanism.epsilon: [1, 1000]\n";
}

int run(const std::string& config, const std::string& out, bool resume, const std::string& shard = "") {
  RunOptions options;
  options.config_path = config;
  options.out = out;
  options.resume = resume;
  options.overwrite = !resume;
  options.plot = false;
  if (!shard.empty()) options.shard = parse_shard(shard);
  std::ostringstream log;
  return run_experiment(options, default_experiment_registry(), default_mechanism_registry(), log);
}

// The yelp sentences with one letter of the first sentence changed: the same size.
std::string edited_sentences(const std::string& original) {
  std::string edited = original;
  const auto at = edited.find("Loved");
  REQUIRE(at != std::string::npos);
  edited[at] = 'M';  // "Moved this place"
  return edited;
}

}  // namespace

TEST_CASE("a fingerprint is the size and BLAKE2b-256 of the contents, not the modification time", "[engine]") {
  TempDir dir("embpriv_fingerprint_test");
  const std::string file = dir / "s.json";
  write_file(file, "[{\"text\":\"Loved it.\",\"class\":1}]");
  const FileFingerprint before = only(fingerprint_input_files({{"data.sentences", "s.json", file}}));
  CHECK(before.file == "s.json");
  CHECK(before.key == "data.sentences");
  CHECK(before.size == 32);
  CHECK(before.blake2b == blake2b_256_hex(read_file(file)));
  // The same size and modification time, one byte changed: another fingerprint.
  const auto modified = fs::last_write_time(file);
  write_file(file, "[{\"text\":\"Moved it.\",\"class\":1}]");
  fs::last_write_time(file, modified);
  const FileFingerprint after = only(fingerprint_input_files({{"data.sentences", "s.json", file}}));
  CHECK(after.size == before.size);
  CHECK(after.blake2b != before.blake2b);
  CHECK(after.blake2b == blake2b_256_hex(read_file(file)));
  // A copy elsewhere (another modification time, another inode) has the same fingerprint.
  fs::copy_file(file, dir / "copy.json");
  CHECK(only(fingerprint_input_files({{"data.sentences", "s.json", dir / "copy.json"}})).blake2b == after.blake2b);
}

TEST_CASE("BLAKE2b-256 matches the reference values", "[engine]") {
  // RFC 7693's algorithm with a 32-byte digest, as Python's hashlib.blake2b(digest_size=32).
  CHECK(blake2b_256_hex("") == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  CHECK(blake2b_256_hex("abc") == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
  std::string bytes;
  for (int r = 0; r < 5; ++r) {
    for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  }
  CHECK(blake2b_256_hex(bytes) == "82628cbfc9689e234b0923a531f4578fe2e7138a03e2f81ed6cde97517336650");
  Blake2b pieces;  // fed one byte at a time: block boundaries do not matter
  for (const char c : bytes) pieces.update(&c, 1);
  CHECK(pieces.hex_digest() == blake2b_256_hex(bytes));
}

TEST_CASE("a model folder stands for its json and safetensors files; other entries are skipped", "[engine]") {
  TempDir dir("embpriv_fingerprint_folder_test");
  const std::string folder = dir / "model";
  fs::create_directories(folder);
  write_file(folder + "/config.json", "{}");
  write_file(folder + "/model.safetensors", "weights");
  write_file(folder + "/tokenizer.json", "{\"model\":{}}");
  write_file(folder + "/README.md", "not loaded");
  REQUIRE(::mkfifo((folder + "/part.safetensors").c_str(), 0600) == 0);  // an interrupted download
  fs::create_symlink(folder + "/gone", folder + "/dangling.safetensors");
  const std::vector<FileFingerprint> files = fingerprint_input_files({{"data.model", "models/m", folder}});
  REQUIRE(files.size() == 3);
  CHECK(files[0].file == "models/m/config.json");
  CHECK(files[1].file == "models/m/model.safetensors");
  CHECK(files[2].file == "models/m/tokenizer.json");
  CHECK(files[1].key == "data.model");
  const std::string before = input_files_text(files);
  write_file(folder + "/model.safetensors", "weightz");
  const std::string now = input_files_text(fingerprint_input_files({{"data.model", "models/m", folder}}));
  CHECK_THAT(input_files_difference(before, now, "then", "now"),
             Contains("models/m/model.safetensors (data.model) has changed: 7 bytes, blake2b ") &&
                 Contains(" then; 7 bytes, blake2b ") && Contains(" now"));
  write_file(folder + "/model-00002.safetensors", "more");
  const std::string grown = input_files_text(fingerprint_input_files({{"data.model", "models/m", folder}}));
  CHECK_THAT(input_files_difference(now, grown, "then", "now"),
             Contains("models/m/model-00002.safetensors (data.model) is read now but was not then"));
  CHECK_THAT(input_files_difference(grown, now, "then", "now"),
             Contains("models/m/model-00002.safetensors (data.model) was read then but is not now"));
  CHECK(input_files_difference(now, now, "then", "now").empty());
}

TEST_CASE("a pipe as a data file is refused: it cannot be read twice", "[engine]") {
  TempDir dir("embpriv_fingerprint_pipe_test");
  REQUIRE(::mkfifo((dir / "s.json").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(fingerprint_input_files({{"data.sentences", "s.json", dir / "s.json"}}),
                    Contains("data.sentences: s.json is neither a regular file nor a folder"));
}

TEST_CASE("the input_files text reads back, names with newlines included", "[engine]") {
  const std::vector<FileFingerprint> files = {{"data.glove", "a b\nc\\d.json", 12, std::string(64, 'a')},
                                              {"data.sentences", "s.json", 0, std::string(64, 'b')}};
  const std::vector<FileFingerprint> back = parse_input_files_text(input_files_text(files), "r.h5");
  REQUIRE(back.size() == 2);
  CHECK(back[0].file == "a b\nc\\d.json");
  CHECK(back[0].size == 12);
  CHECK(back[1].key == "data.sentences");
  CHECK_THROWS_WITH(parse_input_files_text("abc 1 k f\n", "r.h5"), Contains("r.h5: malformed input_files line"));
}

TEST_CASE("the data files the types check while a run is planned are collected", "[engine]") {
  const MechanismRegistry mechanisms = default_mechanism_registry();
  const InputFileCollector collector;
  plan_from_document(parse_config_text("type: inversion\n", "x.yaml"), {}, default_experiment_registry(), mechanisms);
  std::vector<std::string> keys;
  for (const InputFile& f : collector.files()) keys.push_back(f.key + "=" + f.path);
  CHECK(keys == std::vector<std::string>{"data.sentences=sentiment/yelp.json",
                                         "utility.train_sentences=sentiment/amazon.json",
                                         "utility.train_sentences=sentiment/imdb.json",
                                         "data.model=tinyllama/stories260K.bin",
                                         "data.tokenizer=tinyllama/tok512.bin"});
}

TEST_CASE("resume refuses a results file computed on other data, naming the file", "[engine]") {
  TempDir dir("embpriv_resume_data_test");
  const std::string sentences = dir / "yelp.json", config = dir / "c.yaml", out = dir / "r.h5";
  const std::string original = read_file(shared_data("sentiment/yelp.json"));
  write_file(sentences, original);
  write_file(config, inversion_config(sentences));
  REQUIRE(run(config, out, false) == 0);
  CHECK_THAT(read_results_h5(out).attributes.at("input_files"), Contains(" data.sentences " + sentences));
  REQUIRE(run(config, out, true) == 0);  // the same data: nothing left to do
  // The same path, the same size, other sentences.
  write_file(sentences, edited_sentences(original));
  CHECK_THROWS_WITH(run(config, out, true),
                    Contains(out + " was computed on other data: " + sentences +
                             " (data.sentences) has changed: ") &&
                        Contains("--resume needs the same data"));
  write_file(sentences, original);  // back as it was: resumable again
  CHECK(run(config, out, true) == 0);
}

TEST_CASE("merge refuses shards computed on other data, naming the file", "[engine]") {
  TempDir dir("embpriv_merge_data_test");
  const std::string sentences = dir / "yelp.json", config = dir / "c.yaml";
  const std::string original = read_file(shared_data("sentiment/yelp.json"));
  write_file(sentences, original);
  write_file(config, inversion_config(sentences));
  REQUIRE(run(config, dir / "s1.h5", false, "1/2") == 0);
  REQUIRE(run(config, dir / "s2.h5", false, "2/2") == 0);
  write_file(sentences, edited_sentences(original));
  REQUIRE(run(config, dir / "s2b.h5", false, "2/2") == 0);
  const ExperimentRegistry& types = default_experiment_registry();
  const MechanismRegistry mechanisms = default_mechanism_registry();
  CHECK_THROWS_WITH(merge_run_files(dir / "m.h5", {dir / "s1.h5", dir / "s2b.h5"}, types, mechanisms),
                    Contains(dir / "s2b.h5" + " was computed on other data than " + dir / "s1.h5" + ": " +
                             sentences + " (data.sentences) has changed: ") &&
                        Contains(" in " + dir / "s1.h5" + "; "));
  CHECK(merge_run_files(dir / "m.h5", {dir / "s1.h5", dir / "s2.h5"}, types, mechanisms).rows() == 2);
}

TEST_CASE("merge names a file embpriv did not write as such", "[engine]") {
  TempDir dir("embpriv_merge_foreign_test");
  ResultsTable foreign;  // an HDF5 table with a row column and none of embpriv's attributes
  foreign.columns.push_back({"row", std::vector<std::int64_t>{0, 1}});
  write_results_h5(dir / "fake.h5", foreign);
  CHECK_THROWS_WITH(merge_run_files(dir / "out.h5", {dir / "fake.h5"}, default_experiment_registry(),
                                    default_mechanism_registry()),
                    Contains(dir / "fake.h5" + " is not an embpriv results file"));
}
