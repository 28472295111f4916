// ObfusLM's client/server flow on the real stories260K model (mechanisms/obfuslm/
// vocabulary_obfuscator.h): the client shuffles and obfuscates the vocabulary, the server runs
// the model on shuffled ids only, the client decodes. With k = 1 (no noise is possible) the
// flow reproduces the clean model exactly; with k > 1 it still generates through the flow.
#include <ATen/ATen.h>

#include "data/tokenizers/llama2c_tokenizer.h"
#include "attacks/obfuslm_measures.h"
#include "mechanisms/obfuslm/vocabulary_obfuscator.h"
#include "models/llama2c_checkpoint.h"
#include "models/llama2c_model.h"
#include "tests/catch.h"
#include "tests/test_data.h"

namespace {

using namespace embpriv;

struct Flow {
  ObfuscatedVocabulary vocabulary;
  Llama2cModel server;
};

Flow obfuscated_flow(const Llama2cModel& clean, const ObfuscationOptions& options, std::uint64_t seed) {
  // stories260K shares its head with the embedding matrix: one obfuscated matrix serves both.
  ObfuscatedVocabulary v = obfuscate_vocabulary(clean.embedding_table(), at::Tensor(), options, seed);
  Llama2cModel server = clean.with_vocabulary(v.server_embedding, v.server_embedding);
  return {std::move(v), std::move(server)};
}

}  // namespace

TEST_CASE("ObfusLM flow with k = 1 reproduces the clean stories260K exactly", "[obfuslm][models]") {
  const Llama2cModel clean(load_llama2c_checkpoint(stories260k_checkpoint()));
  const Llama2cTokenizer tokenizer = Llama2cTokenizer::load(stories260k_tokenizer(), 512);
  ObfuscationOptions options;
  options.k = 1;
  options.epsilon = 0.5;
  const Flow flow = obfuscated_flow(clean, options, 2026);
  const ObfuscatedVocabulary& v = flow.vocabulary;
  // A real shuffle: most ids move; it is a permutation; decode inverts encode.
  CHECK(std::get<0>(at::sort(v.permutation)).equal(at::arange(512, at::kLong)));
  CHECK((v.permutation != at::arange(512, at::kLong)).sum().item<std::int64_t>() > 500);
  const at::Tensor ids = at::tensor(tokenizer.encode("Tim and his dog ran to the big park."), at::kLong);
  CHECK(v.decode(v.encode(ids)).equal(ids));
  CHECK_FALSE(v.encode(ids).equal(ids));
  // The server sees obfuscated rows in shuffled order; with k = 1 they are the clean rows.
  CHECK(v.obfuscated_embedding.equal(clean.embedding_table()));
  CHECK(v.server_embedding.index_select(0, v.permutation).equal(clean.embedding_table()));

  // Generation through the flow: client encodes, server generates shuffled ids, client decodes.
  const std::vector<std::int64_t> prompt = tokenizer.encode("Once upon a time");
  const std::vector<std::int64_t> decoded = generate_through_flow(flow.server, v, prompt, 30);
  CHECK(decoded == clean.generate_greedy(prompt, 30));
  // Scores: the server's logits over shuffled ids, unshuffled, are the clean logits.
  const at::Tensor clean_logits = clean.forward_ids(ids);
  const at::Tensor served_logits = v.unshuffle_scores(flow.server.forward_ids(v.encode(ids)));
  CHECK(at::allclose(served_logits, clean_logits, 0, 1e-5));
  CHECK(served_logits.argmax(-1).equal(clean_logits.argmax(-1)));
}

TEST_CASE("ObfusLM flow with k = 10 generates text the client can read", "[obfuslm][models]") {
  const Llama2cModel clean(load_llama2c_checkpoint(stories260k_checkpoint()));
  const Llama2cTokenizer tokenizer = Llama2cTokenizer::load(stories260k_tokenizer(), 512);
  ObfuscationOptions options;
  options.k = 10;
  options.epsilon = 50;
  const Flow flow = obfuscated_flow(clean, options, 7);
  const ObfuscatedVocabulary& v = flow.vocabulary;
  CHECK(v.clusters.count() < 512);
  CHECK_FALSE(v.obfuscated_embedding.equal(clean.embedding_table()));
  const std::vector<std::int64_t> prompt = tokenizer.encode("Once upon a time");
  const std::vector<std::int64_t> decoded = generate_through_flow(flow.server, v, prompt, 20);
  const std::string text = tokenizer.decode(decoded);
  INFO(text);
  CHECK(text.rfind("Once upon a time", 0) == 0);  // the prompt survives the round trip
  CHECK(text.size() > std::string("Once upon a time").size() + 20);
  // Decoding with the wrong secret gives other tokens: the ids alone do not carry the text.
  const ObfuscatedVocabulary other = obfuscate_vocabulary(clean.embedding_table(), at::Tensor(), options, 8);
  const at::Tensor served = v.encode(at::tensor(decoded, at::kLong));  // the ids the server returned
  CHECK_FALSE(other.decode(served).equal(at::tensor(decoded, at::kLong)));
}
