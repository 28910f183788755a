"""``olearn serve``: a learner behind an HTTP/JSON service that keeps learning, durably.

Needs Starlette, uvicorn and prometheus_client (``pip install "olearn[serve]"``),
imported only when :func:`serve` is called; ``import olearn`` never imports them.
The command ``olearn serve`` calls :func:`serve`; see docs/serve.md for the
routes and the guarantees.

The modules: ``_requests`` (reading bodies), ``_model`` (applying updates),
``_wal`` and ``_store`` (the write-ahead log, snapshots and recovery),
``_lock`` (one service per state folder), ``_writer`` (group commit),
``_app`` (routes, caps), ``_dashboard`` (the live page, ``GET /``), ``_vw_daemon`` (VW's daemon protocol, ``--vw-port``), ``_auth`` (tokens and Host names), ``_connections``
(bounds on connections), ``_model_file`` (``GET /model``), ``_files``
(permissions), ``_metrics``, ``_openapi``, ``_warmup`` (the kernels compiled
before any request), ``_startup`` (``/live`` and ``/ready`` while the state is
recovered), ``_feedback`` (predictions waiting for their label, by id), ``_progress``
(the progressive metric since the state began), ``_versions`` (numbered versions
to roll back to), and ``_service`` (running it all).
"""

from ._service import serve

__all__ = ["serve"]
