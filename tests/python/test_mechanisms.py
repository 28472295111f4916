"""embpriv.mechanism and Mechanism.perturb / claim (python/mechanisms.cpp)."""
import math

import pytest
import torch

import embpriv
from conftest import cli, cli_error


def test_dict_and_yaml_text_build_the_same_mechanism():
    x = embpriv.random_directions(64, 32, 0.5, 2.0, seed=3)
    a = embpriv.mechanism({"name": "vmf", "epsilon": 2, "beta": 1}).perturb(x, seed=9)
    b = embpriv.mechanism("{name: vmf, epsilon: 2, beta: 1}").perturb(x, seed=9)
    assert torch.equal(a, b)
    assert not torch.equal(a, embpriv.mechanism("{name: vmf, epsilon: 2, beta: 1}").perturb(x, seed=10))


def test_rows_depend_only_on_seed_and_row_index():
    m = embpriv.mechanism({"name": "gaussian", "epsilon": 1, "delta": 1e-5, "clip_norm": 1})
    x = embpriv.random_directions(40, 16, 0.5, 2.0, seed=1)
    whole = m.perturb(x, seed=5)
    tail = m.perturb(x[25:], seed=5, first_row=25)
    assert torch.equal(whole[25:], tail)


def test_input_is_read_not_written_and_dtype_is_kept():
    m = embpriv.mechanism({"name": "laplace", "epsilon": 1, "clip_norm": 1})
    x = embpriv.random_directions(10, 8, 0.5, 2.0, seed=2)
    before = x.clone()
    y = m.perturb(x, seed=1)
    assert torch.equal(x, before) and y.dtype == torch.float32 and y.shape == x.shape
    y64 = m.perturb(x.double(), seed=1)
    assert y64.dtype == torch.float64
    assert torch.equal(y64.float(), y)


def test_tangent_mechanism_cosine_is_the_theory_for_every_row_and_modality():
    # vMF paper, Prop. 3.1: every output of Algorithm 1 has cos(x, y) = 1/sqrt(1 + (beta/eps)^2);
    # text rows use eps_text = alpha * eps (Def. 6.1).
    m = embpriv.mechanism({"name": "vmf_tangent", "epsilon": 2, "beta": 1, "alpha": 0.25})
    x = embpriv.random_directions(200, 64, 0.5, 2.0, seed=4)
    modality = torch.arange(200) % 2
    y = m.perturb(x, seed=8, modality=modality)
    cos = torch.nn.functional.cosine_similarity(x.double(), y.double(), dim=1)
    visual = embpriv.theory.expected_cosine_tangent(1, 2)
    text = embpriv.theory.expected_cosine_tangent(1, 0.5)
    assert torch.allclose(cos[0::2], torch.full((100,), visual, dtype=torch.float64), atol=1e-6)
    assert torch.allclose(cos[1::2], torch.full((100,), text, dtype=torch.float64), atol=1e-6)
    assert m.theory_cosine(64) == pytest.approx(visual, rel=1e-12)
    assert m.theory_cosine(64, "text") == pytest.approx(text, rel=1e-12)
    assert torch.equal(m.perturb(x, seed=8, modality="text")[1::2], y[1::2])


def test_mask_leaves_public_rows_unchanged():
    m = embpriv.mechanism({"name": "vmf", "epsilon": 1, "beta": 1})
    x = embpriv.random_directions(6, 16, 0.5, 2.0, seed=6)
    mask = torch.tensor([1, 0, 1, 0, 0, 1])
    y = m.perturb(x, seed=3, mask=mask)
    assert torch.equal(y[mask == 0], x[mask == 0])
    assert not torch.equal(y[mask == 1], x[mask == 1])


