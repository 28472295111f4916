// Embedding tables from every format, on files the tests write themselves (GUIDE.md, sec. 7),
// broken ones included; and the real GloVe vectors from npm through their cache.
#include "tests/catch.h"
#include <ATen/ATen.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "data/tables/data_paths.h"
#include "data/tables/embedding_formats.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

std::string raw(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), c.numel() * c.element_size());
}

// A .npy file (format 1.0) of a 2-D tensor.
std::string npy(const at::Tensor& t, const std::string& descr, bool fortran = false) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': (" + std::to_string(t.size(0)) + ", " + std::to_string(t.size(1)) + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + raw(t);
}

// A safetensors file holding the given (name, tensor, dtype) entries.
std::string safetensors(const std::vector<std::tuple<std::string, at::Tensor, std::string>>& entries) {
  std::string header = "{\"__metadata__\": {\"format\": \"pt\"}", data;
  for (const auto& [name, tensor, dtype] : entries) {
    const std::string bytes = raw(tensor);
    header += ", \"" + name + "\": {\"dtype\": \"" + dtype + "\", \"shape\": [" + std::to_string(tensor.size(0)) +
              ", " + std::to_string(tensor.size(1)) + "], \"data_offsets\": [" + std::to_string(data.size()) +
              ", " + std::to_string(data.size() + bytes.size()) + "]}";
    data += bytes;
  }
  header += "}";
  const std::uint64_t length = header.size();
  return std::string(reinterpret_cast<const char*>(&length), 8) + header + data;
}

}  // namespace

TEST_CASE("GloVe and word2vec text", "[data]") {
  TempDir dir("embpriv_formats_test");
  write_file(dir / "glove.txt", "the 0.5 -1 2\n, 0.25 0 1e-3\r\nking 3 4 5\n");
  const EmbeddingTable glove = read_text_vectors(dir / "glove.txt");
  CHECK(glove.size() == 3);
  CHECK(glove.dim() == 3);
  CHECK(glove.index_of("king") == 2);
  CHECK(glove.index_of("queen") == -1);
  CHECK(at::equal(glove.vectors()[1], at::tensor(std::vector<float>{0.25f, 0.0f, 1e-3f})));
  write_file(dir / "w2v.txt", "2 3\nthe 0.5 -1 2\nking 3 4 5\n");
  CHECK(read_text_vectors(dir / "w2v.txt").words() == std::vector<std::string>{"the", "king"});
  write_file(dir / "ragged.txt", "the 0.5 -1 2\nking 3 4\n");
  CHECK_THROWS_WITH(read_text_vectors(dir / "ragged.txt"), Contains("line 2: 2 values, the first line had 3"));
  write_file(dir / "words.txt", "the 0.5 x 2\n");
  CHECK_THROWS_WITH(read_text_vectors(dir / "words.txt"), Contains("line 1: 'x' is not a number"));
  write_file(dir / "nan.txt", "the nan 1\n");
  CHECK_THROWS_WITH(read_text_vectors(dir / "nan.txt"), Contains("NaN or Inf"));
  // A table is checked row by row where it is loaded: the first bad row is named.
  write_file(dir / "inf.txt", "the 0.5 -1\nking 3 4\nqueen inf 1\nrook 1 nan\n");
  CHECK_THROWS_WITH(read_text_vectors(dir / "inf.txt"), Contains("NaN or Inf in row 2 ('queen'; 2 such rows in all)"));
  CHECK_THROWS_WITH(read_text_vectors(dir / "missing.txt"), Contains("cannot read"));
}

TEST_CASE(".npy in float16, float32 and float64", "[data]") {
  TempDir dir("embpriv_formats_test");
  at::manual_seed(1);
  const at::Tensor m = at::randn({7, 5});
  for (const auto& [descr, type] : {std::pair{"<f4", at::kFloat}, std::pair{"<f8", at::kDouble}, std::pair{"<f2", at::kHalf}}) {
    INFO(descr);
    write_file(dir / "m.npy", npy(m.to(type), descr));
    const EmbeddingTable t = read_npy(dir / "m.npy");
    CHECK(t.words()[6] == "6");
    CHECK(at::equal(t.vectors(), m.to(type).to(at::kFloat)));
  }
  write_file(dir / "words.txt", "a\nb\nc\nd\ne\nf\ng\n");
  write_file(dir / "m.npy", npy(m, "<f4"));
  CHECK(read_npy(dir / "m.npy", dir / "words.txt").index_of("g") == 6);
  write_file(dir / "cut.npy", npy(m, "<f4").substr(0, 150));
  CHECK_THROWS_WITH(read_npy(dir / "cut.npy"), Contains("is truncated"));
  write_file(dir / "fortran.npy", npy(m, "<f4", true));
  CHECK_THROWS_WITH(read_npy(dir / "fortran.npy"), Contains("Fortran-order"));
  write_file(dir / "ints.npy", npy(m.to(at::kInt), "<i4"));
  CHECK_THROWS_WITH(read_npy(dir / "ints.npy"), Contains("must be float16/32/64"));
  write_file(dir / "text.npy", "not numpy at all");
  CHECK_THROWS_WITH(read_npy(dir / "text.npy"), Contains("is not a .npy file"));
  write_file(dir / "few.txt", "a\nb\n");
  CHECK_THROWS_WITH(read_npy(dir / "m.npy", dir / "few.txt"), Contains("has 2 words for 7 rows"));
}

