"""embpriv.wrap: the vMF paper's plug-in (Section 8), perturbing a PyTorch model's embeddings in place.

    handle = embpriv.wrap(model, mechanism={"name": "vmf", "epsilon": 0.5}, hooks="qwen3_vl", alpha=4, seed=7)
    out = model.generate(**inputs)          # the text and visual embeddings are perturbed on the way
    handle.claims(), handle.rows_perturbed(), handle.calls
    handle.remove()                         # the model is as it was: no hook left

Forward hooks (torch.nn.Module.register_forward_hook, Section 8.1) replace the output of each
hooked module, a floating tensor [..., D], by y = M(x) row by row with the C++ mechanisms of
`Mechanism.perturb`: text rows at eps_text = alpha * eps and visual rows at eps (Def. 6.1), and
rows whose token id is public left unchanged (Def. 6.2). Rows draw from per-call streams so that
the same seed and the same sequence of calls give the same rows (docs/python.md, "The wrapper").
"""
import fnmatch
import secrets

import torch

from ._embpriv import Mechanism, derive_seed, fnv1a64
from ._embpriv import mechanism as _build_mechanism

MODALITIES = ("text", "visual")

# The module paths of each family, read in huggingface/transformers (docs/python.md names the
# version). A channel lists alternatives, tried in order: the first whose paths all exist is
# hooked (a 2025 transformers release, about v4.52, moved Qwen2-VL's and Qwen2.5-VL's text model
# under `model.language_model` and the vision tower to `model.visual`; older versions have
# `model.embed_tokens` and `visual`).
# A path ending in `*` names every child of the module before it.
PRESETS = {
    "qwen2_vl": {
        "text": [["model.language_model.embed_tokens"], ["model.embed_tokens"]],
        "visual": [["model.visual.merger.mlp.2"], ["visual.merger.mlp.2"]],
    },
    "qwen2_5_vl": {
        "text": [["model.language_model.embed_tokens"], ["model.embed_tokens"]],
        "visual": [["model.visual.merger.mlp.2"], ["visual.merger.mlp.2"]],
    },
    # Qwen3-VL adds the DeepStack mergers: features of intermediate vision layers, each through its
    # own merger, added to the hidden states of the first LLM layers at the visual positions. They
    # carry the image too, so the visual channel perturbs them with the final merger's output.
    "qwen3_vl": {
        "text": [["model.language_model.embed_tokens"]],
        "visual": [["model.visual.merger.linear_fc2", "model.visual.deepstack_merger_list.*"]],
    },
    "llama": {"text": [["model.embed_tokens"], ["embed_tokens"]]},
    "mistral": {"text": [["model.embed_tokens"], ["embed_tokens"]]},
    "qwen2": {"text": [["model.embed_tokens"], ["embed_tokens"]]},
    "qwen3": {"text": [["model.embed_tokens"], ["embed_tokens"]]},
    "bert": {"text": [["bert.embeddings.word_embeddings"], ["embeddings.word_embeddings"]]},
    "roberta": {"text": [["roberta.embeddings.word_embeddings"], ["embeddings.word_embeddings"]]},
}

# The config keys of the placeholder tokens a vision-language model replaces by visual features
# after the text embedding (masked_scatter in Qwen*VLModel.forward): their text rows never reach
# the LLM, so they are neither perturbed nor counted.
_PLACEHOLDER_KEYS = ("image_token_id", "video_token_id")


def _resolve(model, path):
    """The module at a dotted path (children by name, ModuleList/Sequential by index)."""
    module = model
    walked = []
    for part in path.split("."):
        walked.append(part)
        children = getattr(module, "_modules", {})
        if part in children and children[part] is not None:
            module = children[part]
            continue
        try:
            module = getattr(module, part)
        except Exception:  # noqa: BLE001 - any failure of the lookup means: no such path
            raise ValueError(f"hook path '{path}': the model has no '{'.'.join(walked)}'") from None
    if not isinstance(module, torch.nn.Module):
        raise ValueError(f"hook path '{path}' names a {type(module).__name__}, not a torch.nn.Module")
    return module


