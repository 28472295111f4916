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
import operator
import secrets
import sys
import threading
import warnings

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
            ids.add(_token_id(value, f"config.{key}"))
    return ids


def _token_id(value, name):
    """One token id: an int that fits the int64 ids of a model's input (a larger one would only
    fail at the first forward, inside torch.isin)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must hold int token ids, got {value!r}")
    if not 0 <= value < 2**63:
        raise ValueError(f"{name}: a token id must be in [0, 2^63), got {value}")
    return value


def _id_set(ids, name):
    if ids is None:
        return set()
    if isinstance(ids, torch.Tensor):
        ids = ids.flatten().tolist()
    elif isinstance(ids, (int, str, bytes)) or not hasattr(ids, "__iter__"):
        raise TypeError(f"{name} must be a list, set or tensor of token ids, got {type(ids).__name__}")
    return {_token_id(value, name) for value in ids}


def _seed_value(seed, name="seed"):
    """A seed as Mechanism.perturb takes one: an integer in [0, 2^64), never a bool (True is an int
    in Python, but no one means it as a seed); the same rule and message as perturb's."""
    if isinstance(seed, bool) or not hasattr(type(seed), "__index__"):
        raise TypeError(f"{name} must be an int in [0, 2^64), got {seed!r} (a {type(seed).__name__})")
    value = operator.index(seed)
    if not 0 <= value < 2**64:
        raise ValueError(f"{name} must be an int in [0, 2^64), got {value}")
    return value


def _capture_in_progress():
    """The name of a graph capture running now, or None. A hook cannot be captured faithfully:
    torch.jit.trace records Mechanism.perturb (C++, outside the tracer) as an empty tensor, so the
    traced model perturbs nothing and returns uninitialised memory, and a captured graph would
    replay one draw or none. torch.compile's checks exist from torch 2.x on; dynamo can only be
    compiling when it has been imported."""
    if torch.jit.is_tracing():
        return "torch.jit.trace"
    # Both checks where both exist: torch.compiler.is_compiling (2.3 on) and, once dynamo is
    # loaded, torch._dynamo.is_compiling (2.0 on; from 2.3 it asks torch.compiler).
    compiler = getattr(torch, "compiler", None)
    if compiler is not None and hasattr(compiler, "is_compiling") and compiler.is_compiling():
        return "torch.compile"
    dynamo = sys.modules.get("torch._dynamo")
    if dynamo is not None and hasattr(dynamo, "is_compiling") and dynamo.is_compiling():
        return "torch.compile"
    return None


_COPY_REFUSED = ("a model wrapped by embpriv.wrap cannot be deep-copied or pickled: its hooks belong to the "
                 "handle, so a copy would log into the original's handle and stay perturbed after remove(), "
                 "or draw the original's noise again; call handle.remove() first, then copy or save the model "
                 "and wrap each copy with a seed of its own")


class _Hook:
    """A hook of a WrapHandle as torch calls it. Copying a module copies its hooks: deepcopy and
    pickle (torch.save) of a wrapped model are refused here, naming what to do."""

    __slots__ = ("function",)

    def __init__(self, function):
        self.function = function

    def __call__(self, *args):
        return self.function(*args)

    def __deepcopy__(self, memo):
        raise TypeError(_COPY_REFUSED)

    def __reduce_ex__(self, protocol):
        raise TypeError(_COPY_REFUSED)


