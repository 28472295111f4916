// `embpriv embed` as a user runs it: texts in, one vector per text out (HDF5, and .npy on
// request) with ids, token counts and the truncation marked; the vectors are the bits
// TextModel::embed gives in-process (what embpriv.load_model(...).encode runs), for a random BERT
// of the float64 reference (tests/models/hf_encoder_reference.py) and for stories260K as a
// Hugging Face Llama folder. Bad input: one error line naming the file or key, exit 2.
#include "tests/catch.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/source_dir.h"
#include "experiments/results/vector_file.h"
#include "models/hf_encoder_model.h"
#include "models/hf_encoder_outputs.h"
#include "models/language_model.h"
#include "models/text_model.h"
#include "tests/test_bert_tokenizer.h"
#include "tests/test_binary.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// A WordPiece tokenizer.json of the reference models' 50 ids (BertNormalizer, BertPreTokenizer,
// BertProcessing: [CLS] text [SEP]).
void write_small_bert_tokenizer(const std::string& path) {
  std::vector<std::string> pieces = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "cat", "dog", "sat",
                                     "on", "mat", "and", "ran", "far", "away", "good", "bad", "movie", "was",
                                     ".", ",", "!", "it", "is", "not", "very", "##s", "##ing", "##ed"};
  for (char c = 'a'; pieces.size() < 50; ++c) pieces.push_back(std::string("##") + c);
  std::ofstream(path) << bert_tokenizer_json(pieces, 5).dump();
}

// The reference's BertForSequenceClassification (CLS pooling in 1_Pooling, a pooler, 64
// positions) with the tokenizer above.
std::string make_bert_folder(const TempDir& dir) {
  const std::string folder = dir / "bert";
  const std::string command = EMBPRIV_TEST_PYTHON " " + std::string(source_dir()) +
                              "/tests/models/hf_encoder_reference.py make bert_classifier_f32 " + folder + " 3";
  REQUIRE(std::system(command.c_str()) == 0);
  write_small_bert_tokenizer(folder + "/tokenizer.json");
  return folder;
}

const std::vector<std::string> kTexts = {"The cat sat on the mat.", "a dog ran far away!", "good movie",
                                         "it is not very bad , it was good", "", "cats and dogs"};

std::string write_lines(const TempDir& dir, const std::vector<std::string>& texts) {
  std::string all;
  for (const std::string& t : texts) all += t + "\n";
  write_file(dir / "texts.txt", all);
  return dir / "texts.txt";
}

// A per-row dataset of a vector file, by name.
template <class T>
const std::vector<T>& row_values(const VectorFile& file, const std::string& name) {
  for (const Column& c : file.row_columns) {
    if (c.name == name) return std::get<std::vector<T>>(c.values);
  }
  FAIL("no dataset " << name);
  throw;
}

