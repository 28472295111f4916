"""embpriv.nearest_rows against a brute-force search in torch."""
import pytest
import torch

import embpriv


def test_cosine_and_l2_neighbours_match_brute_force():
    table = embpriv.random_directions(500, 24, 0.5, 2.0, seed=1)
    queries = embpriv.random_directions(30, 24, 0.5, 2.0, seed=2)
    indices, scores = embpriv.nearest_rows(queries, table, 5)
    cos = torch.nn.functional.normalize(queries.double(), dim=1) @ torch.nn.functional.normalize(table.double(), dim=1).T
    assert torch.equal(indices, cos.topk(5, dim=1).indices)
    assert torch.allclose(scores.double(), cos.topk(5, dim=1).values, atol=1e-5)
    l2_indices, l2_scores = embpriv.nearest_rows(queries, table, 3, metric="l2")
    distance = torch.cdist(queries.double(), table.double()) ** 2
    assert torch.equal(l2_indices, distance.topk(3, dim=1, largest=False).indices)
    assert torch.allclose(-l2_scores.double(), distance.topk(3, dim=1, largest=False).values, atol=1e-4)


def test_a_perturbed_row_is_found_near_its_input():
    table = embpriv.random_directions(300, 64, 1.0, 1.0, seed=3)
    y = embpriv.mechanism({"name": "vmf_tangent", "epsilon": 20, "beta": 1}).perturb(table[:50], seed=4)
    indices, _ = embpriv.nearest_rows(y, table, 1)
    assert torch.equal(indices[:, 0], torch.arange(50))


def test_excluded_rows_and_bad_k():
    table = embpriv.random_directions(20, 8, 1.0, 1.0, seed=5)
    excluded = torch.zeros(20, dtype=torch.bool)
    excluded[:10] = True
    indices, _ = embpriv.nearest_rows(table[:10], table, 2, excluded=excluded)
    assert bool((indices >= 10).all())
    with pytest.raises(ValueError):
        embpriv.nearest_rows(table, table, 50)
    with pytest.raises(ValueError):
        embpriv.nearest_rows(table, table, 2, metric="manhattan")
