#include "apps/embed_command.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "core/device.h"
#include "core/error.h"
#include "core/progress.h"
#include "data/tables/text_inputs.h"
#include "experiments/engine/provenance.h"
#include "experiments/results/output_file.h"
#include "experiments/results/vector_file.h"
#include "models/language_model.h"
#include "models/text_model.h"

namespace embpriv {

EmbedCommand::EmbedCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "embed", "One vector per text from a Hugging Face encoder or decoder folder, into an HDF5 file "
               "(docs/models.md)");
  command_->add_option("folder", folder_, "Model folder: config.json, safetensors weights, tokenizer.json")->required();
  command_->add_option("-o,--out", out_, "HDF5 file to write (.h5): vectors, ids, token_counts, truncated")->required();
  command_->add_option("-i,--input", input_,
                       "Texts: a file of lines, or a .json array of texts or {\"text\": ...} objects (default: "
                       "lines of stdin)");
  command_->add_option("--npy", npy_, "Also write the vectors as this .npy (attributes and ids in NPY.json)");
  command_->add_option("--pooling", pooling_,
                       "cls, mean, max, pooler (BERT's) or modules (the folder's modules.json); default: modules "
                       "for encoders (mean without modules.json), mean for decoders");
  command_->add_option("--layer", layer_, "Hidden layer (transformers' hidden_states index; 0 the embeddings, -1 the last)")
      ->capture_default_str();
  command_->add_option("--max-length", max_length_,
                       "Cut longer texts to this many tokens, special tokens included (0: the model's positions)")
      ->capture_default_str();
  command_->add_option("--batch", batch_, "Texts per forward pass")->capture_default_str();
  command_->add_option("--device", device_, "cpu, cuda, cuda:N or auto")->capture_default_str();
  command_->add_option("--compute", compute_,
                       "float32, or bfloat16 for a decoder: its products in bf16, as transformers with "
                       "torch_dtype=torch.bfloat16 (docs/models.md)")
      ->capture_default_str();
  command_->add_option("--threads", threads_, "CPU threads (0: LibTorch's default)")->capture_default_str();
  command_->add_flag("--overwrite", overwrite_, "Replace existing output files");
}

int EmbedCommand::run(std::istream& in, std::ostream& out) const {
  EMBPRIV_CHECK(!is_npy_path(out_, "--out"), "--out must be an .h5 file; add --npy FILE.npy for NumPy");
  check_not_replacing(out_, overwrite_, "pass --overwrite to replace it");
  check_output_writable(out_);
  if (!npy_.empty()) {
    EMBPRIV_CHECK(is_npy_path(npy_, "--npy"), "--npy must end in .npy, got '" << npy_ << "'");
    check_not_replacing(npy_, overwrite_, "pass --overwrite to replace it");
    check_output_writable(npy_);
  }
  EMBPRIV_CHECK(threads_ >= 0, "--threads must be >= 0, got " << threads_);
  EmbedOptions options;
  if (!pooling_.empty()) options.pooling = parse_text_pooling(pooling_);
  options.layer = layer_;
  options.max_length = max_length_;
  options.batch_size = batch_;
  const c10::Device device = select_device(device_);
  if (threads_ > 0) at::set_num_threads(threads_);

  const TextModel model(folder_, device, compute_dtype_named(compute_));
  const std::string source = input_.empty() ? "stdin" : input_;
  const TextInputs texts = input_.empty() ? read_text_lines(in) : read_text_inputs(input_);
  TextEmbeddings embedded;
  {
    ProgressBar bar(static_cast<std::int64_t>(texts.texts.size()), "texts");
    std::int64_t shown = 0;
    try {
      embedded = model.embed(texts.texts, options, [&](std::int64_t done) {
        bar.advance(done - shown);
        shown = done;
      });
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::bad_input) throw;
      throw Error(source + ": " + e.what());
    }
  }

  VectorFile file;
  file.vectors = embedded.vectors.to(at::kCPU);
  std::vector<std::int64_t> truncated;
  std::int64_t cut = 0;
  for (std::size_t i = 0; i < embedded.token_counts.size(); ++i) {
    truncated.push_back(embedded.untruncated_counts[i] > embedded.token_counts[i] ? 1 : 0);
    cut += truncated.back();
  }
  file.row_columns = {Column{"ids", texts.ids}, Column{"token_counts", embedded.token_counts},
                      Column{"truncated", truncated}};
  if (!texts.labels.empty()) file.row_columns.push_back(Column{"labels", texts.labels});
  const TextPooling pooling = options.pooling.value_or(model.default_pooling());
  const std::int64_t max_length = max_length_ > 0 ? max_length_ : model.max_length();
  auto& a = file.attributes;
  a["model_folder"] = folder_;
  a["model_type"] = model.model_type();
  a["model_kind"] = std::string(model.is_decoder() ? "decoder" : "encoder");
  a["pooling"] = std::string(text_pooling_name(pooling));
  a["pooling_rule"] = model.describe_pooling(pooling);
  a["layer"] = layer_;
  a["max_length"] = max_length;
  a["truncation"] = "texts longer than max_length tokens are cut as transformers cuts one text with truncation=True: "
                    "the text's own tokens on the right, the template's special tokens kept; 'truncated' marks them (" +
                    std::to_string(cut) + " of " + std::to_string(truncated.size()) + " texts)";
  a["truncated_texts"] = cut;
  a["batch_size"] = batch_;
  a["device"] = device.str();
  a["compute"] = compute_;
  a["input"] = source;
  a["embpriv_version"] = embpriv_version();
  a["git_commit"] = git_commit();
  a["created"] = utc_now();
  write_vector_file(out_, file);
  if (!npy_.empty()) write_vector_file(npy_, file);
  out << "embedded " << file.vectors.size(0) << " texts into " << file.vectors.size(1) << "-d vectors ("
      << model.describe_pooling(pooling) << ", layer " << layer_ << ") in " << out_ << (npy_.empty() ? "" : " and " + npy_)
      << "; " << cut << " cut to " << max_length << " tokens\n";
  return 0;
}

}  // namespace embpriv