void check_bad_input(const std::string& args, const std::string& message) {
  INFO("embpriv embed " << args);
  const Outcome outcome = run_binary("-q embed " + args, Capture::errors);
  CHECK(outcome.code == 2);
  CHECK_THAT(outcome.output, Contains("embpriv: error: ") && Contains(message));
  CHECK(std::count(outcome.output.begin(), outcome.output.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("embpriv embed writes TextModel::embed's bits with ids and token counts (BERT)", "[apps][embed]") {
  TempDir dir("embpriv_embed_bert_test");
  const std::string folder = make_bert_folder(dir);
  const std::string texts = write_lines(dir, kTexts);
  const TextModel model(folder);
  for (const std::string pooling : {"", "mean", "max", "cls", "pooler"}) {
    INFO("pooling " << pooling);
    const std::string out = dir / ("out" + pooling + ".h5");
    const Outcome run = run_binary("-q embed '" + folder + "' --input '" + texts + "' --out '" + out + "' --batch 4" +
                                   (pooling.empty() ? std::string() : " --pooling " + pooling));
    REQUIRE(run.code == 0);
    EmbedOptions options;
    if (!pooling.empty()) options.pooling = parse_text_pooling(pooling);
    options.batch_size = 4;
    const TextEmbeddings expected = model.embed(kTexts, options);
    const VectorFile file = read_vector_file(out);
    CHECK(at::equal(file.vectors, expected.vectors));
    REQUIRE(file.row_columns.size() == 3);
    CHECK(row_values<std::string>(file, "ids") ==
          std::vector<std::string>{"1", "2", "3", "4", "5", "6"});
    CHECK(row_values<std::int64_t>(file, "token_counts") == expected.token_counts);
    CHECK(expected.token_counts[4] == 2);  // the empty line: [CLS] [SEP]
  }
  // The folder's own pooling (1_Pooling: cls) is the default, and BERT's pooler is
  // tanh(dense(h[CLS])) of the same hidden states.
  const TokenizedTexts tokens = model.tokenize(kTexts);
  const at::Tensor hidden = model.hidden_states(tokens.ids, tokens.attention_mask);
  const HfEncoderModel full(load_hf_encoder(folder));
  CHECK(at::equal(model.pool(hidden, tokens.attention_mask, TextPooling::modules), hidden.select(1, 0)));
  CHECK(at::allclose(model.pool(hidden, tokens.attention_mask, TextPooling::pooler),
                     at::tanh(hidden.select(1, 0).matmul(full.weights().pooler.t()) + full.weights().pooler_bias), 1e-6,
                     1e-6));
  // --layer 0 is the embeddings' LayerNorm output: a model of no layers gives it.
  CHECK(at::equal(model.hidden_states(tokens.ids, tokens.attention_mask, 0),
                  first_encoder_layers(full, 0).hidden_states_of_ids(tokens.ids, tokens.attention_mask)));
  CHECK(at::equal(model.hidden_states(tokens.ids, tokens.attention_mask, -1),
                  full.hidden_states_of_ids(tokens.ids, tokens.attention_mask)));
}

TEST_CASE("embpriv embed cuts long texts as transformers does and says so; .npy on request", "[apps][embed]") {
  TempDir dir("embpriv_embed_cut_test");
  const std::string folder = make_bert_folder(dir);
  const std::string texts = write_lines(dir, {"the cat sat on the mat and the dog ran far away", "good movie"});
  const std::string out = dir / "cut.h5", npy = dir / "cut.npy";
  const Outcome run = run_binary("-q embed '" + folder + "' -i '" + texts + "' -o '" + out + "' --npy '" + npy +
                                 "' --max-length 5 --pooling mean");
  REQUIRE(run.code == 0);
  CHECK_THAT(run.output, Contains("1 cut to 5 tokens"));
  const VectorFile file = read_vector_file(out);
  CHECK(row_values<std::int64_t>(file, "token_counts") == std::vector<std::int64_t>{5, 4});
  CHECK(row_values<std::int64_t>(file, "truncated") == std::vector<std::int64_t>{1, 0});
  CHECK(at::equal(read_vector_file(npy).vectors, file.vectors));
  // [CLS] the cat sat [SEP]: the text's tokens cut on the right, the special tokens kept.
  const TextModel model(folder);
  CHECK(model.token_ids("the cat sat on the mat", 5) == std::vector<std::int64_t>{2, 5, 7, 9, 3});
  CHECK_THAT(read_file(npy + ".json"), Contains("\"truncated_texts\": 1"));
}

TEST_CASE("embpriv embed on a decoder: stories260K's mean last hidden state, and its logits unchanged", "[apps][embed]") {
  TempDir dir("embpriv_embed_decoder_test");
  const std::string folder = dir / "stories";
  REQUIRE(run_binary("-q convert llama2c-to-hf --model tinyllama/stories260K.bin --tokenizer tinyllama/tok512.bin --out '" +
                     folder + "'")
              .code == 0);
  const std::vector<std::string> lines = {"Once upon a time", "The little dog was happy.", "Lily"};
  const std::string texts = write_lines(dir, lines);
  const Outcome run = run_binary("-q embed '" + folder + "' -i '" + texts + "' -o '" + dir / "d.h5" + "' --batch 2");
  REQUIRE(run.code == 0);
  const TextModel model(folder);
  REQUIRE(model.is_decoder());
  EmbedOptions options;
  options.batch_size = 2;
  CHECK(at::equal(read_vector_file(dir / "d.h5").vectors, model.embed(lines, options).vectors));
  // Right padding leaves a causal model's real tokens as they are: a text alone and in a batch agree.
  const TokenizedTexts batch = model.tokenize(lines);
  const at::Tensor alone = model.hidden_states(at::tensor(model.token_ids(lines[2], 0), at::kLong));
  CHECK(at::allclose(model.hidden_states(batch.ids, batch.attention_mask)[2].narrow(0, 0, alone.size(0)), alone, 1e-5, 1e-5));
  // The logits are the language model's own.
  const at::Tensor ids = at::tensor(model.token_ids(lines[0], 0), at::kLong);
  CHECK(at::equal(model.logits(ids), load_language_model(folder)->forward_ids(ids)));
  check_bad_input("'" + folder + "' -i '" + texts + "' -o '" + dir / "p.h5" + "' --pooling pooler", "pools by mean or max");
  // --compute bfloat16: TextModel::embed's bits in bf16, said in the file.
  REQUIRE(run_binary("-q embed '" + folder + "' -i '" + texts + "' -o '" + dir / "b.h5" + "' --batch 2 --compute bfloat16").code == 0);
  const VectorFile in_bf16 = read_vector_file(dir / "b.h5");
  CHECK(at::equal(in_bf16.vectors, TextModel(folder, c10::kCPU, at::kBFloat16).embed(lines, options).vectors));
  CHECK(!at::equal(in_bf16.vectors, read_vector_file(dir / "d.h5").vectors));
  check_bad_input("'" + folder + "' -i '" + texts + "' -o '" + dir / "h.h5" + "' --compute half",
                  "compute dtype must be float32 or bfloat16, got 'half'");
}

TEST_CASE("embpriv embed refuses bad input by file or key, exit 2, writing nothing", "[apps][embed]") {
  TempDir dir("embpriv_embed_bad_test");
  const std::string folder = make_bert_folder(dir);
  const std::string texts = write_lines(dir, kTexts), out = dir / "out.h5";
  check_bad_input("'" + dir / "nothing" + "' -i '" + texts + "' -o '" + out + "'", "no such model folder");
  check_bad_input("'" + folder + "' -i '" + texts + "' -o '" + out + "' --pooling avg", "pooling must be cls, mean");
  check_bad_input("'" + folder + "' -i '" + texts + "' -o '" + out + "' --layer 7", "layer must be in [-3, 2]");
  check_bad_input("'" + folder + "' -i '" + texts + "' -o '" + out + "' --max-length 65", "max_length must be at most 64");
  check_bad_input("'" + folder + "' -i '" + texts + "' -o '" + out + "' --compute bfloat16", "computes in float32 only");
  check_bad_input("'" + folder + "' -i '" + texts + "' -o '" + dir / "out.npy" + "'", "--out must be an .h5 file");
  write_file(dir / "bad.json", R"([{"text": "good"}, {"txt": "bad"}])");
  check_bad_input("'" + folder + "' -i '" + dir / "bad.json" + "' -o '" + out + "'", "bad.json: entry 1");
  write_file(dir / "utf8.txt", "good\n\xff\xfe\n");
  check_bad_input("'" + folder + "' -i '" + dir / "utf8.txt" + "' -o '" + out + "'", "utf8.txt: text 1");
  CHECK(!std::filesystem::exists(out));
  // The sentences JSON the configs use: ids are the entries' places, labels their classes.
  write_file(dir / "s.json", R"([{"text": "good movie", "class": 1}, {"text": "", "class": null}, {"text": "bad", "class": 0}])");
  REQUIRE(run_binary("-q embed '" + folder + "' -i '" + dir / "s.json" + "' -o '" + out + "'").code == 0);
  const VectorFile file = read_vector_file(out);
  CHECK(row_values<std::string>(file, "ids") == std::vector<std::string>{"0", "2"});
  CHECK(row_values<std::int64_t>(file, "labels") == std::vector<std::int64_t>{1, 0});
  check_bad_input("'" + folder + "' -i '" + dir / "s.json" + "' -o '" + out + "'", "exists; pass --overwrite");
}
