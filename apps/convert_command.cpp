#include "apps/convert_command.h"

#include "data/data_paths.h"
#include "models/llama2c_to_hf.h"

namespace embpriv {

ConvertCommand::ConvertCommand(CLI::App& app) {
  command_ = app.add_subcommand("convert", "Convert a model between file layouts (docs/models.md)");
  command_->require_subcommand(1);
  llama2c_to_hf_ = command_->add_subcommand(
      "llama2c-to-hf", "Write a llama2.c model and tokenizer as a Hugging Face Llama folder "
                       "(config.json, model.safetensors, tokenizer.json)");
  llama2c_to_hf_->add_option("--model", model_, "llama2.c checkpoint .bin (e.g. tinyllama/stories260K.bin, found in the shared data folder)")->required();
  llama2c_to_hf_->add_option("--tokenizer", tokenizer_, "llama2.c tokenizer .bin (e.g. tinyllama/tok512.bin)")->required();
  llama2c_to_hf_->add_option("--out", out_, "Folder to write (created)")->required();
}

int ConvertCommand::run(std::ostream& out) const {
  // Relative inputs: the working folder, then the shared data folder (tinyllama/stories260K.bin).
  convert_llama2c_to_hf(resolve_data_path(model_), resolve_data_path(tokenizer_), out_);
  out << "wrote " << out_ << "/config.json, model.safetensors, tokenizer.json\n";
  return 0;
}

}  // namespace embpriv
