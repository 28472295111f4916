// embpriv.mechanism(...) and the Mechanism class: the per-vector mechanisms of mechanisms/ on
// torch tensors (mechanisms/mechanism.h).
#include <torch/csrc/utils/pybind.h>

#include <ATen/ATen.h>

#include <memory>
#include <sstream>
#include <string>

#include "core/error.h"
#include "mechanisms/registry.h"
#include "python/bindings.h"
#include "python/python_yaml.h"

namespace py = pybind11;

namespace embpriv::python {
namespace {

const MechanismRegistry& registry() {
  static const MechanismRegistry mechanisms = default_mechanism_registry();
  return mechanisms;
}

Modality parse_modality(const std::string& name) {
  EMBPRIV_CHECK(name == "visual" || name == "text",
                "modality must be 'visual' or 'text' (or a tensor of 0 = visual, 1 = text per row), got '"
                    << name << "'");
  return name == "text" ? Modality::text : Modality::visual;
}

// A config dict, or the same map as YAML text (make_mechanism's own parsing and messages).
std::shared_ptr<Mechanism> make_from_python(const py::handle& config) {
  if (py::isinstance<py::str>(config)) return make_mechanism(config.cast<std::string>(), registry());
  return registry().make(yaml_from_python(config));
}

// The modality of each row: None (all visual), 'visual' or 'text' (all rows), or a tensor [N].
at::Tensor modality_column(const py::object& modality, std::int64_t rows) {
  if (modality.is_none()) return {};
  if (py::isinstance<py::str>(modality)) {
    return at::full({rows}, static_cast<std::int64_t>(parse_modality(modality.cast<std::string>())), at::kLong);
  }
  return modality.cast<at::Tensor>();
}

// y = M(x) with row i drawing from Rng(seed, first_row + i) (core/rng.h): the bytes the command
// line gives for the same stream. x is read in place when it is a contiguous float32 CPU tensor.
at::Tensor perturb(const Mechanism& mechanism, const at::Tensor& x, std::uint64_t seed,
                   const py::object& mask, const py::object& modality, std::int64_t first_row) {
  EMBPRIV_CHECK(first_row >= 0, "first_row must be >= 0, got " << first_row);
  RowChannels channels;
  channels.mask = mask.is_none() ? at::Tensor() : mask.cast<at::Tensor>();
  channels.modality = modality_column(modality, x.defined() && x.dim() > 0 ? x.size(0) : 0);
  py::gil_scoped_release unlocked;
  return mechanism.perturb(x, RandomStream{seed, first_row}, channels);
}

py::object prediction(const Prediction& p) {
  if (!p.known()) return py::none();
  return py::float_(p.value);
}

}  // namespace

void bind_mechanisms(py::module_& m) {
  py::class_<PrivacyClaim>(m, "PrivacyClaim", "What a mechanism's paper promises (mechanisms/mechanism.h)")
      .def_readonly("kind", &PrivacyClaim::kind, "metric_dp, pure_dp, approx_dp or none")
      .def_readonly("epsilon", &PrivacyClaim::epsilon)
      .def_readonly("delta", &PrivacyClaim::delta)
      .def_readonly("neighbours", &PrivacyClaim::neighbours)
      .def_readonly("note", &PrivacyClaim::note)
      .def("describe", &PrivacyClaim::describe)
      .def("__str__", &PrivacyClaim::describe)
      .def("__repr__", [](const PrivacyClaim& c) { return "PrivacyClaim(" + c.describe() + ")"; });

  py::class_<Mechanism, std::shared_ptr<Mechanism>>(m, "Mechanism",
                                                    "A per-vector privacy mechanism, valid once built")
      .def_property_readonly("name", &Mechanism::name)
      .def_property_readonly("epsilon", &Mechanism::epsilon, "the system budget (visual rows)")
      .def_property_readonly("alpha", &Mechanism::alpha, "eps_text = alpha * eps (vMF paper, Def. 6.1)")
      .def("epsilon_for",
           [](const Mechanism& mech, const std::string& modality) { return mech.epsilon_for(parse_modality(modality)); },
           py::arg("modality") = "visual")
      .def("perturb", &perturb, py::arg("x"), py::kw_only(), py::arg("seed"), py::arg("mask") = py::none(),
           py::arg("modality") = py::none(), py::arg("first_row") = 0,
           "y = M(x) for every row of x [N, d] (any floating dtype; returned in x's dtype). Row i "
           "draws from the generator (seed, first_row + i). mask [N]: 0 leaves a row unchanged; "
           "modality: 'visual', 'text' or a tensor [N] of 0/1.")
      .def("claim", [](const Mechanism& mech, const std::string& modality) { return mech.claim(parse_modality(modality)); },
           py::arg("modality") = "visual")
      .def("theory_cosine",
           [](const Mechanism& mech, std::int64_t d, const std::string& modality) {
             return prediction(mech.cosine(d, mech.epsilon_for(parse_modality(modality))));
           },
           py::arg("d"), py::arg("modality") = "visual",
           "E[cos(x, y)] by the mechanism's theory at dimension d, None without a closed form")
      .def("theory_dot_product_factor",
           [](const Mechanism& mech, std::int64_t d, const std::string& modality) {
             return prediction(mech.dot_product_factor(d, mech.epsilon_for(parse_modality(modality))));
           },
           py::arg("d"), py::arg("modality") = "visual",
           "F in E[y1^T y2] = F x1^T x2 (vMF paper, Thm 5.3), None without a closed form")
      .def("__repr__", [](const Mechanism& mech) {
        std::ostringstream text;
        text << "Mechanism(" << mech.name() << ", epsilon=" << mech.epsilon() << ", alpha=" << mech.alpha()
             << ")";
        return text.str();
      });

  m.def("mechanism", &make_from_python, py::arg("config"),
        "A mechanism from a dict such as {'name': 'vmf', 'epsilon': 2, 'beta': 1} or the same map "
        "as YAML text; unknown names and keys raise ValueError listing the valid ones");
  m.def("mechanism_names", [] { return registry().names(); });
}

}  // namespace embpriv::python