def _expand(model, pattern):
    """[(path, module)] of one path, or of every child where it ends in '*'."""
    if "*" not in pattern:
        return [(pattern, _resolve(model, pattern))]
    head, _, tail = pattern.rpartition(".")
    if "*" in head:
        raise ValueError(f"hook path '{pattern}': only the last part may hold '*'")
    parent = _resolve(model, head) if head else model
    found = [(f"{head}.{name}" if head else name, child)
             for name, child in parent.named_children() if fnmatch.fnmatchcase(name, tail)]
    if not found:
        raise ValueError(f"hook path '{pattern}': no child of '{head}' matches '{tail}'")
    return found


def _channel_paths(model, spec, modality):
    """The (path, module) pairs of one channel: a path, a list of paths, or a preset's alternatives."""
    if isinstance(spec, str):
        return _expand(model, spec)
    if isinstance(spec, (list, tuple)) and spec and all(isinstance(p, str) for p in spec):
        return [pair for pattern in spec for pair in _expand(model, pattern)]
    if isinstance(spec, (list, tuple)) and spec and all(isinstance(a, (list, tuple)) for a in spec):
        errors = []
        for alternative in spec:
            try:
                return [pair for pattern in alternative for pair in _expand(model, pattern)]
            except ValueError as error:
                errors.append(str(error))
        raise ValueError(f"{modality} channel: none of the preset's paths exists in this model ({'; '.join(errors)})")
    raise TypeError(f"hooks['{modality}'] must be a module path or a list of paths, got {spec!r}")


def _placeholder_ids(model):
    config = getattr(model, "config", None)
    ids = set()
    for key in _PLACEHOLDER_KEYS:
        value = getattr(config, key, None)
        if isinstance(value, int) and not isinstance(value, bool):
            ids.add(value)
    return ids


def _id_set(ids, name):
    if ids is None:
        return set()
    if isinstance(ids, torch.Tensor):
        ids = ids.flatten().tolist()
    out = set()
    for value in ids:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must hold int token ids, got {value!r}")
        out.add(value)
    return out


class CallRecord:
    """One hook call: which module, which channel, its stream and its rows."""

    __slots__ = ("modality", "path", "call_index", "seed", "shape", "dtype", "device", "rows", "perturbed",
                 "public", "placeholder", "zero", "cosine", "mean_cosine")

    def __init__(self, **fields):
        for key in self.__slots__:
            setattr(self, key, fields.get(key))

    def as_dict(self):
        return {key: getattr(self, key) for key in self.__slots__ if key != "cosine"}

    def __repr__(self):
        return f"CallRecord({self.as_dict()})"


