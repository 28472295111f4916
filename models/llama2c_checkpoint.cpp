#include "models/llama2c_checkpoint.h"

#include <ATen/ATen.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"

namespace embpriv {
namespace {

// The index [i, j, ...] of the element at position `flat` of a contiguous tensor, as text.
std::string index_of_element(const at::Tensor& t, std::int64_t flat) {
  std::vector<std::int64_t> index(static_cast<std::size_t>(t.dim()));
  for (std::int64_t axis = t.dim() - 1; axis >= 0; --axis) {
    index[static_cast<std::size_t>(axis)] = flat % t.size(axis);
    flat /= t.size(axis);
  }
  std::string text = "[";
  for (std::size_t i = 0; i < index.size(); ++i) text += (i ? ", " : "") + std::to_string(index[i]);
  return text + "]";
}

class WeightReader {
 public:
  WeightReader(std::vector<float> data, std::string path) : data_(std::move(data)), path_(std::move(path)) {}
  // The next `shape` floats as a tensor (copied: the reader's buffer goes away).
  at::Tensor take(at::IntArrayRef shape, const char* name) {
    std::int64_t count = 1;
    for (auto s : shape) count *= s;
    EMBPRIV_CHECK(offset_ + count <= static_cast<std::int64_t>(data_.size()),
                  path_ << " is truncated: it ends inside " << name << " (needs "
                        << (offset_ + count) * 4 + 28 << " bytes, has " << data_.size() * 4 + 28 << ")");
    at::Tensor t = at::from_blob(data_.data() + offset_, shape, at::kFloat).clone();
    offset_ += count;
    check_finite(t, name);
    return t;
  }
  void skip(std::int64_t count, const char* name) {
    EMBPRIV_CHECK(offset_ + count <= static_cast<std::int64_t>(data_.size()),
                  path_ << " is truncated: it ends inside " << name);
    offset_ += count;
  }
  std::int64_t left() const { return static_cast<std::int64_t>(data_.size()) - offset_; }

 private:
  // A NaN or Inf weight makes every logit it touches NaN, and NaN argmaxes then agree with each
  // other: refuse it here, naming the tensor and the index of its first non-finite value.
  void check_finite(const at::Tensor& weights, const char* name) const {
    const at::Tensor bad = at::isfinite(weights).logical_not().flatten().nonzero();
    EMBPRIV_CHECK(bad.numel() == 0, path_ << ": " << name << " holds a non-finite weight (NaN or Inf) at "
                                          << index_of_element(weights, bad[0][0].item<std::int64_t>())
                                          << " (" << bad.size(0) << " in all)");
  }

  std::vector<float> data_;
  std::string path_;
  std::int64_t offset_ = 0;
};

}  // namespace

Llama2cWeights load_llama2c_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  EMBPRIV_CHECK(in, "cannot read llama2.c checkpoint '" << path << "'");
  const std::int64_t bytes = in.tellg();
  EMBPRIV_CHECK(bytes >= 28, path << " is too short for a llama2.c header (" << bytes << " bytes, needs 28)");
  in.seekg(0);
  std::int32_t header[7];
  in.read(reinterpret_cast<char*>(header), sizeof header);
  Llama2cConfig c;
  c.dim = header[0];
  c.hidden_dim = header[1];
  c.n_layers = header[2];
  c.n_heads = header[3];
  c.n_kv_heads = header[4];
  c.shared_classifier = header[5] > 0;
  c.vocab_size = header[5] > 0 ? header[5] : -static_cast<std::int64_t>(header[5]);
  c.seq_len = header[6];
  EMBPRIV_CHECK(c.dim > 0 && c.hidden_dim > 0 && c.n_layers > 0 && c.n_heads > 0 &&
                    c.n_kv_heads > 0 && c.vocab_size > 0 && c.seq_len > 0 &&
                    c.dim % c.n_heads == 0 && c.n_heads % c.n_kv_heads == 0 &&
                    c.head_size() % 2 == 0,
                path << ": not a llama2.c checkpoint (header dim=" << header[0] << " hidden="
                     << header[1] << " layers=" << header[2] << " heads=" << header[3] << " kv_heads="
                     << header[4] << " vocab=" << header[5] << " seq_len=" << header[6] << ")");
  EMBPRIV_CHECK((bytes - 28) % 4 == 0, path << ": the weights are not whole float32 values");
  std::vector<float> data(static_cast<std::size_t>((bytes - 28) / 4));
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size() * 4));
  EMBPRIV_CHECK(in, "cannot read the weights of " << path);

  WeightReader r(std::move(data), path);
  Llama2cWeights w;
  w.config = c;
  const std::int64_t L = c.n_layers, d = c.dim, h = c.hidden_dim, kv = c.kv_dim();
  w.token_embedding = r.take({c.vocab_size, d}, "the token embedding");
  w.rms_attention = r.take({L, d}, "rms_att_weight");
  w.wq = r.take({L, d, d}, "wq");
  w.wk = r.take({L, kv, d}, "wk");
  w.wv = r.take({L, kv, d}, "wv");
  w.wo = r.take({L, d, d}, "wo");
  w.rms_ffn = r.take({L, d}, "rms_ffn_weight");
  w.w1 = r.take({L, h, d}, "w1");
  w.w2 = r.take({L, d, h}, "w2");
  w.w3 = r.take({L, h, d}, "w3");
  w.rms_final = r.take({d}, "rms_final_weight");
  r.skip(c.seq_len * c.head_size(), "freq_cis (unused: RoPE is computed)");
  w.classifier = c.shared_classifier ? w.token_embedding : r.take({c.vocab_size, d}, "wcls");
  EMBPRIV_CHECK(r.left() == 0, path << " has " << r.left() * 4 << " bytes after the last weight: "
                                    << "not a llama2.c checkpoint of this header");
  return w;
}

}  // namespace embpriv
