#include "data/tokenizers/llama2c_tokenizer.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <queue>
#include <sstream>

#include "core/error.h"

namespace embpriv {
namespace {

// run.c's byte fallback spells a byte b as token b + 3: ids 3..258 hold <0x00>..<0xFF>.
constexpr std::int64_t kFirstByteToken = 3;
constexpr std::int64_t kByteTokens = 256;
// run.c's encode() only merges a pair whose score beats this.
constexpr float kNoMergeScore = -1e10f;

std::string byte_piece(int byte) {
  char piece[7];
  std::snprintf(piece, sizeof piece, "<0x%02X>", byte);
  return piece;
}

// Refuses a tokenizer whose ids 3..258 are not the byte pieces <0x00>..<0xFF>: its byte fallback
// would read past the vocabulary or emit tokens that do not spell the bytes.
void check_byte_fallback(const std::vector<std::string>& pieces, const std::string& path) {
  const auto size = static_cast<std::int64_t>(pieces.size());
  EMBPRIV_CHECK(size >= kFirstByteToken + kByteTokens,
                path << ": a llama2.c tokenizer needs at least " << kFirstByteToken + kByteTokens
                     << " tokens (<unk>, <s>, </s> and the 256 byte tokens <0x00>..<0xFF>), got " << size);
  for (int byte = 0; byte < kByteTokens; ++byte) {
    const std::string& piece = pieces[static_cast<std::size_t>(kFirstByteToken + byte)];
    EMBPRIV_CHECK(piece == byte_piece(byte), path << ": token " << kFirstByteToken + byte << " must be the byte token "
                                                  << byte_piece(byte) << " (run.c's byte fallback), got '"
                                                  << piece << "'");
  }
}

// Merges `body` in place with the vocabulary of a tokenizer (its pieces, scores and the id of
// each piece).
void merge_pairs(std::vector<std::int64_t>& body, const std::vector<std::string>& pieces,
                 const std::vector<float>& scores, const std::unordered_map<std::string, std::int64_t>& ids) {
  // run.c merges, again and again, the adjacent pair whose concatenation is the piece of
  // highest score (the leftmost on a tie; a score must beat -1e10), until no pair is a piece.
  // That is a rescan of the whole text per merge (quadratic); here the same merges come in the
  // same order from a heap of the candidate pairs over a linked list of tokens, O(n log n).
  struct Node {
    std::int64_t id;
    std::ptrdiff_t prev, next;  // -1 at the ends
    std::uint64_t version = 0;  // bumped when the node changes or is merged away
    bool alive = true;
  };
  struct Candidate {
    float score;
    std::ptrdiff_t left, right;  // node indices; left < right, so a smaller left is further left
    std::uint64_t left_version, right_version;
    std::int64_t merged;
    // The heap's top: the highest score, then the leftmost pair.
    bool operator<(const Candidate& other) const {
      if (score != other.score) return score < other.score;
      return left > other.left;
    }
  };
  const auto n = static_cast<std::ptrdiff_t>(body.size());
  std::vector<Node> nodes;
  nodes.reserve(body.size());
  for (std::ptrdiff_t i = 0; i < n; ++i) nodes.push_back({body[static_cast<std::size_t>(i)], i - 1, i + 1 < n ? i + 1 : -1});
  std::priority_queue<Candidate> heap;
  const auto offer = [&](std::ptrdiff_t left) {
    if (left < 0 || nodes[left].next < 0) return;
    const std::ptrdiff_t right = nodes[left].next;
    const auto found = ids.find(pieces[nodes[left].id] + pieces[nodes[right].id]);
    if (found == ids.end()) return;
    const float score = scores[static_cast<std::size_t>(found->second)];
    if (!(score > kNoMergeScore)) return;  // run.c's best_score starts at -1e10 (and NaN never wins)
    heap.push({score, left, right, nodes[left].version, nodes[right].version, found->second});
  };
  for (std::ptrdiff_t i = 0; i + 1 < n; ++i) offer(i);
  while (!heap.empty()) {
    const Candidate best = heap.top();
    heap.pop();
    Node& left = nodes[best.left];
    Node& right = nodes[best.right];
    if (!left.alive || !right.alive || left.version != best.left_version || right.version != best.right_version) {
      continue;  // a pair that an earlier merge changed
    }
    left.id = best.merged;
    ++left.version;
    right.alive = false;
    ++right.version;
    left.next = right.next;
    if (right.next >= 0) nodes[right.next].prev = best.left;
    offer(left.prev);
    offer(best.left);
  }
  body.clear();
  for (std::ptrdiff_t i = n > 0 ? 0 : -1; i >= 0; i = nodes[i].next) body.push_back(nodes[i].id);
}

// The whole file, read once (a folder is refused by name: its read would throw an underflow error).
std::string tokenizer_bytes(const std::string& path) {
  std::error_code error;
  EMBPRIV_CHECK(!std::filesystem::is_directory(path, error), "llama2.c tokenizer '" << path << "' is a folder");
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read llama2.c tokenizer '" << path << "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  EMBPRIV_CHECK(!in.bad(), "cannot read llama2.c tokenizer '" << path << "'");
  return bytes.str();
}

// The number of tokens the bytes of a tokenizer file hold (the last one whole).
std::int64_t token_count(const std::string& bytes, const std::string& path) {
  std::istringstream in(bytes);
  std::int32_t max_length = 0;
  in.read(reinterpret_cast<char*>(&max_length), 4);
  EMBPRIV_CHECK(in && max_length > 0 && max_length < (1 << 16),
                path << ": not a llama2.c tokenizer (max_token_length " << max_length << ")");
  std::int64_t count = 0;
  while (in.peek() != std::char_traits<char>::eof()) {
    float score = 0;
    std::int32_t length = 0;
    in.read(reinterpret_cast<char*>(&score), 4);
    in.read(reinterpret_cast<char*>(&length), 4);
    EMBPRIV_CHECK(in && length >= 0 && length <= max_length, path << " is truncated or malformed at token " << count);
    in.seekg(length, std::ios::cur);
    EMBPRIV_CHECK(in && static_cast<std::int64_t>(in.tellg()) <= static_cast<std::int64_t>(bytes.size()),
                  path << " is truncated: it ends inside token " << count);
    ++count;
  }
  return count;
}

}  // namespace

Llama2cTokenizer Llama2cTokenizer::load(const std::string& path, std::int64_t vocab_size) {
  return parse(tokenizer_bytes(path), path, vocab_size);
}

Llama2cTokenizer Llama2cTokenizer::load_all(const std::string& path) {
  const std::string bytes = tokenizer_bytes(path);
  return parse(bytes, path, token_count(bytes, path));
}

Llama2cTokenizer Llama2cTokenizer::parse(const std::string& bytes, const std::string& path, std::int64_t vocab_size) {
  std::istringstream in(bytes);
  EMBPRIV_CHECK(vocab_size > 3, "tokenizer vocab_size must be > 3, got " << vocab_size);
  std::int32_t max_length = 0;
  in.read(reinterpret_cast<char*>(&max_length), 4);
  EMBPRIV_CHECK(in && max_length > 0 && max_length < (1 << 16),
                path << ": not a llama2.c tokenizer (max_token_length " << max_length << ")");
  Llama2cTokenizer t;
  for (std::int64_t id = 0; id < vocab_size; ++id) {
    float score = 0;
    std::int32_t length = 0;
    in.read(reinterpret_cast<char*>(&score), 4);
    in.read(reinterpret_cast<char*>(&length), 4);
    EMBPRIV_CHECK(in, path << " is truncated: it ends at token " << id << " of " << vocab_size);
    EMBPRIV_CHECK(length >= 0 && length <= max_length,
                  path << ": token " << id << " has length " << length << " (max " << max_length << ")");
    std::string piece(static_cast<std::size_t>(length), '\0');
    in.read(piece.data(), length);
    EMBPRIV_CHECK(in, path << " is truncated: it ends inside token " << id);
    t.ids_.emplace(piece, id);  // the first id of a piece wins, as run.c's sorted lookup
    t.pieces_.push_back(std::move(piece));
    t.scores_.push_back(score);
  }
  check_byte_fallback(t.pieces_, path);
  return t;
}

const std::string& Llama2cTokenizer::piece(std::int64_t id) const {
  EMBPRIV_CHECK(id >= 0 && id < size(), "token id " << id << " is outside [0, " << size() << ")");
  return pieces_[static_cast<std::size_t>(id)];
}

std::vector<std::int64_t> Llama2cTokenizer::encode(const std::string& text, bool bos, bool eos) const {
  std::vector<std::int64_t> tokens;
  if (bos) tokens.push_back(kBos);
  auto lookup = [&](const std::string& s) {
    const auto found = ids_.find(s);
    return found == ids_.end() ? std::int64_t{-1} : found->second;
  };
  std::vector<std::int64_t> body;
  if (!text.empty()) {
    const std::int64_t space = lookup(" ");
    EMBPRIV_CHECK(space >= 0, "the tokenizer has no ' ' piece for the dummy prefix");
    body.push_back(space);
  }
  // UTF-8 characters: a lead byte and its continuation bytes (10xxxxxx), at most 4 bytes.
  for (std::size_t i = 0; i < text.size();) {
    std::size_t length = 1;
    while (i + length < text.size() && length < 4 &&
           (static_cast<unsigned char>(text[i + length]) & 0xC0) == 0x80) {
      ++length;
    }
    const std::string character = text.substr(i, length);
    const std::int64_t id = lookup(character);
    if (id >= 0) {
      body.push_back(id);
    } else {  // byte fallback: <0x00>..<0xFF> are ids 3..258 (checked by load)
      for (unsigned char byte : character) body.push_back(kFirstByteToken + byte);
    }
    i += length;
  }
  merge_pairs(body, pieces_, scores_, ids_);
  tokens.insert(tokens.end(), body.begin(), body.end());
  if (eos) tokens.push_back(kEos);
  return tokens;
}

bool Llama2cTokenizer::is_byte(std::int64_t id) const {
  const std::string& p = piece(id);
  return p.size() == 6 && p.compare(0, 3, "<0x") == 0 && p[5] == '>';
}

std::string Llama2cTokenizer::piece_text(std::int64_t id) const {
  const std::string& p = piece(id);
  unsigned int byte = 0;
  if (p.size() == 6 && std::sscanf(p.c_str(), "<0x%02X>", &byte) == 1) {
    return std::string(1, static_cast<char>(byte));
  }
  return p;
}

std::string Llama2cTokenizer::decode_pieces(const std::vector<std::int64_t>& ids) const {
  std::string text;
  for (std::int64_t id : ids) {
    if (!is_special(id)) text += piece_text(id);
  }
  return text;
}

std::string Llama2cTokenizer::decode(const std::vector<std::int64_t>& ids) const {
  std::string text;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (is_special(ids[i])) continue;
    std::string p = piece_text(ids[i]);
    if (i > 0 && ids[i - 1] == kBos && !p.empty() && p[0] == ' ') p.erase(0, 1);
    text += p;
  }
  return text;
}

}  // namespace embpriv