class WrapHandle:
    """What embpriv.wrap returns: the hooks, their bookkeeping and claims, remove()."""

    def __init__(self, model, mechanism, channels, public_ids, placeholder_ids, seed, log_cosine, call_seeds=None):
        self.model = model
        self._call_seeds = call_seeds
        self.mechanism = mechanism
        self.seed = seed
        self.log_cosine = log_cosine
        self.public_token_ids = frozenset(public_ids)
        self.placeholder_token_ids = frozenset(placeholder_ids)
        self.paths = {modality: [path for path, _ in pairs] for modality, pairs in channels.items()}
        self.calls = []
        self.enabled = True
        self._call_count = {modality: 0 for modality in channels}
        self._hooks = []
        self._model_ids = None
        self._removed = False
        for modality, pairs in channels.items():
            for path, module in pairs:
                self._hooks.append(module.register_forward_hook(self._hook(modality, path)))
        self._needs_ids = "text" in channels and bool(self.public_token_ids or self.placeholder_token_ids)
        if self._needs_ids:
            self._hooks.append(self._register_ids_hook(model))

    # --- streams ---
    def call_seed(self, modality, call_index):
        """The seed of a call: derive_seed(seed, fnv1a64("wrap " + modality), "call " + str(call_index)).

        Row i of that call draws from the generator (call_seed, i), so the call equals
        Mechanism.perturb(rows, seed=call_seed, modality=modality, mask=...). wrap(call_seeds=f)
        replaces the derivation by f(modality, call_index) (to redo a run's stream)."""
        if modality not in MODALITIES:
            raise ValueError(f"modality must be 'text' or 'visual', got {modality!r}")
        if isinstance(call_index, bool) or not isinstance(call_index, int) or call_index < 0:
            raise ValueError(f"call_index must be an int >= 0, got {call_index!r}")
        if self._call_seeds is not None:
            seed = self._call_seeds(modality, call_index)
            if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
                raise ValueError(f"call_seeds({modality!r}, {call_index}) must give an int in [0, 2^64), got {seed!r}")
            return seed
        return derive_seed(self.seed, fnv1a64("wrap " + modality), f"call {call_index}")

    # --- bookkeeping ---
    def claims(self):
        """The privacy claim of each hooked channel (text at alpha * eps, visual at eps)."""
        return {modality: self.mechanism.claim(modality) for modality in self.paths}

    def rows_perturbed(self):
        """Rows perturbed so far per channel (public, placeholder and zero rows not counted)."""
        totals = {modality: 0 for modality in self.paths}
        for record in self.calls:
            totals[record.modality] += record.perturbed
        return totals

    def summary(self):
        """Per channel: calls, rows seen, perturbed, public, placeholder, zero, epsilon, mean cosine."""
        out = {}
        for modality in self.paths:
            records = [r for r in self.calls if r.modality == modality]
            entry = {"paths": list(self.paths[modality]), "modules": len(self.paths[modality]),
                     "epsilon": self.mechanism.epsilon_for(modality),
                     "claim": self.mechanism.claim(modality).describe(), "calls": len(records)}
            for key in ("rows", "perturbed", "public", "placeholder", "zero"):
                entry[key] = sum(getattr(r, key) for r in records)
            if self.log_cosine:
                values = [r.cosine for r in records if r.cosine is not None and r.cosine.numel()]
                entry["mean_cosine"] = float(torch.cat(values).double().mean()) if values else None
            out[modality] = entry
        return out

    def reset_log(self):
        """Forgets the calls and restarts the call indices at 0 (the next call draws as the first did)."""
        self.calls = []
        self._call_count = {modality: 0 for modality in self._call_count}

    def set_mechanism(self, mechanism, *, alpha=None):
        """Perturbs the next calls with another mechanism or budget (the paper's set_epsilon); the
        call indices go on, so the streams stay distinct."""
        self.mechanism = _mechanism_of(mechanism, alpha)

    def enable(self):
        self.enabled = True

    def disable(self):
        """The hooks stay but pass every output unchanged (and count no call) until enable()."""
        self.enabled = False

    def remove(self):
        """Removes every hook this handle registered: the model computes exactly as before wrap()."""
        for hook in self._hooks:
            hook.remove()
        self._hooks = []
        self._model_ids = None
        self._removed = True

    @property
    def removed(self):
        return self._removed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False

    # --- the hooks ---
    def _register_ids_hook(self, model):
        # The token ids of the current forward pass, for the text hook when the hooked module does
        # not take them itself. torch >= 2.0 hands keyword arguments (generate passes input_ids so).
        def remember(args, kwargs):
            ids = kwargs.get("input_ids") if kwargs else None
            if ids is None and args and isinstance(args[0], torch.Tensor) and not args[0].is_floating_point():
                ids = args[0]
            self._model_ids = ids

        try:
            return model.register_forward_pre_hook(lambda _m, args, kwargs: remember(args, kwargs), with_kwargs=True)
        except TypeError:  # torch < 2.0: positional arguments only
            return model.register_forward_pre_hook(lambda _m, args: remember(args, {}))

    def _token_ids(self, path, inputs, leading_shape):
        """The ids of the rows of a text output [..., D]: the module's own input, else the model's."""
        for candidate in (inputs[0] if inputs else None, self._model_ids):
            if (isinstance(candidate, torch.Tensor) and not candidate.is_floating_point()
                    and not candidate.is_complex() and tuple(candidate.shape) == tuple(leading_shape)):
                return candidate
        raise ValueError(f"text hook '{path}': public or placeholder token ids are set, but neither the module's "
                         f"input nor the model's input_ids is a tensor of ids of shape {list(leading_shape)}")

    def _hook(self, modality, path):
        def hook(_module, inputs, output):
            if not self.enabled:
                return None
            return self._perturb_output(modality, path, inputs, output)

        return hook

    def _perturb_output(self, modality, path, inputs, output):
        where = f"{modality} hook '{path}'"
        if not isinstance(output, torch.Tensor):
            raise ValueError(f"{where}: the module returns a {type(output).__name__}, not a tensor [..., D]")
        if not output.is_floating_point() or output.is_complex():
            raise ValueError(f"{where}: the module's output has dtype {output.dtype}, not a floating dtype")
        if output.dim() < 1 or output.shape[-1] < 2:
            raise ValueError(f"{where}: the output's shape {list(output.shape)} is not [..., D] with D >= 2")
        d = output.shape[-1]
        x = output.detach().reshape(-1, d)
        n = x.shape[0]
        # Def. 6.2: a row passes unchanged where its token is public (a placeholder is overwritten by
        # the visual features downstream); a zero row (a padding embedding) has no direction x/||x||.
        public = torch.zeros(n, dtype=torch.bool, device=x.device)
        placeholder = torch.zeros_like(public)
        if modality == "text" and self._needs_ids:
            ids = self._token_ids(path, inputs, output.shape[:-1]).reshape(-1).to(x.device)
            if self.public_token_ids:
                public = torch.isin(ids, torch.tensor(sorted(self.public_token_ids), device=x.device))
            if self.placeholder_token_ids:
                listed = torch.tensor(sorted(self.placeholder_token_ids), device=x.device)
                placeholder = torch.isin(ids, listed) & ~public
        zero = (x == 0).all(dim=1) & ~public & ~placeholder
        keep = public | placeholder | zero
        call_index = self._call_count[modality]
        seed = self.call_seed(modality, call_index)
        mask = (~keep).to(torch.long).cpu()
        # Rows that pass unchanged go to the mechanism as ones (it checks every row, masked or not:
        # a zero or non-finite row would be refused) and are put back from x below, bit for bit.
        rows = torch.where(keep.unsqueeze(1), torch.ones_like(x), x) if bool(keep.any()) else x
        try:
            y = self.mechanism.perturb(rows, seed=seed, mask=mask, modality=modality)
        except ValueError as error:
            raise ValueError(f"{modality} hook '{path}' (call {call_index}): {error}") from None
        if bool(keep.any()):
            y = torch.where(keep.unsqueeze(1), x, y)
        self._call_count[modality] = call_index + 1
        record = CallRecord(modality=modality, path=path, call_index=call_index, seed=seed,
                            shape=tuple(output.shape), dtype=output.dtype, device=str(output.device), rows=n,
                            perturbed=int((~keep).sum()), public=int(public.sum()),
                            placeholder=int(placeholder.sum()), zero=int(zero.sum()))
        if self.log_cosine:
            xs, ys = x[~keep].float(), y[~keep].float()
            cosine = torch.nn.functional.cosine_similarity(xs, ys, dim=1).cpu() if xs.shape[0] else torch.empty(0)
            record.cosine = cosine
            record.mean_cosine = float(cosine.double().mean()) if cosine.numel() else None
        self.calls.append(record)
        return y.reshape(output.shape)

    def __repr__(self):
        state = "removed" if self._removed else ("enabled" if self.enabled else "disabled")
        return f"WrapHandle({self.mechanism.name}, {self.paths}, seed={self.seed}, {state})"


