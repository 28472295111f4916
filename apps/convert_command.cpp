#include "apps/convert_command.h"

#include "core/error.h"
#include "data/tables/data_paths.h"
#include "models/llama2c_to_hf.h"

namespace embpriv {

ConvertCommand::ConvertCommand(CLI::App& app) {
  command_ = app.add_subcommand("convert", "Convert a model between file layouts (docs/models.md)");
  // At most one conversion; an unknown name is caught by the positional below and refused by
  // name in run() (CLI11 alone says only "A subcommand is required").
  command_->require_subcommand(0, 1);
  command_->add_option("conversion", unknown_, "The conversion (llama2c-to-hf)");
  llama2c_to_hf_ = command_->add_subcommand(
      "llama2c-to-hf", "Write a llama2.c model and tokenizer as a Hugging Face Llama folder "
                       "(config.json, model.safetensors, tokenizer.json)");
  llama2c_to_hf_->add_option("--model", model_, "llama2.c checkpoint .bin (e.g. tinyllama/stories260K.bin, found in the shared data folder)")->required();
  llama2c_to_hf_->add_option("--tokenizer", tokenizer_, "llama2.c tokenizer .bin (e.g. tinyllama/tok512.bin)")->required();
  llama2c_to_hf_->add_option("--out", out_, "Folder to write (created; a non-empty one needs --overwrite)")->required();
  llama2c_to_hf_->add_flag("--overwrite", overwrite_,
                           "Replace the model in a non-empty --out folder, removing the old model's files the new one "
                           "does not use (a shard index, shards, other weights and tokenizer files)");
}

int ConvertCommand::run(std::ostream& out) const {
  EMBPRIV_CHECK(unknown_.empty(), "unknown conversion 'convert " << unknown_ << "' (known: llama2c-to-hf)");
  EMBPRIV_CHECK(llama2c_to_hf_->parsed(), "convert needs a conversion: embpriv convert llama2c-to-hf --help");
  // Relative inputs: the working folder, then the shared data folder (tinyllama/stories260K.bin).
  convert_llama2c_to_hf(resolve_data_path(model_), resolve_data_path(tokenizer_), out_, overwrite_);
  out << "wrote " << out_ << "/config.json, model.safetensors, tokenizer.json\n";
  return 0;
}

}  // namespace embpriv
