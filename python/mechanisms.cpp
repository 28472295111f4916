// embpriv.mechanism(...) and the Mechanism class: the per-vector mechanisms of mechanisms/ on
// torch tensors (mechanisms/mechanism.h).
#include <torch/csrc/utils/pybind.h>

#include <ATen/ATen.h>

#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <string>

#include "core/error.h"
#include "experiments/engine/mechanism_yaml.h"
#include "mechanisms/registry.h"
#include "python/bindings.h"
#include "python/python_values.h"

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

// A dict read straight into the mechanisms layer's MechanismConfig (no YAML): only its top level
// is looked at, so a dict that holds itself or a deep nest is an ordinary wrong value.
MechanismConfig config_from_dict(const py::dict& dict) {
  MechanismConfig config;
  for (const auto& item : dict) {
    EMBPRIV_CHECK(py::isinstance<py::str>(item.first),
                  "a mechanism key must be a str, got " << type_name(item.first));
    const std::string key = item.first.cast<std::string>();
    if (key == "name") {
      EMBPRIV_CHECK(py::isinstance<py::str>(item.second),
                    "a mechanism's name must be a str, got " << type_name(item.second) << "; valid: "
                                                             << [] {
                                                                  std::string names;
                                                                  for (const auto& n : registry().names()) {
                                                                    names += (names.empty() ? "" : ", ") + n;
                                                                  }
                                                                  return names;
                                                                }());
      config.name = item.second.cast<std::string>();
      continue;
    }
    config.values.emplace_back(key, param_value(item.second));
  }
  return config;
}

// A config dict, or the same map as YAML text (read by the engine's YAML adapter, as a config
// file's mechanism map is).
std::shared_ptr<Mechanism> make_from_python(const py::handle& config) {
  if (py::isinstance<py::str>(config)) return make_mechanism(config.cast<std::string>(), registry());
  if (!py::isinstance<py::dict>(config)) {
    throw py::type_error("mechanism(config): config must be a dict such as {'name': 'vmf', 'epsilon': 2} or "
                         "YAML text, got " + type_name(config));
  }
  return registry().make(config_from_dict(config.cast<py::dict>()));
}

// The modality of each row: None (all visual), 'visual' or 'text' (all rows), or a tensor [N].
at::Tensor modality_column(const py::object& modality, std::int64_t rows) {
  if (modality.is_none()) return {};
  if (py::isinstance<py::str>(modality)) {
    return at::full({rows}, static_cast<std::int64_t>(parse_modality(modality.cast<std::string>())), at::kLong);
  }
  return tensor_argument(modality, "modality").clone();
}

// "float16", "bfloat16": a floating dtype as torch names it.
std::string dtype_name(at::ScalarType type) {
  switch (type) {
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    default: return c10::toString(type);
  }
}

// The first (row, column) where `bad` [N, d] is true.
std::pair<std::int64_t, std::int64_t> first_true(const at::Tensor& bad) {
  const at::Tensor where = bad.nonzero();
  return {where[0][0].item<std::int64_t>(), where[0][1].item<std::int64_t>()};
}

