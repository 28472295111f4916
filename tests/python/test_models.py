"""embpriv.load_model and embpriv.tokenizer: the same bits as `embpriv embed`, the float64 reference's
numbers (tests/models/hf_encoder_reference.py) to float32's rounding, transformers' where it is
installed, and `embpriv perturb` giving Mechanism.perturb's bytes for the same seed."""
import json
import pathlib
import sys

import numpy as np
import pytest
import torch

import embpriv
from conftest import SOURCE_DIR, cli, cli_error

sys.path.insert(0, str(SOURCE_DIR / "tests" / "models"))
import hf_encoder_reference as reference  # noqa: E402

TEXTS = ["The cat sat on the mat.", "a dog ran far away!", "good movie", "it is not very bad , it was good", "",
         "cats and dogs"]
STORIES = SOURCE_DIR / "build" / "stories260K-hf"


def write_small_bert_tokenizer(path):
    """A WordPiece tokenizer.json of the reference models' 50 ids ([CLS] text [SEP])."""
    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "cat", "dog", "sat", "on", "mat", "and", "ran",
              "far", "away", "good", "bad", "movie", "was", ".", ",", "!", "it", "is", "not", "very", "##s", "##ing",
              "##ed"]
    pieces += ["##" + chr(ord("a") + i) for i in range(50 - len(pieces))]
    added = [dict(id=i, content=pieces[i], single_word=False, lstrip=False, rstrip=False, normalized=False,
                  special=True) for i in range(5)]
    tokenizer = {
        "version": "1.0", "added_tokens": added,
        "normalizer": dict(type="BertNormalizer", clean_text=True, handle_chinese_chars=True, strip_accents=None,
                           lowercase=True),
        "pre_tokenizer": dict(type="BertPreTokenizer"),
        "post_processor": dict(type="BertProcessing", sep=["[SEP]", 3], cls=["[CLS]", 2]),
        "decoder": dict(type="WordPiece", prefix="##", cleanup=True),
        "model": dict(type="WordPiece", unk_token="[UNK]", continuing_subword_prefix="##",
                      max_input_chars_per_word=100, vocab={p: i for i, p in enumerate(pieces)}),
    }
    pathlib.Path(path).write_text(json.dumps(tokenizer))


def bert_folder(workdir, variant="bert_classifier_f32", seed=3):
    folder = workdir / variant
    reference.make(variant, str(folder), seed)
    write_small_bert_tokenizer(folder / "tokenizer.json")
    return folder


def test_encode_gives_the_bits_embpriv_embed_writes(workdir):
    folder = bert_folder(workdir)
    (workdir / "texts.txt").write_text("".join(t + "\n" for t in TEXTS))
    for pooling in [None, "mean", "pooler"]:
        npy = workdir / f"{pooling}.npy"
        args = ["embed", folder, "-i", workdir / "texts.txt", "-o", workdir / f"{pooling}.h5", "--npy", npy,
                "--batch", "4"] + ([] if pooling is None else ["--pooling", pooling])
        code, _, err = cli(*args)
        assert code == 0, err
        model = embpriv.load_model(str(folder))
        vectors = model.encode(TEXTS, pooling=pooling, batch_size=4)
        assert vectors.dtype == torch.float32 and vectors.shape == (len(TEXTS), 32)
        assert np.array_equal(np.load(npy).view(np.uint32), vectors.numpy().view(np.uint32))
        side = json.loads(pathlib.Path(str(npy) + ".json").read_text())
        assert side["rows"]["ids"] == ["1", "2", "3", "4", "5", "6"]
        assert side["rows"]["token_counts"] == model.tokenize(TEXTS)["token_counts"]


