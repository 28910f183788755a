"""``olearn serve``: an online learner behind an HTTP/JSON service that keeps learning, durably.

Built on Starlette and uvicorn (the ``olearn[serve]`` extra); ``import olearn``
never imports them. Modules: :mod:`._requests` (reading bodies),
:mod:`._model` (applying updates), :mod:`._wal` and :mod:`._store` (the
write-ahead log, snapshots and recovery), :mod:`._writer` (group commit),
:mod:`._app` (routes, token, caps), :mod:`._metrics`, :mod:`._openapi`, and
:mod:`._service` (running it all). See ``docs/serve.md``.
"""

from ._service import serve

__all__ = ["serve"]