// y = M(x) with row i drawing from Rng(seed, first_row + i) (core/rng.h): the bytes the command
// line gives for the same stream. The mechanisms compute in float32 (mechanisms/mechanism.h):
// x is copied to float32 while the GIL is held, so another thread that changes x while the GIL is
// released cannot change what is read; a float64 value beyond float32's range, a result that is
// not finite in float32 and one that does not fit x's dtype are refused, naming the row.
at::Tensor perturb(const Mechanism& mechanism, const at::Tensor& x, const py::object& seed_object,
                   const py::object& mask, const py::object& modality, std::int64_t first_row) {
  const std::uint64_t seed = seed_argument(seed_object, "seed");
  EMBPRIV_CHECK(first_row >= 0, "first_row must be >= 0, got " << first_row);
  RowChannels channels;
  channels.mask = mask.is_none() ? at::Tensor() : tensor_argument(mask, "mask").clone();
  channels.modality = modality_column(modality, x.defined() && x.dim() > 0 ? x.size(0) : 0);
  if (!x.defined() || x.dim() != 2 || !x.is_floating_point()) {
    py::gil_scoped_release unlocked;
    return mechanism.perturb(x, RandomStream{seed, first_row}, channels);  // refuses it, naming why
  }
  constexpr double kFloatMax = std::numeric_limits<float>::max();
  if (x.scalar_type() == at::kDouble) {
    const at::Tensor beyond = at::isfinite(x).logical_and(x.abs() > kFloatMax);
    if (beyond.any().item<bool>()) {
      const auto [row, column] = first_true(beyond);
      EMBPRIV_CHECK(false, "row " << first_row + row << " has a value (" << x[row][column].item<double>()
                                  << ") at column " << column << " beyond float32's range (" << kFloatMax
                                  << "), in which the mechanisms compute");
    }
  }
  const at::Tensor input = x.to(at::kCPU, at::kFloat, /*non_blocking=*/false, /*copy=*/true).contiguous();
  at::Tensor y;
  {
    py::gil_scoped_release unlocked;
    y = mechanism.perturb(input, RandomStream{seed, first_row}, channels);
  }
  const at::Tensor not_finite = at::isfinite(y).logical_not();
  if (not_finite.any().item<bool>()) {
    const auto [row, column] = first_true(not_finite);
    EMBPRIV_CHECK(false, mechanism.name() << ": the output of row " << first_row + row << " is not finite in float32 ("
                                          << y[row][column].item<float>() << " at column " << column
                                          << "): its norm or the noise overflows; scale the rows down or raise epsilon");
  }
  at::Tensor out = y.to(x.device(), x.scalar_type());
  if (x.scalar_type() != at::kFloat && x.scalar_type() != at::kDouble) {
    const at::Tensor lost = at::isfinite(out).logical_not();
    if (lost.any().item<bool>()) {
      const auto [row, column] = first_true(lost.cpu());
      EMBPRIV_CHECK(false, mechanism.name() << ": the output of row " << first_row + row << " does not fit "
                                            << dtype_name(x.scalar_type()) << " (" << y[row][column].item<float>() << " at column "
                                            << column << "); pass x as float32");
    }
  }
  return out;
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
      .def_readonly("epsilon_actual", &PrivacyClaim::epsilon_actual,
                    "the eps the noise really gives at delta (Gaussian: Balle & Wang 2018; Laplace, vMF: epsilon; "
                    "vmf_tangent: inf)")
      .def_readonly("epsilon_actual_source", &PrivacyClaim::epsilon_actual_source)
      .def_readonly("sigma", &PrivacyClaim::sigma, "the Gaussian noise per coordinate (NaN otherwise)")
      .def_readonly("sensitivity", &PrivacyClaim::l2_sensitivity, "Delta2 of the Gaussian noise (NaN otherwise)")
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
           "modality: 'visual', 'text' or a tensor [N] of 0/1. x is copied (to float32, in which "
           "the mechanisms compute) before the GIL is released; a result that is not finite, or "
           "does not fit x's dtype, raises ValueError.")
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
        "as YAML text; unknown names and keys, and values of the wrong kind or out of range, raise "
        "ValueError with the command line's message (mechanism_keys lists each key's default, "
        "range and help)");
  m.def("mechanism_names", [] { return registry().names(); });
  m.def(
      "mechanism_keys",
      [](const std::string& name) {
        py::list keys;
        for (const ParamSpec& spec : registry().entry(name).keys) {
          py::dict key;
          key["name"] = spec.name;
          key["default"] = spec.required ? py::object(py::none())
                           : spec.number_default ? py::object(py::float_(*spec.number_default))
                           : spec.text_default ? py::object(py::str(*spec.text_default))
                                               : py::object(py::none());
          key["required"] = spec.required;
          key["range"] = spec.range_text();
          key["help"] = spec.help;
          keys.append(key);
        }
        return keys;
      },
      py::arg("name"),
      "The keys of mechanism `name` besides 'name', each a dict: name, default (None when "
      "required), required, range and help (the declarations of mechanisms/mechanism_params.h)");
}

}  // namespace embpriv::python
