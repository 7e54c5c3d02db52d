"""The workers of a Dask client (one query for the operators, the Laplacian and the kNN graph)."""


def dask_workers(client, wait=60.0):
    """The addresses of the client's workers, sorted, asked of the scheduler (``Client.nthreads``: a fresh
    query; ``scheduler_info()`` may answer from a cache whose worker list is empty, and a fit failed with "the
    Dask client has no workers" on a two-worker cluster under load); waits up to ``wait`` seconds for one."""
    workers = sorted(client.nthreads())
    if not workers:
        try:
            client.wait_for_workers(1, timeout=wait)
        except Exception:       # a timeout (its type differs between releases): the caller says "no workers"
            pass
        workers = sorted(client.nthreads())
    return workers