@pytest.mark.parametrize("variant", ["bert_classifier_f32", "bert_model_f16"])
def test_hidden_states_and_pooling_agree_with_the_float64_reference(workdir, variant):
    folder = bert_folder(workdir, variant)
    model = embpriv.load_model(str(folder), device="cpu")
    assert isinstance(model, embpriv.Encoder) and not model.is_decoder
    batch = model.tokenize(TEXTS)
    ids, mask = batch["input_ids"], batch["attention_mask"]
    hidden = model.hidden_states(ids, attention_mask=mask)
    ref_hidden, ref_pooled, _ = reference.outputs(str(folder), ids.tolist(), mask.tolist(), [[0] * ids.shape[1]] * len(TEXTS))
    real = mask.bool().numpy()
    scale = np.abs(ref_hidden[real]).max()
    assert np.abs(hidden.double().numpy()[real] - ref_hidden[real]).max() <= 1e-6 * scale
    # encode() with the folder's pooling (1_Pooling: cls, or max) is the reference's pooled vector.
    pooled = model.encode(TEXTS, batch_size=len(TEXTS)).double().numpy()
    assert np.abs(pooled - ref_pooled).max() <= 1e-6 * np.abs(ref_pooled).max()
    # BERT's pooler: tanh(dense(h[CLS])) of the reference's hidden states.
    _, weights, _ = reference.read_folder(str(folder))
    prefix = "bert." if "bert.pooler.dense.weight" in weights else ""
    ref_pooler = np.tanh(ref_hidden[:, 0] @ weights[prefix + "pooler.dense.weight"].T + weights[prefix + "pooler.dense.bias"])
    assert np.abs(model.encode(TEXTS, pooling="pooler").double().numpy() - ref_pooler).max() <= 1e-6


def test_layers_tokenizer_and_bad_input(workdir):
    folder = bert_folder(workdir)
    model = embpriv.load_model(str(folder))
    assert model.num_layers == 2 and model.max_length == 64 and model.device == "cpu"
    ids = model.tokenize(["the cat sat"])["input_ids"]
    assert ids.tolist() == [[2, 5, 7, 9, 3]]
    assert embpriv.tokenizer(str(folder)).encode("the cat sat") == [2, 5, 7, 9, 3]
    assert embpriv.tokenizer(str(folder)).decode([2, 5, 7, 9, 3]) == "the cat sat"
    assert torch.equal(model.hidden_states(ids, layer=2), model.hidden_states(ids))
    assert not torch.equal(model.hidden_states(ids, layer=1), model.hidden_states(ids))
    cut = model.tokenize(["the cat sat on the mat", "good"], max_length=4)
    assert cut["input_ids"].tolist() == [[2, 5, 7, 3], [2, 16, 3, 0]] and cut["truncated"] == [True, False]
    with pytest.raises(ValueError, match=r"layer must be in \[-3, 2\]"):
        model.hidden_states(ids, layer=3)
    with pytest.raises(ValueError, match="pooling must be cls, mean, max, pooler or modules"):
        model.encode(["x"], pooling="avg")
    with pytest.raises(ValueError, match="no such model folder"):
        embpriv.load_model(str(workdir / "missing"))
    assert not hasattr(model, "logits")


@pytest.mark.skipif(not STORIES.exists(), reason="build/stories260K-hf is written by the build")
def test_decoder_hidden_states_logits_and_encode():
    model = embpriv.load_model(str(STORIES))
    assert isinstance(model, embpriv.Decoder) and model.default_pooling == "mean"
    batch = model.tokenize(["Once upon a time", "Lily"])
    logits = model.logits(batch["input_ids"])
    assert logits.shape == (2, batch["input_ids"].shape[1], model.vocab_size)
    hidden = model.hidden_states(batch["input_ids"], attention_mask=batch["attention_mask"])
    mask = batch["attention_mask"].unsqueeze(-1).float()
    expected = (hidden * mask).sum(1) / mask.sum(1)
    assert torch.equal(model.encode(["Once upon a time", "Lily"]), expected)
    with pytest.raises(ValueError, match="right padding"):
        model.hidden_states(batch["input_ids"], attention_mask=batch["attention_mask"].flip(1))


@pytest.mark.skipif(not STORIES.exists(), reason="build/stories260K-hf is written by the build")
def test_decoder_in_bfloat16_gives_pytorch_eager_bf16_logits():
    """compute="bfloat16" computes as transformers with torch_dtype=torch.bfloat16: the logits of
    PyTorch eager running that math on bf16 weights (bench/lm_forward/hf_forward_peer.py, the
    bench's peer), bit for bit, since both run the same LibTorch ops; float32 compute still gives
    the float32 peer's bits, and the two differ by bf16's rounding."""
    sys.path.insert(0, str(SOURCE_DIR / "bench" / "lm_forward"))
    import hf_forward_peer as peer
    config, weights32 = peer.load(str(STORIES))
    weights16 = {name: t.to(torch.bfloat16) for name, t in weights32.items()}
    ids = torch.randint(0, 512, (3, 40), generator=torch.Generator().manual_seed(5))
    ours16 = embpriv.load_model(str(STORIES), compute="bfloat16").logits(ids)
    ours32 = embpriv.load_model(str(STORIES)).logits(ids)
    with torch.no_grad():
        theirs16 = peer.forward(config, weights16, weights16["model.embed_tokens.weight"][ids])
        theirs32 = peer.forward(config, weights32, weights32["model.embed_tokens.weight"][ids])
    assert ours16.dtype == torch.float32 and ours16.shape == (3, 40, 512)
    assert torch.equal(ours16, theirs16)
    assert torch.equal(ours32, theirs32)
    apart = float((ours16 - ours32).abs().max())
    assert 1e-3 < apart < 0.1 * float(ours32.abs().max())
    with pytest.raises(ValueError, match="compute dtype must be float32 or bfloat16, got 'float16'"):
        embpriv.load_model(str(STORIES), compute="float16")


