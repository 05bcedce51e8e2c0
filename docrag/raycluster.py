"""Connecting to Ray: an existing cluster (``--ray-address``) or a small local one started on demand."""

from __future__ import annotations

import logging
import os
from typing import Any

from docrag.errors import MissingDependencyError

log = logging.getLogger(__name__)

LOCAL_OBJECT_STORE = 512 << 20   # bytes of shared memory for a local cluster's object store


def ray_module() -> Any:
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise MissingDependencyError("--engine ray needs Ray: pip install 'ray>=2.40'") from exc
    return ray


def ensure_ray(address: str | None = None, num_cpus: int | None = None) -> Any:
    """The ``ray`` module, connected: to ``address`` (or ``$RAY_ADDRESS``) when given, else to a local
    cluster of ``num_cpus`` CPUs (default: the usable cores). A connection made by the caller
    (``ray.init`` in a script or test) is reused as it is."""
    ray = ray_module()
    if ray.is_initialized():
        return ray
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        log.info("connecting to the Ray cluster at %s", address)
        ray.init(address=address, log_to_driver=False)
    else:
        log.info("starting a local Ray cluster (%s CPUs)", num_cpus or "all")
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                 object_store_memory=LOCAL_OBJECT_STORE)
    return ray


def cluster_cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def cluster_gpus(ray: Any) -> int:
    return int(ray.cluster_resources().get("GPU", 0))
