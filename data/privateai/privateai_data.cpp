#include "data/privateai/privateai_data.h"

#include <ATen/ATen.h>

#include <cmath>
#include <numeric>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/log.h"
#include "core/rng.h"
#include "data/tables/data_paths.h"
#include "data/tables/embedding_formats.h"
#include "data/privateai/private_units.h"
#include "data/privateai/proxy_skew.h"
#include "data/corpora/sentiment_corpus.h"
#include "data/tokenizers/token_shape.h"
#include "data/tokenizers/word_tokenizer.h"

namespace embpriv {
namespace {

struct Part {
  const char* name;
  double share;  // of the e-mails
};
constexpr Part kParts[] = {{"clients", 0.4}, {"proxy", 0.2}, {"public", 0.2}, {"test", 0.2}};

// The units of each part: n of them, a share `private_share` private, in a random order.
std::vector<const TextUnit*> draw_part(const std::vector<const TextUnit*>& units, std::int64_t n, double private_share,
                                       const char* part, const char* key, std::uint64_t seed) {
  std::vector<const TextUnit*> by_label[2];
  for (const TextUnit* u : units) by_label[u->label()].push_back(u);
  Rng rng(seed, 0);
  for (auto& list : by_label) shuffle(list, rng);
  const auto want_private = static_cast<std::int64_t>(std::llround(private_share * static_cast<double>(n)));
  const std::int64_t want[2] = {n - want_private, want_private};
  std::vector<const TextUnit*> out;
  for (int label = 0; label < 2; ++label) {
    EMBPRIV_CHECK(want[label] <= static_cast<std::int64_t>(by_label[label].size()),
                  "privateai: " << key << " = " << n << " needs " << want[label] << (label ? " private" : " non-private")
                                << " units, the " << part << " e-mails hold " << by_label[label].size()
                                << " (lower it or data.private_share)");
    out.insert(out.end(), by_label[label].begin(), by_label[label].begin() + want[label]);
  }
  shuffle(out, rng);
  return out;
}

// The run's embedding table: row 0 padding, row 1 "no word", then every token of the selected
// units in order of first use. A GloVe word gets its GloVe vector. A token GloVe lacks (the npm
// table has no one-character tokens: "@", ".", ":", digits; nor most user and host names) gets
// its own fixed random vector, N(0, s^2) per coordinate with s the GloVe table's coordinate
// spread, drawn from a seed of the token's text: "@" is the same feature in every unit, which a
// single shared unknown row would hide. With token shapes (data.token_shapes), a token is its
// normalised form (lower case, digits as 0: data/tokenizers/token_shape.h) and its case pattern, and its
// row is the normalised form's vector plus a fixed random vector of the case pattern, of the
// same spread (Collobert et al. 2011, sec. 3.5, add a capitalisation feature to the word's).
class RunVocabulary {
 public:
  RunVocabulary(const EmbeddingTable& glove, bool shapes) : glove_(glove), shapes_(shapes) {}

  // The row of a token as the word tokenizer cut it (cased when shapes are on).
  std::int64_t row_of(const std::string& token) {
    const RunToken t = shapes_ ? RunToken{normalized_token(token), token_case(token)} : RunToken{token, TokenCase::none};
    const std::string key = t.word + '\x1f' + to_string(t.shape);
    auto [it, fresh] = rows_.try_emplace(key, static_cast<std::int64_t>(tokens_.size()) + 2);
    if (fresh) tokens_.push_back(t);
    return it->second;
  }

  std::int64_t known_words() const {
    std::int64_t n = 0;
    for (const RunToken& t : tokens_) n += glove_.index_of(t.word) >= 0;
    return n;
  }
  std::int64_t size() const { return static_cast<std::int64_t>(tokens_.size()); }

  at::Tensor embeddings() const {
    const double spread = glove_.vectors().to(at::kDouble).std().item<double>();
    at::Tensor table = at::zeros({size() + 2, glove_.dim()}, at::kFloat);
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      const RunToken& t = tokens_[i];
      at::Tensor row = table[static_cast<std::int64_t>(i) + 2];
      const std::int64_t glove_row = glove_.index_of(t.word);
      row.copy_(glove_row >= 0 ? glove_.vectors()[glove_row] : random_vector("privateai.token." + t.word, spread));
      if (shapes_) row.add_(random_vector(std::string("privateai.case.") + to_string(t.shape), spread));
    }
    return table;
  }

 private:
  struct RunToken {
    std::string word;  // looked up in GloVe
    TokenCase shape;   // TokenCase::none when shapes are off
  };

  at::Tensor random_vector(const std::string& purpose, double spread) const {
    std::vector<float> v(static_cast<std::size_t>(glove_.dim()));
    Rng rng(derive_seed(0, 0, purpose), 0);
    for (float& x : v) x = static_cast<float>(spread * rng.normal());
    return at::tensor(v, at::kFloat);
  }

  const EmbeddingTable& glove_;
  const bool shapes_;
  std::unordered_map<std::string, std::int64_t> rows_;
  std::vector<RunToken> tokens_;
};

EncodedUnits encode(const std::vector<const TextUnit*>& units, RunVocabulary& vocabulary, std::int64_t max_tokens,
                    bool shapes) {
  EncodedUnits e;
  const auto N = static_cast<std::int64_t>(units.size());
  e.ids = at::zeros({N, max_tokens}, at::kLong);
  e.labels = at::empty({N}, at::kDouble);
  auto* ids = e.ids.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < N; ++i) {
    const TextUnit& u = *units[static_cast<std::size_t>(i)];
    std::int64_t t = 0;
    for (const std::string& token : shapes ? cased_word_tokens(u.text) : word_tokens(u.text)) {
      if (t == max_tokens) break;
      ids[i * max_tokens + t++] = vocabulary.row_of(token);
    }
    if (t == 0) ids[i * max_tokens] = 1;  // a unit of no token at all
    e.labels[i] = static_cast<double>(u.label());
    e.texts.push_back(u.text);
  }
  return e;
}

