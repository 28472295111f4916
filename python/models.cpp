// embpriv.load_model(folder, device=...) and embpriv.tokenizer(folder): a Hugging Face encoder or
// decoder folder and its tokenizer from Python (models/text_model.h), torch tensors in and out on
// the model's device. encode() is TextModel::embed, the function `embpriv embed` runs, so both
// give the same bits for the same texts, batch size and device.
#include <torch/csrc/utils/pybind.h>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>  // at::NoGradGuard: LibTorch 2.x's ATen.h does not bring it
#include <pybind11/stl.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/error.h"
#include "data/tokenizers/tokenizer.h"
#include "models/encoder_training.h"
#include "models/hf_encoder_config.h"
#include "models/hf_encoder_init.h"
#include "models/language_model.h"
#include "models/text_model.h"
#include "python/bindings.h"
#include "python/python_values.h"

namespace py = pybind11;

namespace embpriv::python {
namespace {

// Two Python classes over one C++ model, so that isinstance(m, embpriv.Decoder) says which it
// is and only a Decoder has logits().
struct Encoder : TextModel {
  using TextModel::TextModel;
};
struct Decoder : TextModel {
  using TextModel::TextModel;
};

// A str or a sequence of str.
std::vector<std::string> texts_argument(const py::handle& texts) {
  if (py::isinstance<py::str>(texts)) return {texts.cast<std::string>()};
  EMBPRIV_CHECK(py::isinstance<py::sequence>(texts), "texts must be a str or a list of str");
  std::vector<std::string> out;
  std::size_t i = 0;
  for (const py::handle item : texts) {
    EMBPRIV_CHECK(py::isinstance<py::str>(item), "texts[" << i << "] must be a str, got "
                                                          << py::str(item.get_type().attr("__name__")).cast<std::string>());
    out.push_back(item.cast<std::string>());
    ++i;
  }
  return out;
}

at::Tensor optional_tensor(const py::object& value, const char* what) {
  if (value.is_none()) return {};
  return tensor_argument(value, what);
}

std::optional<TextPooling> pooling_argument(const py::object& pooling) {
  if (pooling.is_none()) return std::nullopt;
  return parse_text_pooling(pooling.cast<std::string>());
}

py::dict tokenize(const TextModel& model, const py::object& texts, std::int64_t max_length) {
  const std::vector<std::string> list = texts_argument(texts);
  TokenizedTexts tokens;
  {
    py::gil_scoped_release unlocked;
    tokens = model.tokenize(list, max_length);
  }
  py::dict out;
  out["input_ids"] = tokens.ids.to(model.device());
  out["attention_mask"] = tokens.attention_mask.to(model.device());
  out["token_counts"] = tokens.token_counts;
  out["truncated"] = [&] {
    std::vector<bool> cut;
    for (std::size_t i = 0; i < tokens.token_counts.size(); ++i) cut.push_back(tokens.untruncated_counts[i] > tokens.token_counts[i]);
    return cut;
  }();
  return out;
}

}  // namespace

void bind_models(py::module_& m) {
  py::class_<TextModel, std::shared_ptr<TextModel>>(m, "Model", "A Hugging Face model folder with its tokenizer (models/text_model.h)")
      .def_property_readonly("folder", &TextModel::folder)
      .def_property_readonly("model_type", &TextModel::model_type)
      .def_property_readonly("is_decoder", &TextModel::is_decoder)
      .def_property_readonly("hidden_size", &TextModel::hidden_size)
      .def_property_readonly("num_layers", &TextModel::num_layers)
      .def_property_readonly("vocab_size", &TextModel::vocab_size)
      .def_property_readonly("max_length", &TextModel::max_length, "the longest input the model's positions hold")
      .def_property_readonly("device", [](const TextModel& model) { return model.device().str(); })
      .def_property_readonly("default_pooling",
                             [](const TextModel& model) { return std::string(text_pooling_name(model.default_pooling())); })
      .def("tokenize", &tokenize, py::arg("texts"), py::kw_only(), py::arg("max_length") = 0,
           "{'input_ids': [B, T], 'attention_mask': [B, T], 'token_counts', 'truncated'} of a str or a list of "
           "str: the template's special tokens added, right-padded, longer texts cut as transformers cuts one "
           "text with truncation=True (max_length 0: the model's positions)")
      .def(
          "hidden_states",
          [](const TextModel& model, const at::Tensor& ids, const py::object& attention_mask, std::int64_t layer) {
            const at::Tensor mask = optional_tensor(attention_mask, "attention_mask");
            py::gil_scoped_release unlocked;
            at::NoGradGuard no_grad;
            return model.hidden_states(ids, mask, layer);
          },
          py::arg("ids"), py::arg("attention_mask") = py::none(), py::arg("layer") = -1,
          "Token hidden states [B, T, hidden] of ids [B, T] (transformers' hidden_states[layer]: 0 the "
          "embeddings, -1 the last, after a decoder's final norm); a decoder's mask must be right padding")
      .def(
          "pool",
          [](const TextModel& model, const at::Tensor& hidden, const py::object& attention_mask,
             const py::object& pooling, std::int64_t layer) {
            const at::Tensor mask = optional_tensor(attention_mask, "attention_mask");
            const TextPooling how = pooling_argument(pooling).value_or(model.default_pooling());
            py::gil_scoped_release unlocked;
            at::NoGradGuard no_grad;
            return model.pool(hidden, mask, how, layer);
          },
          py::arg("hidden"), py::arg("attention_mask") = py::none(), py::kw_only(), py::arg("pooling") = py::none(),
          py::arg("layer") = -1, "One vector per row [B, hidden] of hidden states [B, T, hidden]")
      .def(
          "encode",
          [](const TextModel& model, const py::object& texts, const py::object& pooling, std::int64_t batch_size,
             std::int64_t layer, std::int64_t max_length) {
            const std::vector<std::string> list = texts_argument(texts);
            EmbedOptions options;
            options.pooling = pooling_argument(pooling);
            options.batch_size = batch_size;
            options.layer = layer;
            options.max_length = max_length;
            py::gil_scoped_release unlocked;
            at::NoGradGuard no_grad;
            return model.embed(list, options).vectors;
          },
          py::arg("texts"), py::kw_only(), py::arg("pooling") = py::none(), py::arg("batch_size") = 32,
          py::arg("layer") = -1, py::arg("max_length") = 0,
          "One vector per text [N, hidden] on the model's device: the bits `embpriv embed` writes for the same "
          "texts, batch size and device. pooling: cls, mean, max, pooler (BERT's) or modules (default: modules "
          "for encoders, i.e. the folder's modules.json or mean; mean for decoders)");

  py::class_<Encoder, TextModel, std::shared_ptr<Encoder>>(m, "Encoder", "A BERT, RoBERTa or XLM-RoBERTa folder");
  py::class_<Decoder, TextModel, std::shared_ptr<Decoder>>(m, "Decoder", "A Llama-family decoder folder")
      .def(
          "logits",
          [](const Decoder& model, const at::Tensor& ids) {
            py::gil_scoped_release unlocked;
            at::NoGradGuard no_grad;
            return model.logits(ids);
          },
          py::arg("ids"), "Next-token logits [B, T, vocab] (or [T, vocab]) of ids [B, T] (or [T])");

  m.def(
      "load_model",
      [](const std::string& folder, const std::string& device, const std::string& compute) -> py::object {
        const at::ScalarType dtype = compute_dtype_named(compute);
        const c10::Device where = select_device(device);
        // Cast as the class it is (TextModel has no virtual function for pybind11 to look through).
        if (is_decoder_folder(folder)) {
          std::shared_ptr<Decoder> decoder;
          {
            py::gil_scoped_release unlocked;
            decoder = std::make_shared<Decoder>(folder, where, dtype);
          }
          return py::cast(decoder);
        }
        std::shared_ptr<Encoder> encoder;
        {
          py::gil_scoped_release unlocked;
          encoder = std::make_shared<Encoder>(folder, where, dtype);
        }
        return py::cast(encoder);
      },
      py::arg("folder"), py::kw_only(), py::arg("device") = "cpu", py::arg("compute") = "float32",
      "An Encoder or Decoder of a Hugging Face folder (config.json, safetensors weights, tokenizer.json) on "
      "device cpu, cuda, cuda:N or auto; compute float32, or bfloat16 for a decoder (its products in bf16, "
      "as transformers with torch_dtype=torch.bfloat16)");

  m.def(
      "random_encoder",
      [](const std::string& folder, const std::string& like, std::uint64_t seed) {
        namespace fs = std::filesystem;
        const fs::path source = fs::is_directory(like) ? fs::path(like) : fs::path(like).parent_path();
        EMBPRIV_CHECK(fs::is_regular_file(source / "config.json"), "random_encoder: no config.json in '" << like << "'");
        EMBPRIV_CHECK(!fs::exists(fs::path(folder) / "model.safetensors"),
                      "random_encoder: " << folder << "/model.safetensors exists; name a new folder");
        py::gil_scoped_release unlocked;
        // transformers' _init_weights at the config's initializer_range (models/hf_encoder_init.h).
        save_hf_encoder(random_hf_encoder(read_hf_encoder_config(source.string()), seed), folder);
        if (fs::is_regular_file(source / "tokenizer.json")) {
          fs::copy_file(source / "tokenizer.json", fs::path(folder) / "tokenizer.json", fs::copy_options::overwrite_existing);
        }
        return folder;
      },
      py::arg("folder"), py::kw_only(), py::arg("like"), py::arg("seed") = 0,
      "Writes FOLDER: a random-init encoder (BERT, RoBERTa, XLM-RoBERTa) of the config.json in folder `like`, "
      "initialised as transformers initialises one (initializer_range), with that folder's tokenizer.json; a "
      "baseline with no pretrained weights. Returns FOLDER");

  py::class_<Tokenizer, std::shared_ptr<Tokenizer>>(m, "Tokenizer", "A tokenizer.json or llama2.c tokenizer")
      .def("encode", &Tokenizer::encode, py::arg("text"), py::arg("add_special") = true,
           "The ids of a text, with the template's special tokens unless add_special=False")
      .def("decode", &Tokenizer::decode, py::arg("ids"), "The text of ids, special tokens dropped")
      .def("is_special", &Tokenizer::is_special, py::arg("id"))
      .def("__len__", &Tokenizer::size);
  m.def(
      "tokenizer", [](const std::string& path) { return std::shared_ptr<Tokenizer>(load_tokenizer(path)); },
      py::arg("folder"), "The tokenizer of a model folder (its tokenizer.json), a tokenizer.json, or a llama2.c .bin");
}

}  // namespace embpriv::python
