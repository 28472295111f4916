// The YAML config and its command-line overrides (experiments/engine/config_document.h): the
// input is the config text, then after a NUL byte the overrides, one per line.
#include "experiments/engine/config_document.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = input.find('\0');
  const std::string text = input.substr(0, split);
  std::vector<std::string> overrides;
  if (split != std::string::npos) {
    std::size_t start = split + 1;
    while (start <= input.size()) {
      const std::size_t end = std::min(input.find('\n', start), input.size());
      overrides.push_back(input.substr(start, end - start));
      start = end + 1;
    }
  }
  return embpriv::fuzz::expect_only_embpriv_errors([&] {
    embpriv::ConfigDocument document = embpriv::parse_config_text(text, "fuzz.yaml");
    embpriv::apply_overrides(document, overrides, [](const std::string& key) { return key == "seeds"; });
    for (const auto& [key, where] : document.override_origin) document.location(key);
    document.location("mechanism.epsilon");
    embpriv::flow_yaml(document.root);
    embpriv::block_yaml(document.root);
  });
}
