"""Row-wise operations on sparse matrices of a few rows (queries, picks), done on the CSR arrays.

A digest run makes thousands of these; scikit-learn's ``normalize`` and scipy's ``diags @ m`` spend
far longer checking their arguments than computing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse


def unit_rows(matrix: sparse.spmatrix) -> sparse.csr_matrix:
    """A float32 CSR copy with every row scaled to unit L2 length (empty rows stay empty)."""
    out = sparse.csr_matrix(matrix, dtype=np.float32, copy=True)
    lengths = np.diff(out.indptr)
    squares = np.bincount(np.repeat(np.arange(out.shape[0]), lengths),
                          weights=np.square(out.data, dtype=np.float64), minlength=out.shape[0])
    norms = np.sqrt(squares)
    norms[norms == 0] = 1.0
    out.data /= np.repeat(norms, lengths).astype(np.float32)
    return out


def scale_rows(matrix: sparse.csr_matrix, factors: Sequence[float] | np.ndarray) -> sparse.csr_matrix:
    """``diag(factors) @ matrix`` for a CSR matrix, as float32 CSR (the input is left alone)."""
    factors = np.asarray(factors, dtype=np.float32)
    data = (matrix.data * np.repeat(factors, np.diff(matrix.indptr))).astype(np.float32, copy=False)
    return sparse.csr_matrix((data, matrix.indices.copy(), matrix.indptr.copy()), shape=matrix.shape)


def take_rows(matrix: sparse.csr_matrix, rows: Sequence[int] | np.ndarray) -> sparse.csr_matrix:
    """``matrix[rows]`` for a CSR matrix (rows in any order, repeats allowed)."""
    rows = np.asarray(rows, dtype=np.int64)
    starts, ends = matrix.indptr[rows], matrix.indptr[rows + 1]
    lengths = ends - starts
    indptr = np.zeros(len(rows) + 1, dtype=offsets_dtype(matrix.indices.dtype, int(lengths.sum())))
    np.cumsum(lengths, out=indptr[1:])
    take = np.repeat(starts - indptr[:-1], lengths) + np.arange(indptr[-1])
    return sparse.csr_matrix((matrix.data[take], matrix.indices[take], indptr),
                             shape=(len(rows), matrix.shape[1]))


def offsets_dtype(indices: np.dtype, nnz: int) -> np.dtype:
    """The type for a CSR matrix's row offsets: the ``indices``' own integer type when ``nnz`` fits it.
    scipy then takes the arrays as they are, where offsets of a wider type make it scan both arrays for
    their range (a quarter of a few rows' cost)."""
    return np.dtype(indices) if nnz <= np.iinfo(indices).max else np.dtype(np.int64)


def dense_row(matrix: sparse.csr_matrix, row: int = 0) -> np.ndarray:
    """One row as a dense float32 vector."""
    out = np.zeros(matrix.shape[1], dtype=np.float32)
    span = slice(matrix.indptr[row], matrix.indptr[row + 1])
    out[matrix.indices[span]] = matrix.data[span]
    return out