// Review sentences as units of another domain: labelled by the rules on the text alone (no
// headers), n of them drawn at random whatever the label.
std::vector<TextUnit> review_units(const std::vector<std::string>& files) {
  std::vector<TextUnit> units;
  std::unordered_set<std::string> seen;  // each distinct sentence once
  for (const std::string& file : files) {
    for (const LabelledSentence& sentence : load_sentiment_sentences(resolve_data_path(file))) {
      if (!seen.insert(sentence.text).second) continue;
      TextUnit u;
      u.text = sentence.text;
      u.kinds = label_unit(sentence.text, {});
      units.push_back(std::move(u));
    }
  }
  return units;
}

std::vector<const TextUnit*> draw_any(const std::vector<TextUnit>& units, std::int64_t n, std::uint64_t seed) {
  EMBPRIV_CHECK(n <= static_cast<std::int64_t>(units.size()),
                "privateai: data.proxy_units = " << n << " but data.proxy_reviews hold " << units.size() << " sentences");
  std::vector<const TextUnit*> out;
  for (const TextUnit& u : units) out.push_back(&u);
  Rng rng(seed, 0);
  shuffle(out, rng);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace

PrivateAiData load_privateai_data(const PrivateAiDataSettings& s) {
  const std::vector<Email> emails = load_spam_assassin(resolve_data_path(s.corpus));
  const std::vector<TextUnit> units = labelled_units(emails);
  const EmbeddingTable glove = load_cached_glove(resolve_data_path(s.glove));
  // The e-mails in a fixed random order, cut into the four parts.
  std::vector<std::int64_t> order(emails.size());
  std::iota(order.begin(), order.end(), 0);
  Rng rng(derive_seed(0, 0, "privateai.emails"), 0);
  shuffle(order, rng);
  std::vector<int> part_of(emails.size());
  double cumulative = 0;
  std::size_t next = 0;
  for (int p = 0; p < 4; ++p) {
    cumulative += kParts[p].share;
    const auto end = p == 3 ? order.size() : static_cast<std::size_t>(cumulative * static_cast<double>(order.size()));
    for (; next < end; ++next) part_of[static_cast<std::size_t>(order[next])] = p;
  }
  // Each distinct text once: mailing-list footers and signatures recur in hundreds of e-mails,
  // and a copy on each side of a split would be a member and a non-member at once. A text goes
  // to the part of the first e-mail (in the shuffled order) that holds it.
  std::vector<std::vector<const TextUnit*>> units_of(emails.size());
  for (const TextUnit& u : units) units_of[static_cast<std::size_t>(u.email)].push_back(&u);
  std::unordered_set<std::string_view> seen;
  std::vector<const TextUnit*> by_part[4];
  for (const std::int64_t e : order) {
    for (const TextUnit* u : units_of[static_cast<std::size_t>(e)]) {
      if (seen.insert(u->text).second) by_part[part_of[static_cast<std::size_t>(e)]].push_back(u);
    }
  }
  const std::int64_t sizes[4] = {s.candidate_units, s.proxy_units, s.public_units, s.test_units};
  const char* keys[4] = {"data.candidate_units", "data.proxy_units", "data.public_units", "data.test_units"};
  PrivateAiData data;
  RunVocabulary vocabulary(glove, s.token_shapes);
  EncodedUnits* parts[4] = {&data.candidates, &data.proxy, &data.public_split, &data.test};
  const std::vector<TextUnit> reviews = review_units(s.proxy_reviews);
  std::vector<double> client_shares;
  for (int p = 0; p < 4; ++p) {
    const std::uint64_t seed = derive_seed(0, static_cast<std::uint64_t>(p), "privateai.units");
    std::vector<const TextUnit*> drawn;
    if (parts[p] == &data.proxy && !reviews.empty()) {
      drawn = draw_any(reviews, sizes[p], seed);
    } else if (parts[p] == &data.proxy && s.proxy_beta > 0) {  // transfer heterogeneity (data/privateai/proxy_skew.h)
      SkewedDraw skewed = draw_skewed(by_part[p], client_shares, sizes[p], s.proxy_beta, seed);
      data.proxy_distance = skewed.distance;
      drawn = std::move(skewed.units);
    } else {
      drawn = draw_part(by_part[p], sizes[p], s.private_share, kParts[p].name, keys[p], seed);
    }
    if (parts[p] == &data.candidates) client_shares = category_shares(drawn);
    if (parts[p] == &data.proxy && std::isnan(data.proxy_distance)) {
      data.proxy_distance = total_variation(category_shares(drawn), client_shares);
    }
    *parts[p] = encode(drawn, vocabulary, s.max_tokens, s.token_shapes);
  }
  data.embeddings = vocabulary.embeddings();
  info("privateai data: " + std::to_string(units.size()) + " units (" + std::to_string(seen.size()) +
       " distinct) of " + std::to_string(emails.size()) + " e-mails; " + std::to_string(vocabulary.size()) +
       " tokens in the selected units (" + std::to_string(vocabulary.known_words()) + " GloVe words)");
  return data;
}

EncodedUnits select_units(const EncodedUnits& units, const at::Tensor& rows) {
  EncodedUnits out{units.ids.index_select(0, rows), units.labels.index_select(0, rows), {}};
  const auto* r = rows.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < rows.numel(); ++i) out.texts.push_back(units.texts[static_cast<std::size_t>(r[i])]);
  return out;
}

}  // namespace embpriv
