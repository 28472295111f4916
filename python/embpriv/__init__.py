"""embpriv: privacy mechanisms on language-model embeddings (docs/python.md).

    import embpriv, torch
    m = embpriv.mechanism({"name": "vmf", "epsilon": 2, "beta": 1})
    y = m.perturb(torch.randn(8, 768), seed=1)
    df = embpriv.read_results(embpriv.run("configs/ci/perturbation_small.yaml", overwrite=True))

Errors of bad input raise ValueError with the message `embpriv` prints after `embpriv: error:`.
"""
# torch first: the compiled part converts torch.Tensor through the torch module's own types.
import torch  # noqa: F401

from ._libtorch_check import check_libtorch as _check_libtorch

_check_libtorch(torch)
from ._embpriv import (  # noqa: F401,E402
    Mechanism,
    PrivacyClaim,
    derive_seed,
    flow_yaml,
    fnv1a64,
    mechanism,
    mechanism_keys,
    mechanism_names,
    nearest_rows,
    random_directions,
    run,
    theory,
)
from .results import Results, curve, read_results  # noqa: F401,E402
from .wrap import WrapHandle, wrap, wrap_presets  # noqa: F401,E402
from ._embpriv import Decoder, Encoder, Model, Tokenizer, load_model, random_encoder, tokenizer  # noqa: F401,E402

_check_libtorch(torch, after_import=True)