def test_claim():
    m = embpriv.mechanism({"name": "vmf", "epsilon": 2, "beta": 1, "alpha": 0.5})
    assert m.name == "vmf" and m.epsilon == 2 and m.alpha == 0.5
    claim = m.claim()
    assert claim.kind == "metric_dp" and claim.epsilon == 2
    assert m.claim("text").epsilon == 1
    g = embpriv.mechanism({"name": "gaussian", "epsilon": 0.5, "delta": 1e-5, "clip_norm": 1})
    assert g.claim().kind == "approx_dp" and g.claim().delta == 1e-5
    assert str(claim) == claim.describe() != ""
    # What the noise really gives: exact for vMF; for the classic Gaussian formula at eps 100,
    # far more than 100 (Dwork & Roth, Thm A.1 needs eps < 1); the analytic one gives 100 itself.
    assert claim.epsilon_actual == claim.epsilon and "exact by construction" in claim.epsilon_actual_source
    assert math.isnan(claim.sigma) and math.isnan(claim.sensitivity)
    classic = embpriv.mechanism({"name": "gaussian", "epsilon": 100, "delta": 1e-5, "clip_norm": 1,
                                 "calibration": "classic"}).claim()
    analytic = embpriv.mechanism({"name": "gaussian", "epsilon": 100, "delta": 1e-5, "clip_norm": 1,
                                  "calibration": "analytic"}).claim()
    assert classic.sensitivity == 2 and classic.sigma > 0 and classic.epsilon_actual > 150
    assert abs(analytic.epsilon_actual - 100) < 1e-6 * 100
    assert set(embpriv.mechanism_names()) >= {"vmf", "vmf_tangent", "gaussian", "laplace", "npgaussian"}


@pytest.mark.parametrize(
    "mechanism_yaml",
    ["{name: vmf, epsilon: -1, beta: 1}", "{name: vmf, epsilon: 1, bta: 1}", "{name: vmff, epsilon: 1}"],
)
def test_bad_mechanism_raises_value_error_with_the_command_lines_message(mechanism_yaml, workdir):
    config = workdir / "bad.yaml"
    config.write_text(f"type: perturbation\ndata: {{dim: 16, samples: 10}}\nmechanism: {mechanism_yaml}\n")
    cli_message = cli_error("run", config, "--out", workdir / "bad.h5", "--no-plot")
    with pytest.raises(ValueError) as error:
        embpriv.mechanism(mechanism_yaml)
    # The command line says where the map came from ("bad.yaml line 3: mechanism: "), then the
    # same message (followed, for a key, by its line inside the map).
    location, message = cli_message.split(": mechanism: ", 1)
    assert location.endswith("bad.yaml line 3") and message.startswith(str(error.value)), cli_message
    with pytest.raises(ValueError) as from_dict:
        embpriv.mechanism(__import__("yaml").safe_load(mechanism_yaml))
    assert str(from_dict.value) == str(error.value)


def test_bad_perturb_inputs_raise_value_error():
    m = embpriv.mechanism({"name": "vmf", "epsilon": 1, "beta": 1})
    with pytest.raises(ValueError, match="2-D batch"):
        m.perturb(torch.ones(5), seed=1)
    x = torch.ones(3, 4)
    x[1, 2] = math.nan
    with pytest.raises(ValueError, match="row 1"):
        m.perturb(x, seed=1)
    with pytest.raises(ValueError, match="modality must be 'visual' or 'text'"):
        m.perturb(torch.ones(3, 4), seed=1, modality="audio")
    with pytest.raises(ValueError, match="mechanism vmf: epsilon must be a number, got an object"):
        embpriv.mechanism({"name": "vmf", "epsilon": object()})


def test_mechanism_keys_are_the_declarations_the_command_line_lists():
    keys = embpriv.mechanism_keys("gaussian")
    assert [k["name"] for k in keys] == ["epsilon", "delta", "clip_norm", "calibration", "alpha"]
    delta = keys[1]
    assert delta["default"] == 1e-5 and not delta["required"] and delta["range"] == "in (0, 1)"
    assert keys[0]["required"] and keys[0]["default"] is None
    _, listing, _ = cli("mechanisms", "--keys")
    for key in keys:
        assert f"    {key['name']}: " in listing and key["help"] in listing
    with pytest.raises(ValueError, match="unknown mechanism 'vnf'"):
        embpriv.mechanism_keys("vnf")
