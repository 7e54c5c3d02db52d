"""The Dask client and its workers: one lookup and one query for the operators, the Laplacian and the kNN graph."""


def get_dask_client(client=None, *, argument="backend='dask'"):
    """The given client, else the active one (``distributed.get_client()``: the worker's client inside a task,
    else the default client); a clear error without one.

    ``argument`` names the option that asked for Dask in the messages (``backend='dask'`` for the operators,
    ``executor='dask'`` for the kNN graph).
    """
    try:
        from distributed import Client, get_client
    except ImportError as exc:
        raise ImportError(f"{argument} needs dask.distributed: pip install 'graphrkhs[dask]' "
                          "(dask[distributed]).") from exc
    if client is not None:
        if not isinstance(client, Client):
            raise TypeError(f"client must be a distributed.Client; got {type(client).__name__}.")
        return client
    try:
        return get_client()
    except ValueError as exc:
        raise ValueError(f"{argument} needs an active distributed.Client: create one first "
                         "(client = distributed.Client(...)) or pass it.") from exc


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
