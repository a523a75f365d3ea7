import numpy as np
import pytest
from scipy import sparse
from sklearn.preprocessing import normalize

from recommender.rows import dense_row, scale_rows, take_rows, unit_rows


@pytest.fixture
def matrix():
    rng = np.random.default_rng(0)
    m = sparse.random(7, 50, density=0.2, format="csr", dtype=np.float32, random_state=rng)
    keep = np.ones(7, dtype=np.float32)
    keep[3] = 0  # an empty row
    m = sparse.csr_matrix(sparse.diags(keep) @ m)
    m.eliminate_zeros()
    return m


def test_unit_rows_matches_sklearn_and_keeps_empty_rows_empty(matrix):
    out = unit_rows(matrix)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.toarray(), normalize(matrix, norm="l2").toarray(), rtol=1e-6)
    assert out[3].nnz == 0
    assert matrix is not out and not np.shares_memory(matrix.data, out.data)


def test_scale_rows_is_a_diagonal_product_and_leaves_input_alone(matrix):
    before = matrix.toarray().copy()
    factors = np.arange(7, dtype=np.float32) - 2
    out = scale_rows(matrix, factors)
    np.testing.assert_allclose(out.toarray(), (sparse.diags(factors) @ matrix).toarray(), rtol=1e-6)
    np.testing.assert_array_equal(matrix.toarray(), before)


def test_take_rows_matches_fancy_indexing_with_repeats_and_any_order(matrix):
    rows = [5, 0, 3, 5, 6]
    np.testing.assert_array_equal(take_rows(matrix, rows).toarray(), matrix[rows].toarray())
    assert take_rows(matrix, []).shape == (0, 50)


def test_dense_row(matrix):
    np.testing.assert_array_equal(dense_row(matrix, 2), matrix[2].toarray().ravel())