def _caller_outside_this_file():
    """The innermost frame of the current stack that is not in this file: for a hook, the frame
    of torch's Module call that runs it (Module._call_impl in torch 1.13 and 2.0, the `inner`
    function inside it from 2.1 on), which runs the forward too and ends with it."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals is globals():
        frame = frame.f_back
    return frame


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
        # Hooks run in whatever threads call the model: the call index is taken and the log written
        # under this lock, so that no two calls share a stream.
        self._lock = threading.Lock()
        # Per thread, the wrapped model's forwards in progress: [(frame of the call, input ids)].
        self._forwards = threading.local()
        self._warned_grad = False
        self._hooks = []
        self._removed = False
        for modality, pairs in channels.items():
            for path, module in pairs:
                self._hooks.append(module.register_forward_hook(_Hook(self._hook(modality, path))))
        self._needs_ids = "text" in channels and bool(self.public_token_ids or self.placeholder_token_ids)
        if self._needs_ids:
            self._hooks.extend(self._register_ids_hooks(model))

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
            return _seed_value(self._call_seeds(modality, call_index), f"call_seeds({modality!r}, {call_index})")
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
        with self._lock:
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
        self._forwards = threading.local()
        self._removed = True

    @property
    def removed(self):
        return self._removed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False

    def __deepcopy__(self, memo):
        raise TypeError(_COPY_REFUSED)

    def __reduce_ex__(self, protocol):
        raise TypeError(_COPY_REFUSED)

    # --- the hooks ---
    def _register_ids_hooks(self, model):
        """The token ids of each forward of the model, for a text hook on a module that does not
        take them itself. They belong to that one forward: kept per thread with the frame of the
        model's call, and used only while that frame is on the hooked call's stack, so neither a
        later direct call of the hooked module, nor another thread, nor a forward that raised can
        see them. torch >= 2.0 hands keyword arguments (generate passes input_ids so)."""
        def started(_model, args, kwargs=None):
            ids = kwargs.get("input_ids") if kwargs else None
            if ids is None and args and isinstance(args[0], torch.Tensor) and not args[0].is_floating_point():
                ids = args[0]
            self._live_forwards().append((_caller_outside_this_file(), ids))

        def ended(_model, _args, _output):
            forwards = self._live_forwards()
            if forwards and forwards[-1][0] is _caller_outside_this_file():
                forwards.pop()

        try:
            pre = model.register_forward_pre_hook(_Hook(started), with_kwargs=True)
        except TypeError:  # torch < 2.0: positional arguments only
            pre = model.register_forward_pre_hook(_Hook(started))
        return [pre, model.register_forward_hook(_Hook(ended))]

    def _live_forwards(self):
        """This thread's model forwards in progress, those that ended (by an exception, which runs
        no forward hook) dropped. The list holds the frames, so an id on the stack is that frame's."""
        forwards = getattr(self._forwards, "stack", None)
        if forwards is None:
            forwards = self._forwards.stack = []
        if forwards:
            on_stack = set()
            frame = sys._getframe(1)
            while frame is not None:
                on_stack.add(id(frame))
                frame = frame.f_back
            while forwards and id(forwards[-1][0]) not in on_stack:
                forwards.pop()
        return forwards

    def _token_ids(self, path, inputs, leading_shape):
        """The ids of the rows of a text output [..., D]: the module's own input, else the input of
        the model forward this call runs in (in this thread). Where neither is known the call is
        refused: with public or placeholder ids set, no row may pass on a guess."""
        forwards = self._live_forwards()
        for candidate in (inputs[0] if inputs else None, forwards[-1][1] if forwards else None):
            if (isinstance(candidate, torch.Tensor) and not candidate.is_floating_point()
                    and not candidate.is_complex() and tuple(candidate.shape) == tuple(leading_shape)):
                return candidate
        raise ValueError(f"text hook '{path}': public or placeholder token ids are set, but neither the module's "
                         f"input nor the input_ids of a forward of the wrapped model running in this thread is a "
                         f"tensor of ids of shape {list(leading_shape)}; the call is refused rather than let a "
                         "row pass unperturbed (call the model, or hook the embedding that takes the ids)")

    def _hook(self, modality, path):
        def hook(_module, inputs, output):
            capture = _capture_in_progress()
            if capture is not None:
                raise RuntimeError(f"{modality} hook '{path}': embpriv.wrap cannot run under {capture}: the "
                                   "captured graph would not draw fresh noise per call (a traced one perturbs "
                                   "nothing); call handle.remove() before capturing, or run the model eagerly")
            if not self.enabled:
                return None
            return self._perturb_output(modality, path, inputs, output)

        return hook

    def _perturb_output(self, modality, path, inputs, output):
        where = f"{modality} hook '{path}'"
        if not isinstance(output, torch.Tensor):
            raise ValueError(f"{where}: the module returns a {type(output).__name__}, not a tensor [..., D]")
        # Before any torch operation on it: these tensors would fail inside torch, naming no hook.
        if output.is_nested:
            raise ValueError(f"{where}: the module returns a nested tensor; the hook perturbs dense tensors [..., D]")
        if output.layout != torch.strided:
            raise ValueError(f"{where}: the module returns a tensor of layout {output.layout}; the hook perturbs "
                             "dense (torch.strided) tensors [..., D]")
        if output.is_meta:
            raise ValueError(f"{where}: the module returns a tensor on the meta device, which holds no values to perturb")
        if not output.is_floating_point() or output.is_complex():
            raise ValueError(f"{where}: the module's output has dtype {output.dtype}, not a floating dtype")
        if output.dim() < 1 or output.shape[-1] < 2:
            raise ValueError(f"{where}: the output's shape {list(output.shape)} is not [..., D] with D >= 2")
        if output.requires_grad and not self._warned_grad:
            self._warned_grad = True
            warnings.warn(f"embpriv.wrap: the output of {where} requires grad, but the perturbed rows carry none: "
                          "no gradient reaches this module or any parameter before it, which stay as they are "
                          "in training (docs/python.md, 'The wrapper'); this warning is shown once per handle",
                          UserWarning, stacklevel=2)
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
        mechanism = self.mechanism  # one mechanism for the whole call, whatever set_mechanism does meanwhile
        call_index = self._take_call_index(modality)
        seed = self.call_seed(modality, call_index)
        mask = (~keep).to(torch.long).cpu()
        # Rows that pass unchanged go to the mechanism as ones (it checks every row, masked or not:
        # a zero or non-finite row would be refused) and are put back from x below, bit for bit.
        rows = torch.where(keep.unsqueeze(1), torch.ones_like(x), x) if bool(keep.any()) else x
        try:
            y = mechanism.perturb(rows, seed=seed, mask=mask, modality=modality)
        except ValueError as error:
            raise ValueError(f"{modality} hook '{path}' (call {call_index}): {error}") from None
        if bool(keep.any()):
            y = torch.where(keep.unsqueeze(1), x, y)
        record = CallRecord(modality=modality, path=path, call_index=call_index, seed=seed,
                            shape=tuple(output.shape), dtype=output.dtype, device=str(output.device), rows=n,
                            perturbed=int((~keep).sum()), public=int(public.sum()),
                            placeholder=int(placeholder.sum()), zero=int(zero.sum()))
        if self.log_cosine:
            xs, ys = x[~keep].float(), y[~keep].float()
            cosine = torch.nn.functional.cosine_similarity(xs, ys, dim=1).cpu() if xs.shape[0] else torch.empty(0)
            record.cosine = cosine
            record.mean_cosine = float(cosine.double().mean()) if cosine.numel() else None
        with self._lock:
            self.calls.append(record)
        return y.reshape(output.shape)

    def _take_call_index(self, modality):
        """The next call index of a channel, taken before the mechanism runs (it releases the GIL, so
        another thread's call may start meanwhile): each call its own stream. A call the mechanism
        then refuses keeps its index unused."""
        with self._lock:
            call_index = self._call_count[modality]
            self._call_count[modality] = call_index + 1
        return call_index

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
    if not channels:
        # {"text": None} and the like: a handle that hooks nothing would let every output pass.
        raise ValueError(f"hooks {spec!r} name no module to hook: give a module path for 'text' and/or 'visual'")
    seed = secrets.randbits(63) if seed is None else _seed_value(seed)
    if not isinstance(log_cosine, bool):
        raise TypeError(f"log_cosine must be True or False, got {log_cosine!r}")
    public = _id_set(public_token_ids, "public_token_ids")
    if public and "text" not in channels:
        raise ValueError("public_token_ids are given, but no text channel is hooked")
    if call_seeds is not None and not callable(call_seeds):
        raise TypeError("call_seeds must be a function (modality, call_index) -> seed, "
                        f"got {type(call_seeds).__name__}")
    return WrapHandle(model, built, channels, public, placeholder - public, seed, log_cosine, call_seeds)


def wrap_presets():
    """{preset: {channel: [alternative path lists]}}: the module paths each preset tries."""
    return {name: {k: [list(a) for a in v] for k, v in spec.items()} for name, spec in PRESETS.items()}
