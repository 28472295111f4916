#pragma once
// ObfusLM's server side of the classification task (obfuslm_classification.h): the model the
// server runs and the ids it receives. The paper's flow (002_682d5e0a681f5329.txt, "部署混淆模型";
// GUIDE.md, sec. 5): the client sends its word-embedding rows obfuscated and in shuffled order
// (row pi[t] is token t's) and its texts as shuffled ids pi[t]; everything else of the model is
// the clean one.
//
// Only the TOKENS are shuffled. The padding token's id moves with them (padded batches hold
// pi[pad], the attention mask and RoBERTa's position ids leave pi[pad] out), but the position
// table is not indexed by token: RoBERTa and XLM-R count positions from the ORIGINAL padding
// index + 1 (RobertaEmbeddings' padding_idx), which the server model keeps
// (HfEncoderConfig::position_padding_override). So with rows that are the clean ones (k = 1,
// where WeightSynth returns each row itself) the server's logits on shuffled ids are the clean
// model's on clean ids, for BERT, RoBERTa and XLM-R alike.
#include <cstdint>
#include <vector>

#include "mechanisms/obfuslm/vocabulary_obfuscator.h"
#include "models/hf_encoder_model.h"

namespace embpriv {

// The server's classifier: `clean` with v's obfuscated rows in shuffled order as its word
// embeddings, its padding token pi[pad_token_id], its position padding index the clean one.
HfEncoderWeights server_weights(const HfEncoderWeights& clean, const ObfuscatedVocabulary& v);

// The client's texts as the server receives them: every id through the secret permutation.
std::vector<std::vector<std::int64_t>> shuffled_texts(const ObfuscatedVocabulary& v,
                                                     const std::vector<std::vector<std::int64_t>>& texts);

}  // namespace embpriv
