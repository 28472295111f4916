#pragma once
// A small PrivateAI data set for the tests: the real e-mails and GloVe, few units.
#include "data/tables/embedding_formats.h"
#include "data/corpora/spam_assassin.h"
#include "data/privateai/privateai_data.h"

namespace embpriv {

inline PrivateAiDataSettings small_privateai_settings() {
  PrivateAiDataSettings s;
  s.glove = kGloveJson;
  s.corpus = kSpamAssassinPackage;
  s.candidate_units = 400;
  s.proxy_units = 300;
  s.public_units = 400;
  s.test_units = 400;
  return s;
}

// Loaded once for the whole test binary (the tests only read it).
inline const PrivateAiData& small_privateai_data() {
  static const PrivateAiData data = load_privateai_data(small_privateai_settings());
  return data;
}

}  // namespace embpriv
