"""The Hugging Face folder files the numpy references of tests/models write and read, in one place:
safetensors (F32, F16, BF16; numpy writes the bytes itself), config.json, and the weights as one
model.safetensors or as shards named by model.safetensors.index.json. Imported by
hf_decoder_reference.py and hf_encoder_reference.py (and, through the first, the bench peers).
"""
import json
import os
import struct

import numpy as np

DTYPES = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "BF16": np.dtype("<u2")}


def read_safetensors(path):
    """Every tensor of a safetensors file as float64, by name."""
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, f = e["data_offsets"]
        a = np.frombuffer(raw[8 + n + b:8 + n + f], dtype=DTYPES[e["dtype"]])
        if e["dtype"] == "BF16":  # bfloat16: the high 16 bits of a float32
            a = (a.astype(np.uint32) << 16).view(np.float32)
        out[name] = a.astype(np.float64).reshape(e["shape"])
    return out


def write_safetensors(path, tensors, dtype):
    """Writes {name: array} in dtype F32, F16 or BF16, tensors in name order."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype=np.float32)
        if dtype == "F16":
            data = a.astype("<f2").tobytes()
        elif dtype == "BF16":  # round to nearest even, as torch does
            u = a.view(np.uint32).astype(np.uint64)
            data = (((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")).tobytes()
        else:
            data = a.astype("<f4").tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def write_config(folder, config):
    """FOLDER/config.json (the folder is made)."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)


def write_weights(folder, tensors, dtype, shards=1):
    """FOLDER/model.safetensors, or `shards` files model-0000S-of-0000N.safetensors (the names in
    sorted order dealt round-robin) and the model.safetensors.index.json naming them."""
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors, dtype)
        return
    names = sorted(tensors)
    weight_map = {}
    for s in range(shards):
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: tensors[n] for n in names[s::shards]}
        write_safetensors(os.path.join(folder, file), part, dtype)
        weight_map.update({n: file for n in part})
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)


def read_folder(folder):
    """(config.json as a dict, every tensor as float64 by name) of a folder, sharded or not."""
    config = json.load(open(os.path.join(folder, "config.json")))
    index = os.path.join(folder, "model.safetensors.index.json")
    tensors = {}
    if os.path.exists(index):
        for file in sorted(set(json.load(open(index))["weight_map"].values())):
            tensors.update(read_safetensors(os.path.join(folder, file)))
    else:
        tensors = read_safetensors(os.path.join(folder, "model.safetensors"))
    return config, tensors