TEST_CASE("safetensors: a tensor chosen by name, F32, F16 and BF16", "[data]") {
  TempDir dir("embpriv_formats_test");
  at::manual_seed(2);
  const at::Tensor embed = at::randn({11, 4}), other = at::randn({3, 4});
  write_file(dir / "model.safetensors",
        safetensors({{"lm_head.weight", other, "F32"},
                     {"model.embed_tokens.weight", embed.to(at::kBFloat16), "BF16"},
                     {"half", embed.to(at::kHalf), "F16"},
                     {"full", embed, "F32"}}));
  CHECK(at::equal(read_safetensors(dir / "model.safetensors", "full").vectors(), embed));
  CHECK(at::equal(read_safetensors(dir / "model.safetensors", "half").vectors(), embed.to(at::kHalf).to(at::kFloat)));
  const EmbeddingTable bf16 = read_safetensors(dir / "model.safetensors", "model.embed_tokens.weight");
  CHECK(at::equal(bf16.vectors(), embed.to(at::kBFloat16).to(at::kFloat)));
  CHECK(bf16.size() == 11);
  CHECK_THROWS_WITH(read_safetensors(dir / "model.safetensors", "wte"),
                    Contains("has no tensor 'wte'; it has: full, half, lm_head.weight, model.embed_tokens.weight"));
  const std::string whole = safetensors({{"full", embed, "F32"}});
  write_file(dir / "cut.safetensors", whole.substr(0, whole.size() - 10));
  CHECK_THROWS_WITH(read_safetensors(dir / "cut.safetensors", "full"), Contains("is truncated"));
  write_file(dir / "bad.safetensors", std::string("\x05\0\0\0\0\0\0\0{oops", 13));
  CHECK_THROWS_WITH(read_safetensors(dir / "bad.safetensors", "full"), Contains("malformed safetensors header"));
}

TEST_CASE("HDF5 matrices with their words, written by h5py", "[data]") {
  TempDir dir("embpriv_formats_test");
  const std::string script = "import h5py, numpy as np\n"
                             "with h5py.File('" + (dir / "e.h5") + "', 'w') as f:\n"
                             "    f['emb'] = np.arange(12, dtype=np.float64).reshape(4, 3)\n"
                             "    f['words'] = np.array(['a', 'b', 'c', 'd'], dtype=h5py.string_dtype())\n"
                             "    f['flat'] = np.arange(3.0)\n";
  write_file(dir / "make.py", script);
  REQUIRE(std::system((EMBPRIV_TEST_PYTHON " " + (dir / "make.py")).c_str()) == 0);
  const EmbeddingTable t = read_hdf5_matrix(dir / "e.h5", "emb", "words");
  CHECK(t.index_of("c") == 2);
  CHECK(t.vectors()[3][2].item<float>() == 11);
  CHECK_THROWS_WITH(read_hdf5_matrix(dir / "e.h5", "embeddings"), Contains("has no dataset 'embeddings'"));
  CHECK_THROWS_WITH(read_hdf5_matrix(dir / "e.h5", "flat"), Contains("must be 2-D"));
  fs::resize_file(dir / "e.h5", 600);
  CHECK_THROWS_WITH(read_hdf5_matrix(dir / "e.h5", "emb"), Contains("cannot"));
}

TEST_CASE("the binary cache round trips and refuses broken files", "[data]") {
  TempDir dir("embpriv_formats_test");
  at::manual_seed(3);
  const EmbeddingTable t({"α", "b", ""}, at::randn({3, 6}), "test");
  write_table_cache(dir / "t.embt", t);
  const EmbeddingTable back = read_table_cache(dir / "t.embt");
  CHECK(back.words() == t.words());
  CHECK(at::equal(back.vectors(), t.vectors()));
  fs::resize_file(dir / "t.embt", 60);
  CHECK_THROWS_WITH(read_table_cache(dir / "t.embt"), Contains("is truncated"));
  write_file(dir / "x.embt", "EMBPRIVX and more bytes here....");
  CHECK_THROWS_WITH(read_table_cache(dir / "x.embt"), Contains("not an embpriv embedding cache"));
  CHECK_THROWS_WITH(EmbeddingTable({"a"}, at::zeros({2, 3}), "here"), Contains("here: 2 rows but 1 words"));
}

TEST_CASE("the real GloVe 100-d vectors from npm, through the cache", "[data][glove]") {
  const EmbeddingTable glove = load_cached_glove(resolve_data_path(kGloveJson));
  CHECK(glove.size() == 341479);
  CHECK(glove.dim() == 100);
  CHECK(glove.words()[0] == "the");
  // The data README: the row for "the" begins -0.038194 -0.24487 0.72812.
  CHECK(glove.vectors()[0][0].item<float>() == -0.038194f);
  CHECK(glove.vectors()[0][1].item<float>() == -0.24487f);
  CHECK(glove.vectors()[0][2].item<float>() == 0.72812f);
  // Related words are nearer than unrelated ones.
  const auto v = [&](const char* w) { return glove.vectors()[glove.index_of(w)]; };
  const auto cos = [](const at::Tensor& a, const at::Tensor& b) { return (a.dot(b) / a.norm() / b.norm()).item<double>(); };
  CHECK(cos(v("king"), v("queen")) > cos(v("king"), v("carrot")) + 0.3);
  CHECK(glove.first(50000).size() == 50000);
}
