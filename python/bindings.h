#pragma once
// The parts of the Python module embpriv (docs/python.md), one function per file, each adding
// its functions and classes to the module _embpriv.
#include <pybind11/pybind11.h>

namespace embpriv::python {

// Mechanisms: mechanism(dict | YAML str), Mechanism.perturb / claim, mechanism_names().
void bind_mechanisms(pybind11::module_& m);
// The KNN inversion attack's nearest_rows.
void bind_attacks(pybind11::module_& m);
// The submodule `theory`: A_d(kappa), the tangent mechanism's angle and cosine, Gaussian calibration.
void bind_theory(pybind11::module_& m);
// Seeds and the seeded synthetic inputs: derive_seed, fnv1a64, random_directions.
void bind_seeds(pybind11::module_& m);
// run(config_path, overrides): `embpriv run`.
void bind_run(pybind11::module_& m);
// Models: load_model(folder, device) -> Encoder | Decoder, tokenizer(folder).
void bind_models(pybind11::module_& m);

}  // namespace embpriv::python
