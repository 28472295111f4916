"""embpriv's GloVe cache (.embt, data/tables/embedding_formats.h) as numpy, for the peers that
read the same GloVe rows as their bench (knn_peer.py, embed_cluster_peer.py): a 12-byte header,
then V and d as little-endian int64, then V x d float32 rows, most frequent word first."""
import struct

import numpy as np


def glove_table(path, rows):
    """The first `rows` rows of the cache at `path`, as a float32 [rows, d] array."""
    raw = open(path, "rb").read()
    v, d = struct.unpack("<qq", raw[12:28])
    return np.frombuffer(raw[28:28 + v * d * 4], dtype="<f4").reshape(v, d)[:rows].copy()
