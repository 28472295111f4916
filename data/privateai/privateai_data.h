#pragma once
// The data of one PrivateAI run (issue 7; docs/privateai.md): the distinct labelled units of the
// real SpamAssassin e-mails (data/privateai/private_units.h; a text that recurs, such as a mailing-list
// footer, counts once), the e-mails split four ways so that no e-mail and no text feeds two
// parts (the same names would leak across them):
//   clients (40% of the e-mails): the candidate pool; a run trains on a random half of it
//            (the other half are the non-members of membership inference), split across the
//            K clients by Dirichlet(alpha) on the label;
//   proxy (20%): the server's unlabelled proxy set, answered by the teachers (with proxy_beta,
//            its categories skewed against the clients', data/privateai/proxy_skew.h); or, with
//            proxy_reviews set, units of another domain: review sentences (the UCI sentiment
//            corpus, data/corpora/sentiment_corpus.h), drawn at random whatever their label, labelled
//            by the rules on their text alone (the paper's Table 2: a proxy set from another
//            distribution);
//   public (20%): the labelled public split on which the central stand-in teacher trains;
//   test (20%): where PSR is measured.
// Each part is drawn with a fixed share of private units (the corpus holds 4.7%). Units are token
// ids (data/tokenizers/word_tokenizer.h) into the run's own table, truncated to max_tokens: row 0 is
// padding, row 1 "no token", then each token of the selected units: its GloVe vector, or, for a
// token GloVe lacks ("@", ".", digits, most user and host names), a fixed random vector of its
// own; with token_shapes, a token's case pattern is added to its row and digits read as 0
// (privateai_data.cpp).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace embpriv {

struct PrivateAiDataSettings {
  std::string glove, corpus;  // files (data/tables/data_paths.h resolves them)
  std::vector<std::string> proxy_reviews;  // non-empty: the proxy units come from these files
  // embpriv's default PrivateAI setting (docs/privateai.md), which the federated experiment's
  // keys take as their defaults: |S| = 400 members of 800 candidate units.
  std::int64_t candidate_units = 800, proxy_units = 600, public_units = 600, test_units = 600;
  double private_share = 0.5;
  std::int64_t max_tokens = 32;
  bool token_shapes = true;
  double proxy_beta = 0;  // > 0: the proxy units' categories skewed by Dirichlet(beta p) (data/privateai/proxy_skew.h)  // a token's row adds its case pattern; digits read as 0 (privateai_data.cpp)
};

struct EncodedUnits {
  at::Tensor ids;     // [N, L] int64
  at::Tensor labels;  // [N] double 0/1
  std::vector<std::string> texts;
};

struct PrivateAiData {
  at::Tensor embeddings;  // [V, d] float
  EncodedUnits candidates, proxy, public_split, test;
  // Total variation between the proxy units' categories and the clients' (data/privateai/proxy_skew.h).
  double proxy_distance = std::numeric_limits<double>::quiet_NaN();
};

// Loads and encodes (each call: a caller that needs the data for many points keeps it, as type
// `federated` does in its run cache); the selection is fixed (seed 0): every point of a sweep
// sees the same units, only training and noise follow the point's seed.
PrivateAiData load_privateai_data(const PrivateAiDataSettings& settings);

// Rows of `units` picked by index.
EncodedUnits select_units(const EncodedUnits& units, const at::Tensor& rows);

}  // namespace embpriv
