"""embpriv.theory against independent references (SciPy's Bessel functions and normal CDF)."""
import math

import pytest
from scipy import special, stats

import embpriv


@pytest.mark.parametrize("d, kappa", [(2, 0.5), (3, 10.0), (64, 30.0), (768, 300.0), (4096, 5000.0)])
def test_A_d_is_the_bessel_ratio(d, kappa):
    # A_d(kappa) = I_{d/2}(kappa) / I_{d/2-1}(kappa) (vMF paper, Thm 5.3); ive scales both alike.
    reference = special.ive(d / 2, kappa) / special.ive(d / 2 - 1, kappa)
    assert embpriv.theory.A_d(d, kappa) == pytest.approx(reference, rel=1e-12)


def test_tangent_closed_forms():
    assert embpriv.theory.deflection_angle_tangent(1, 2) == pytest.approx(math.atan(0.5), rel=1e-15)
    assert embpriv.theory.expected_cosine_tangent(1, 2) == pytest.approx(math.cos(math.atan(0.5)), rel=1e-15)
    assert embpriv.theory.dot_product_factor_tangent(1, 2) == pytest.approx(0.8, rel=1e-15)
    assert embpriv.theory.dot_product_factor_vmf(64, 30.0) == pytest.approx(embpriv.theory.A_d(64, 30.0) ** 2, rel=1e-15)


def test_classic_gaussian_calibration():
    # Dwork & Roth (2014), Thm A.1.
    expected = 2 * math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5
    assert embpriv.theory.classic_gaussian_sigma(0.5, 1e-5, 2) == pytest.approx(expected, rel=1e-15)
    assert embpriv.theory.gaussian_sigma("classic", 0.5, 1e-5, 2) == embpriv.theory.classic_gaussian_sigma(0.5, 1e-5, 2)


@pytest.mark.parametrize("epsilon, delta", [(0.5, 1e-5), (2.0, 1e-6), (8.0, 1e-5)])
def test_analytic_gaussian_calibration_meets_balle_wang(epsilon, delta):
    sigma = embpriv.theory.analytic_gaussian_sigma(epsilon, delta, 1.0)
    # Balle & Wang (2018), Thm 8, evaluated with SciPy's normal CDF.
    def achieved(s):
        return stats.norm.cdf(0.5 / s - epsilon * s) - math.exp(epsilon) * stats.norm.cdf(-0.5 / s - epsilon * s)
    assert achieved(sigma) == pytest.approx(delta, rel=1e-6)
    assert achieved(sigma * 0.999) > delta  # the smallest such sigma
    assert embpriv.theory.analytic_gaussian_epsilon(sigma, delta, 1.0) == pytest.approx(epsilon, rel=1e-9)


def test_bad_theory_arguments_raise_value_error():
    with pytest.raises(ValueError):
        embpriv.theory.gaussian_sigma("exact", 1, 1e-5, 1)
    with pytest.raises(ValueError, match="epsilon must be finite and > 0, got -1"):
        embpriv.theory.analytic_gaussian_sigma(-1, 1e-5, 1)
    with pytest.raises(ValueError, match="delta"):
        embpriv.theory.classic_gaussian_sigma(0.5, 1.5, 1)
    with pytest.raises(ValueError, match="kappa"):
        embpriv.theory.A_d(16, 0.0)
    with pytest.raises(ValueError, match="dimension d"):
        embpriv.theory.A_d(1, 3.0)
