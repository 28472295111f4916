// embpriv.theory: the closed forms of the vMF paper and the Gaussian calibrations
// (mechanisms/theory.h, mechanisms/gaussian_calibration.h). The C++ functions expect checked
// arguments (the mechanisms' constructors check them); here every argument is checked first,
// with the constructors' helpers (core/params.h), so bad input raises ValueError.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "core/params.h"
#include "mechanisms/gaussian_calibration.h"
#include "mechanisms/theory.h"
#include "python/bindings.h"

namespace py = pybind11;

namespace embpriv::python {
namespace {

std::int64_t dimension(std::int64_t d) { return require_at_least("dimension d", d, 2); }
double delta_of(double delta) { return require_open_interval("delta", delta, 0.0, 1.0); }
double sensitivity(double l2) { return require_positive("l2_sensitivity", l2); }

}  // namespace

void bind_theory(py::module_& m) {
  py::module_ theory = m.def_submodule("theory", "Closed forms of the vMF paper and the Gaussian calibrations");
  const auto mean_resultant = [](std::int64_t d, double kappa) {
    return vmf_mean_resultant(dimension(d), require_positive("kappa", kappa));
  };
  theory.def("A_d", mean_resultant, py::arg("d"), py::arg("kappa"),
             "A_d(kappa) = I_{d/2}(kappa) / I_{d/2-1}(kappa): E[mu^T z] for z ~ vMF(mu, kappa) on S^{d-1}");
  theory.def("vmf_mean_resultant", mean_resultant, py::arg("d"), py::arg("kappa"), "Same as A_d");
  theory.def(
      "deflection_angle_tangent",
      [](double beta, double epsilon) {
        return deflection_angle_tangent(require_positive("beta", beta), require_positive("epsilon", epsilon));
      },
      py::arg("beta"), py::arg("epsilon"), "theta = arctan(beta / eps) in radians (vMF paper, Prop. 3.1)");
  theory.def(
      "expected_cosine_tangent",
      [](double beta, double epsilon) {
        return expected_cosine_tangent(require_positive("beta", beta), require_positive("epsilon", epsilon));
      },
      py::arg("beta"), py::arg("epsilon"), "cos(theta) = 1 / sqrt(1 + (beta/eps)^2) (vMF paper, Prop. 3.1, Thm 5.2)");
  theory.def(
      "dot_product_factor_tangent",
      [](double beta, double epsilon) {
        return dot_product_factor_tangent(require_positive("beta", beta), require_positive("epsilon", epsilon));
      },
      py::arg("beta"), py::arg("epsilon"), "cos^2(theta) (vMF paper, Thm 5.3)");
  theory.def(
      "dot_product_factor_vmf",
      [](std::int64_t d, double kappa) { return dot_product_factor_vmf(dimension(d), require_positive("kappa", kappa)); },
      py::arg("d"), py::arg("kappa"), "A_d(kappa)^2 (vMF paper, Thm 5.3)");
  theory.def("gaussian_expected_squared_norm", &gaussian_expected_squared_norm, py::arg("squared_norm_x"),
             py::arg("d"), py::arg("sigma"), "||x||^2 + d sigma^2 (vMF paper, Thm 5.4)");
  theory.def(
      "classic_gaussian_sigma",
      [](double epsilon, double delta, double l2) {
        return classic_gaussian_sigma(require_positive("epsilon", epsilon), delta_of(delta), sensitivity(l2));
      },
      py::arg("epsilon"), py::arg("delta"), py::arg("l2_sensitivity"),
      "Delta2 sqrt(2 ln(1.25/delta)) / eps (Dwork & Roth 2014, Thm A.1); proven for eps < 1");
  theory.def(
      "analytic_gaussian_sigma",
      [](double epsilon, double delta, double l2) {
        return analytic_gaussian_sigma(require_positive("epsilon", epsilon), delta_of(delta), sensitivity(l2));
      },
      py::arg("epsilon"), py::arg("delta"), py::arg("l2_sensitivity"),
      "The smallest sigma of the analytic Gaussian mechanism (Balle & Wang 2018, Thm 8)");
  theory.def(
      "analytic_gaussian_delta",
      [](double epsilon, double sigma, double l2) {
        return analytic_gaussian_delta(require_positive("epsilon", epsilon), require_positive("sigma", sigma),
                                       sensitivity(l2));
      },
      py::arg("epsilon"), py::arg("sigma"), py::arg("l2_sensitivity"),
      "The delta that sigma achieves at epsilon (Balle & Wang 2018, Thm 8)");
  theory.def(
      "analytic_gaussian_epsilon",
      [](double sigma, double delta, double l2) {
        return analytic_gaussian_epsilon(require_positive("sigma", sigma), delta_of(delta), sensitivity(l2));
      },
      py::arg("sigma"), py::arg("delta"), py::arg("l2_sensitivity"),
      "The smallest epsilon at which sigma gives (epsilon, delta)-DP");
  theory.def(
      "gaussian_sigma",
      [](const std::string& calibration, double epsilon, double delta, double l2) {
        return gaussian_sigma(parse_gaussian_calibration(calibration), require_positive("epsilon", epsilon),
                              delta_of(delta), sensitivity(l2));
      },
      py::arg("calibration"), py::arg("epsilon"), py::arg("delta"), py::arg("l2_sensitivity"),
      "sigma under 'classic' or 'analytic' calibration");
}

}  // namespace embpriv::python