def test_agrees_with_transformers_where_installed(workdir):
    transformers = pytest.importorskip("transformers")
    folder = bert_folder(workdir)
    model = embpriv.load_model(str(folder))
    batch = model.tokenize(TEXTS)
    theirs = transformers.BertModel.from_pretrained(str(folder)).eval()
    with torch.no_grad():
        out = theirs(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
    real = batch["attention_mask"].bool()
    mine = model.hidden_states(batch["input_ids"], attention_mask=batch["attention_mask"])
    assert (mine[real] - out.last_hidden_state[real]).abs().max() <= 1e-5
    assert (model.encode(TEXTS, pooling="pooler", batch_size=len(TEXTS)) - out.pooler_output).abs().max() <= 1e-5


def test_perturb_command_gives_mechanism_perturb_bytes(workdir):
    x = torch.randn(12, 16, generator=torch.Generator().manual_seed(5))
    np.save(workdir / "x.npy", x.numpy())
    code, out, err = cli("perturb", "--mechanism", "vmf", "--epsilon", "3", "beta=2", "--seed", "9", workdir / "x.npy",
                         workdir / "y.npy")
    assert code == 0, err
    vmf = embpriv.mechanism({"name": "vmf", "epsilon": 3, "beta": 2})
    expected = vmf.perturb(x, seed=9)
    assert np.array_equal(np.load(workdir / "y.npy").view(np.uint32), expected.numpy().view(np.uint32))
    attributes = json.loads((workdir / "y.npy.json").read_text())["attributes"]
    assert attributes["seed"] == 9 and attributes["epsilon_actual"] == vmf.claim().epsilon_actual and attributes["claim_kind"] == "metric_dp"
    assert "bogus" in cli_error("perturb", "--mechanism", "vmf", "--epsilon", "3", "bogus=1", workdir / "x.npy",
                                workdir / "z.npy")


def test_random_encoder_draws_transformers_initialisation_of_a_config(workdir):
    """embpriv.random_encoder: a loadable folder of the config's sizes, N(0, initializer_range^2) weights,
    LayerNorm 1/0, the same bits for the same seed, and the source folder's tokenizer.json."""
    like = bert_folder(workdir)
    config = json.loads((like / "config.json").read_text())
    config["initializer_range"] = 0.05
    (like / "config.json").write_text(json.dumps(config))
    a = embpriv.random_encoder(str(workdir / "a"), like=str(like), seed=4)
    embpriv.random_encoder(str(workdir / "b"), like=str(like), seed=4)
    embpriv.random_encoder(str(workdir / "c"), like=str(like), seed=5)
    read = lambda name: (workdir / name / "model.safetensors").read_bytes()  # noqa: E731
    assert read("a") == read("b") and read("a") != read("c")
    assert (workdir / "a" / "tokenizer.json").read_bytes() == (like / "tokenizer.json").read_bytes()
    _, weights = reference.read_config_and_weights(a)
    words = next(v for k, v in weights.items() if k.endswith("embeddings.word_embeddings.weight"))
    assert words.shape == (config["vocab_size"], config["hidden_size"])
    assert abs(words[1:].std() / 0.05 - 1) < 0.06  # 1,568 draws: the std's standard error is 1.8%
    assert all(np.all(v == 1) for k, v in weights.items() if k.endswith("LayerNorm.weight"))
    assert embpriv.load_model(a).encode(TEXTS).shape == (len(TEXTS), config["hidden_size"])
    with pytest.raises(ValueError, match="exists; name a new folder"):
        embpriv.random_encoder(a, like=str(like))
    with pytest.raises(ValueError, match="no config.json"):
        embpriv.random_encoder(str(workdir / "d"), like=str(workdir))