def _mechanism_of(mechanism, alpha):
    """The Mechanism to use: built from a dict (with alpha set) or YAML text, or the one given."""
    if isinstance(mechanism, dict):
        spec = dict(mechanism)
        if alpha is not None:
            if "alpha" in spec and spec["alpha"] != alpha:
                raise ValueError(f"alpha={alpha} differs from the mechanism's alpha ({spec['alpha']})")
            spec["alpha"] = alpha
        return _build_mechanism(spec)
    if isinstance(mechanism, str):
        mechanism = _build_mechanism(mechanism)
    if not isinstance(mechanism, Mechanism):
        raise TypeError(f"mechanism must be a dict, YAML text or an embpriv.Mechanism, got {type(mechanism).__name__}")
    if alpha is not None and float(alpha) != mechanism.alpha:
        raise ValueError(f"alpha={alpha} differs from the mechanism's alpha ({mechanism.alpha}); "
                         "give the mechanism as a dict to set alpha here")
    return mechanism


def wrap(model, mechanism, hooks, *, alpha=None, public_token_ids=None, seed=None, log_cosine=False,
         call_seeds=None):
    """Perturbs the embeddings of a torch.nn.Module through forward hooks (vMF paper, Section 8).

    model: any torch.nn.Module (a Hugging Face model or your own).
    mechanism: a dict ({"name": "vmf", "epsilon": 0.5, ...}), YAML text or an embpriv.Mechanism.
    hooks: a preset name (embpriv.wrap_presets()) or {"text": path, "visual": path or [paths]};
        a path is dotted (`model.visual.merger.mlp.2`), `*` as its last part names every child.
    alpha: the text channel's factor, eps_text = alpha * eps (Def. 6.1); None keeps the mechanism's.
    public_token_ids: token ids whose text rows pass unchanged (Def. 6.2: system prompt, template).
    seed: the seed of every call's stream (handle.call_seed); None draws one from the OS (kept in
        handle.seed, so a run can be redone).
    log_cosine: keep cos(x, y) of every perturbed row of every call (handle.calls[i].cosine).
    call_seeds: a function (modality, call_index) -> seed replacing the derivation from `seed`
        (to give a call the stream of an `embpriv run` grid point; docs/python.md).
    Returns a WrapHandle; handle.remove() takes every hook off.
    """
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    built = _mechanism_of(mechanism, alpha)
    placeholder = set()
    if isinstance(hooks, str):
        if hooks not in PRESETS:
            raise ValueError(f"unknown hook preset '{hooks}'; presets: {', '.join(sorted(PRESETS))}")
        spec = PRESETS[hooks]
        if "visual" in spec:
            placeholder = _placeholder_ids(model)
    elif isinstance(hooks, dict):
        spec = hooks
    else:
        raise TypeError("hooks must be a preset name or a dict {'text': path, 'visual': path}, "
                        f"got {type(hooks).__name__}")
    unknown = [key for key in spec if key not in MODALITIES]
    if unknown or not spec:
        raise ValueError(f"hooks keys must be 'text' and/or 'visual', got {sorted(map(str, spec))}")
    channels = {}
    seen = {}
    for modality in MODALITIES:
        if modality not in spec or spec[modality] is None:
            continue
        pairs = []
        for path, module in _channel_paths(model, spec[modality], modality):
            if id(module) in seen:
                if seen[id(module)][0] != modality:
                    raise ValueError(f"hook path '{path}' is the module of '{seen[id(module)][1]}', hooked as "
                                     f"{seen[id(module)][0]}: one module, one channel")
                continue  # the same module by two names (a property and its child): hooked once
            seen[id(module)] = (modality, path)
            pairs.append((path, module))
        channels[modality] = pairs
    if seed is None:
        seed = secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an int in [0, 2^64), got {seed!r}")
    public = _id_set(public_token_ids, "public_token_ids")
    if public and "text" not in channels:
        raise ValueError("public_token_ids are given, but no text channel is hooked")
    if call_seeds is not None and not callable(call_seeds):
        raise TypeError("call_seeds must be a function (modality, call_index) -> seed, "
                        f"got {type(call_seeds).__name__}")
    return WrapHandle(model, built, channels, public, placeholder - public, seed, bool(log_cosine), call_seeds)


def wrap_presets():
    """{preset: {channel: [alternative path lists]}}: the module paths each preset tries."""
    return {name: {k: [list(a) for a in v] for k, v in spec.items()} for name, spec in PRESETS.items()}
