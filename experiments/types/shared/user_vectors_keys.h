#pragma once
// The keys that point types perturbation, inversion and mia at a user's own file of vectors
// (experiments/types/shared/user_vectors.h reads it) instead of their built-in data: an .npy or
// HDF5 matrix of one vector per row, as `embpriv embed` and `embpriv perturb` write it, with its
// per-row datasets (ids; labels where the type trains a classifier). Declared once here; each type
// lists them with its own help (with_help), never another default, kind or range.
#include <string>

#include "experiments/engine/typed_key.h"

namespace embpriv::user_vectors_key {

inline const Key<std::string> kVectors =
    text_key("data.vectors", "",
             "your own vectors instead of the built-in data: an .npy or .h5/.hdf5 file of one vector per row "
             "(embpriv embed writes one); '': the built-in data");
inline const Key<std::string> kDataset =
    text_key("data.vectors_dataset", "vectors", "the matrix's dataset in an HDF5 data.vectors");

}  // namespace embpriv::user_vectors_key
