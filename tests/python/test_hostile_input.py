"""Hostile input to the module (issue 33's Python items): each case once killed the interpreter,
returned a wrong number or raised the wrong error. Every bad input is a ValueError with the
command line's message; a wrong argument type is a TypeError."""
import math
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import embpriv
from conftest import SOURCE_DIR, cli_error

CI_CONFIG = SOURCE_DIR / "configs" / "ci" / "perturbation_small.yaml"


def run_isolated(code):
    """Runs `code` in a fresh interpreter (a crash there fails this test instead of the file)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ), check=False)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stdout}{done.stderr}"
    return done.stdout


# Item 2: dicts are read at their top level only.
def test_recursive_and_deep_config_dicts_raise_value_error():
    out = run_isolated("""
        import embpriv
        d = {"name": "vmf", "epsilon": 1}
        d["self"] = d
        loop = []
        loop.append(loop)
        deep = {}
        for _ in range(100000):
            deep = {"a": deep}
        for config, expected in [(d, "unknown key 'self'"),
                                 ({"name": "vmf", "epsilon": loop}, "epsilon must be a number, got a list"),
                                 ({"name": "vmf", "epsilon": 1, "beta": deep}, "beta must be a number, got a dict"),
                                 ({"name": deep}, "name must be a str")]:
            try:
                embpriv.mechanism(config)
            except ValueError as e:
                assert expected in str(e), str(e)
            else:
                raise AssertionError("accepted")
        print("ok")
    """)
    assert out.strip() == "ok"


def test_changing_x_from_another_thread_during_perturb_changes_nothing_read():
    # The other thread can only run once perturb releases the GIL (a huge switch interval keeps
    # this thread from being preempted before): it then swaps x's 40 MB storage for a row of NaN,
    # which unmaps the memory x had (a segfault when perturb read x in place). perturb works on
    # its own copy, so the result is the reference's.
    out = run_isolated("""
        import sys, threading, torch, embpriv
        m = embpriv.mechanism({"name": "vmf", "epsilon": 2, "beta": 1})
        x0 = embpriv.random_directions(20000, 512, 0.5, 2.0, seed=1)
        reference = m.perturb(x0.clone(), seed=3)
        x = x0.clone()
        nan = torch.full((1, 512), float("nan"))
        ready = threading.Event()
        def swap():
            ready.wait()
            x.set_(nan)
        thread = threading.Thread(target=swap)
        thread.start()
        sys.setswitchinterval(1000.0)
        ready.set()
        y = m.perturb(x, seed=3)
        sys.setswitchinterval(0.005)
        thread.join()
        assert x.shape == (1, 512), "the other thread did not run during perturb"
        assert torch.equal(y, reference)
        print("ok")
    """)
    assert out.strip() == "ok"


# Item 9: the checksum fence, as `embpriv info` checks it.
@pytest.fixture(scope="module")
def small_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("fence") / "small.h5"
    embpriv.run(str(CI_CONFIG), ["data.samples=100", "seeds=1"], out=str(out))
    return out


def test_read_results_refuses_a_flipped_bit_as_info_does(small_results, workdir):
    damaged = workdir / "damaged.h5"
    data = bytearray(small_results.read_bytes())
    data[len(data) // 2] ^= 0x10
    damaged.write_bytes(bytes(data))
    message = cli_error("info", damaged)
    with pytest.raises(ValueError) as error:
        embpriv.read_results(damaged)
    assert str(error.value) == message and "damaged" in message
    assert len(embpriv.read_results(small_results)) == 12  # the intact file still reads


@pytest.mark.parametrize("content", [b"", b"not hdf5 at all\n" * 10, None])
def test_read_results_of_bad_files_is_value_error_with_infos_message(content, workdir):
    path = workdir / "bad.h5"
    if content is not None:
        path.write_bytes(content)
    message = cli_error("info", path)
    with pytest.raises(ValueError) as error:
        embpriv.read_results(path)
    assert str(error.value) == message


# Item 10: nearest_rows in float32.
def test_nearest_rows_gives_exact_cosines_at_any_finite_scale():
    table = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    for scale in (1.0, 1e38, 1e-30):  # 3e38 and 1e-30 once gave cosine 0
        queries = torch.tensor([[2.0, 1.0], [1.0, -3.0]]) * scale
        indices, scores = embpriv.nearest_rows(queries, table, 1)
        assert indices[:, 0].tolist() == [0, 0]
        assert scores[0, 0].item() == pytest.approx(2 / math.sqrt(5), abs=1e-6)
        assert scores[1, 0].item() == pytest.approx(1 / math.sqrt(10), abs=1e-6)
    # float64 queries beyond float32's range: the rows of the table they point at.
    big = table.double() * 1e39
    indices, scores = embpriv.nearest_rows(big, table, 1)
    assert indices[:, 0].tolist() == [0, 1, 2]
    assert torch.allclose(scores[:, 0], torch.ones(3))


def test_nearest_rows_refuses_what_float32_cannot_hold_and_d_zero():
    table = torch.eye(3)
    with pytest.raises(ValueError, match="beyond float32's range"):
        embpriv.nearest_rows(table.double() * 1e39, table, 1, metric="l2")
    with pytest.raises(ValueError, match="not finite in float32"):
        embpriv.nearest_rows(table * 3e38, -table * 3e38, 1, metric="l2")
    with pytest.raises(ValueError, match="d must be >= 1"):
        embpriv.nearest_rows(torch.zeros(3, 0), torch.zeros(5, 0), 1)
    with pytest.raises(TypeError, match="excluded must be a torch.Tensor"):
        embpriv.nearest_rows(table, table, 1, excluded=[True, False, False])


# Item 11: results that are not finite, or do not fit x's dtype.
def test_mechanisms_refuse_outputs_that_overflow():
    laplace = embpriv.mechanism({"name": "laplace", "epsilon": 1e-5, "clip_norm": 1})
    x = embpriv.random_directions(8, 16, 0.5, 2.0, seed=1)
    assert torch.isfinite(laplace.perturb(x, seed=1)).all()  # float32 holds noise of scale 2e5
    with pytest.raises(ValueError, match="does not fit float16"):
        laplace.perturb(x.half(), seed=1)
    tiny = embpriv.mechanism({"name": "laplace", "epsilon": 1e-40, "clip_norm": 1})
    with pytest.raises(ValueError, match="row 0 is not finite in float32"):
        tiny.perturb(x, seed=1)
    vmf = embpriv.mechanism({"name": "vmf", "epsilon": 1, "beta": 1})
    # A float16 row of norm 84,853 (each value 60,000): its direction turns, a value passes 65,504.
    with pytest.raises(ValueError, match=r"vmf: the output of row 0 does not fit float16 \(81015"):
        vmf.perturb(torch.tensor([[60000.0, 60000.0]], dtype=torch.float16), seed=1)
    with pytest.raises(ValueError, match="not finite in float32"):
        vmf.perturb(torch.full((2, 4), 3e38), seed=1)
    with pytest.raises(ValueError, match=r"row 1 has a value \(1e\+39\) at column 2 beyond float32's range"):
        vmf.perturb(torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1e39]], dtype=torch.float64), seed=1)


def test_random_directions_checks_its_arguments():
    for args, expected in [((4, 8, math.nan, 1.0), "norm_min must be finite and > 0"),
                           ((4, 8, 2.0, 1.0), "norm_max must be >= norm_min"),
                           ((4, 8, 1.0, 1e39), "norm_max must be <= "),
                           ((-1, 8, 1.0, 2.0), "n must be >= 0, got -1"),
                           ((4, 0, 1.0, 2.0), "d must be >= 1, got 0")]:
        with pytest.raises(ValueError, match=expected):
            embpriv.random_directions(*args, seed=1)


# Items 12 and 19: YAML text as config files are read.
def test_yaml_text_with_a_duplicate_key_is_refused():
    with pytest.raises(ValueError, match="duplicate key 'epsilon'"):
        embpriv.mechanism("{name: vmf, epsilon: 2, epsilon: 3, beta: 1}")


@pytest.mark.parametrize("value", ['"1"', "'1'"])
def test_a_quoted_number_is_refused_for_mechanism_keys_as_on_the_command_line(value, workdir):
    config = workdir / "quoted.yaml"
    config.write_text(f"type: perturbation\ndata: {{dim: 16, samples: 10}}\nmechanism: {{name: vmf, epsilon: {value}}}\n")
    cli_message = cli_error("run", config, "--out", workdir / "q.h5", "--no-plot")
    assert "epsilon must be a number, got '1' (quoted: text)" in cli_message
    with pytest.raises(ValueError) as error:
        embpriv.mechanism(f"{{name: vmf, epsilon: {value}}}")
    assert str(error.value) in cli_message
    with pytest.raises(ValueError, match=r"epsilon must be a number, got '1' \(a str\)"):
        embpriv.mechanism({"name": "vmf", "epsilon": "1"})


# Item 18: ValueError for bad input, TypeError for a wrong type.
def test_bad_input_is_value_error_and_a_wrong_type_type_error():
    with pytest.raises(ValueError, match="a mechanism key must be a plain name"):
        embpriv.mechanism("{name: vmf, ? [a, b] : 1, epsilon: 1}")
    with pytest.raises(ValueError, match="malformed"):
        embpriv.flow_yaml("{a: [1")
    m = embpriv.mechanism({"name": "vmf", "epsilon": 1})
    with pytest.raises(TypeError, match="mask must be a torch.Tensor, got list"):
        m.perturb(torch.ones(3, 4), seed=1, mask=[1, 0, 1])
    with pytest.raises(TypeError):
        embpriv.mechanism(5)
    with pytest.raises(ValueError, match="a mechanism key must be a str"):
        embpriv.mechanism({"name": "vmf", 1: 2})
    with pytest.raises(ValueError, match="epsilon must be finite and > 0, got inf"):
        embpriv.mechanism({"name": "vmf", "epsilon": 10**400})


# Issue 38, messages: wrap() checks its arguments itself, and a hook names itself.
def test_wrap_checks_public_ids_and_log_cosine_when_called():
    model = torch.nn.Sequential(torch.nn.Embedding(8, 4))
    with pytest.raises(ValueError, match=r"public_token_ids: a token id must be in \[0, 2\^63\), got 1180591620717411303424"):
        embpriv.wrap(model, {"name": "vmf", "epsilon": 1}, {"text": "0"}, public_token_ids=[2**70], seed=1)
    with pytest.raises(TypeError, match="public_token_ids must be a list, set or tensor of token ids, got int"):
        embpriv.wrap(model, {"name": "vmf", "epsilon": 1}, {"text": "0"}, public_token_ids=7, seed=1)
    with pytest.raises(TypeError, match="log_cosine must be True or False, got 'no'"):
        embpriv.wrap(model, {"name": "vmf", "epsilon": 1}, {"text": "0"}, log_cosine="no", seed=1)
    assert all(len(m._forward_hooks) == 0 for m in model.modules())


class Returns(torch.nn.Module):
    def __init__(self, make):
        super().__init__()
        self.make = make

    def forward(self, x):
        return self.make(x)


@pytest.mark.parametrize("make,expected", [
    (lambda x: x.to_sparse(), "layout torch.sparse_coo"),
    (lambda x: torch.empty_like(x, device="meta"), "meta device"),
    (lambda x: torch.nested.nested_tensor([x[:1], x[1:]]), "nested tensor"),
])
def test_outputs_a_hook_cannot_perturb_are_refused_naming_the_hook(make, expected):
    model = torch.nn.Sequential(Returns(make))
    handle = embpriv.wrap(model, {"name": "vmf", "epsilon": 1}, {"visual": "0"}, seed=1)
    with pytest.raises(ValueError, match=f"visual hook '0': .*{expected}"):
        model(torch.randn(3, 4))
    handle.remove()


@pytest.mark.parametrize("seed,error,expected", [
    (-1, ValueError, r"seed must be an int in \[0, 2\^64\), got -1$"),
    (2**64, ValueError, r"seed must be an int in \[0, 2\^64\), got 18446744073709551616$"),
    (True, TypeError, r"seed must be an int in \[0, 2\^64\), got True \(a bool\)$"),
    (1.5, TypeError, r"seed must be an int in \[0, 2\^64\), got 1.5 \(a float\)$"),
])
def test_one_rule_and_one_message_for_seeds_in_perturb_and_wrap(seed, error, expected):
    m = embpriv.mechanism({"name": "vmf", "epsilon": 1})
    x = torch.ones(3, 4)
    with pytest.raises(error, match=expected):  # one line, not pybind's list of every argument
        m.perturb(x, seed=seed)
    with pytest.raises(error, match=expected):
        embpriv.random_directions(3, 4, 1.0, 2.0, seed=seed)
    with pytest.raises(error, match=expected):
        embpriv.wrap(torch.nn.Sequential(torch.nn.Identity()), m, {"visual": "0"}, seed=seed)


def test_integers_that_are_not_int_are_seeds_in_perturb_and_wrap():
    m = embpriv.mechanism({"name": "vmf", "epsilon": 1})
    x = embpriv.random_directions(3, 4, 1.0, 2.0, seed=2**64 - 1)
    assert torch.equal(m.perturb(x, seed=torch.tensor(5)), m.perturb(x, seed=5))
    assert embpriv.wrap(torch.nn.Sequential(torch.nn.Identity()), m, {"visual": "0"}, seed=torch.tensor(5)).seed == 5
