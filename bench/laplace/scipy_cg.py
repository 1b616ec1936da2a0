"""Solve the system written by `system write` once with SciPy's conjugate
gradients, preconditioned by the diagonal (Jacobi; SciPy has no AMG), to the
same relative residual 1e-10, and time a sparse matrix-vector product.
Prints one JSON line."""
import json
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp
import scipy.sparse.linalg as spla

d = sys.argv[1]
indptr = np.fromfile(f"{d}/indptr.i64", dtype="<i8")
indices = np.fromfile(f"{d}/indices.i32", dtype="<i4")
data = np.fromfile(f"{d}/data.f64", dtype="<f8")
b = np.fromfile(f"{d}/b.f64", dtype="<f8")
n = len(b)
A = sp.csr_matrix((data, indices, indptr), shape=(n, n))

x = np.ones(n)
times = []
for _ in range(10):
    t0 = time.perf_counter()
    A @ x
    times.append(time.perf_counter() - t0)
spmv = float(np.median(times))

M = sp.diags(1.0 / A.diagonal())
iters = [0]


def count(_):
    iters[0] += 1


t0, c0 = time.perf_counter(), time.process_time()
try:
    sol, info = spla.cg(A, b, rtol=1e-10, atol=0.0, M=M, maxiter=100000, callback=count)
except TypeError:  # SciPy < 1.12 calls the relative tolerance tol
    sol, info = spla.cg(A, b, tol=1e-10, atol=0.0, M=M, maxiter=100000, callback=count)
cg_s, cg_cpu_s = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({
    "scipy": scipy.__version__,
    "spmv_ns_per_nnz": spmv / A.nnz * 1e9,
    "jacobi_cg_s": cg_s,
    "jacobi_cg_cpu_s": cg_cpu_s,
    "jacobi_cg_iterations": iters[0],
    "relative_residual": float(np.linalg.norm(b - A @ sol) / np.linalg.norm(b)),
    "info": int(info),
}))
