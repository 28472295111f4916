#pragma once
// The UCI "Sentiment Labelled Sentences" (Kotzias et al., KDD 2015) as shipped in
// ../shared/data/sentiment/{amazon,imdb,yelp}.json: a JSON array of {"text", "class"}; rows
// whose class is null are skipped.
#include <cstdint>
#include <string>
#include <vector>

namespace embpriv {

struct LabelledSentence {
  std::string text;
  int label = 0;  // 1 positive, 0 negative
};

// Throws embpriv::Error on a missing or malformed file, naming the entry.
std::vector<LabelledSentence> load_sentiment_sentences(const std::string& path);

}  // namespace embpriv
