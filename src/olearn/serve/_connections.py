"""Connections no client can exhaust: bounded request heads, timed-out slow heads and bodies, a connection cap.

uvicorn's HTTP protocol (on httptools) keeps reading a request's head for
as long as it comes, however large and however slowly, and accepts every
connection until the process runs out of file descriptors. The protocol of
:func:`guarded_protocol` adds, per connection:

* the head of a request (request line and headers) is refused with 431 past
  ``max_header_bytes`` or ``max_headers`` headers, counted as the bytes
  arrive, before the parser has buffered more than one read past the limit;
* a head must be complete within ``header_timeout`` seconds of its first
  byte (of the connection, for the first request), and a body within
  ``body_timeout`` seconds of its head: else 408 and the connection closes
  (the next head on a kept-alive connection too; only the connection closes
  when an answer is under way, which a 408 would break into).
  An idle kept-alive connection is closed by uvicorn's keep-alive timeout;
* past ``max_connections`` open connections, a new one is answered 503 and
  closed at once, so that its file descriptor is freed.

Its writes of one turn of the event loop (an answer's head and body) are
sent together (:mod:`._joined_writes`).

:func:`raise_open_files_limit` lifts the process's soft limit on open files
to its hard limit, so that the cap on connections, not the system, decides.
"""

import contextlib
import json
import sys

from ._joined_writes import JoinedWrites


class ConnectionLimits:
    """The bounds of :func:`guarded_protocol`: bytes and number of headers, the seconds a head and a body may
    take, and the most open connections."""

    def __init__(self, max_header_bytes=64 << 10, max_headers=100, header_timeout=10.0, body_timeout=30.0,
                 max_connections=1000):
        self.max_header_bytes = max_header_bytes
        self.max_headers = max_headers
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.max_connections = max_connections


def raise_open_files_limit():
    """Raise the soft limit on open files (RLIMIT_NOFILE) to the hard one; the soft limit then (None off POSIX)."""
    try:
        import resource
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # an unlimited hard limit may be above what the kernel allows: the soft limit then stays
    with contextlib.suppress(ValueError, OSError):
        if soft != hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return soft


class _Refused(Exception):
    """Stops the parser after a refusal was sent."""


def guarded_protocol(limits):
    """uvicorn's httptools protocol class, bounded by ``limits`` (a :class:`ConnectionLimits`)."""
    from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

    class GuardedProtocol(HttpToolsProtocol):
        def connection_made(self, transport):
            # every write of the connection goes through the JoinedWrites: an answer's head and body go out together
            super().connection_made(JoinedWrites(transport, self.loop))
            self._head_bytes = 0
            self._heads = 0  # heads completed on this connection
            self._reading_head = True
            self._deadline = None  # when the head or body being read is late (loop time), or None
            self._late = None  # the message of a 408 then
            self._timer = None  # the connection's timer, and the time it fires at (see _arm)
            self._timer_at = None
            self._refused = False
            if len(self.connections) > limits.max_connections:
                self._refuse(503, f"the service has {limits.max_connections} connections open; retry later")
            else:
                self._arm(limits.header_timeout, "the request's head was not complete in time")

        def connection_lost(self, exc):
            self._stop_timer()
            super().connection_lost(exc)

        def data_received(self, data):
            if self._refused:
                return
            if self._reading_head and self._deadline is None:
                self._arm(limits.header_timeout, "the request's head was not complete in time")
            in_head, heads = self._reading_head, self._heads
            super().data_received(data)
            # a read counts when it is all head: one that completes a head or a body may start the next head,
            # which is then counted from the next read on
            if in_head and self._reading_head and not self._refused and self._heads == heads:
                self._head_bytes += len(data)
                if self._head_bytes > limits.max_header_bytes:
                    self._refuse(431, f"the request's head is over {limits.max_header_bytes} bytes")
                elif self.headers is not None and len(self.headers) > limits.max_headers:
                    self._refuse(431, f"the request has over {limits.max_headers} headers")

        def on_headers_complete(self):
            # the headers are counted once a read is parsed (data_received), and here, before the request goes to
            # the application: a Python call per header would cost more than the count
            if len(self.headers) > limits.max_headers:
                self._refuse(431, f"the request has over {limits.max_headers} headers")
                raise _Refused
            self._heads += 1
            self._reading_head = False
            self._arm(limits.body_timeout, "the request's body was not complete in time")
            super().on_headers_complete()

        def on_message_complete(self):
            self._deadline = None
            self._reading_head = True
            self._head_bytes = 0
            super().on_message_complete()

        def send_400_response(self, msg):
            if not self._refused:  # the parser stopped by a refusal already answered
                super().send_400_response(msg)

        def _arm(self, seconds, message):
            """Answer 408 with ``message`` (or close the connection) ``seconds`` from now, unless the head or body
            being read is complete first (its deadline then cleared). A deadline, checked by one timer of the
            connection when it fires (:meth:`_check`), which is made again only for an earlier deadline or once it
            has fired: a request on a kept-alive connection sets two deadlines and makes no timer."""
            deadline = self.loop.time() + seconds
            self._deadline, self._late = deadline, message
            if self._timer is None or self._timer_at > deadline:
                self._stop_timer()
                self._timer = self.loop.call_at(deadline, self._check)
                self._timer_at = deadline

        def _check(self):
            self._timer = None
            deadline = self._deadline
            if deadline is None:
                return
            if self.loop.time() < deadline:  # a later deadline, set since the timer was made
                self._timer = self.loop.call_at(deadline, self._check)
                self._timer_at = deadline
            else:
                self._expired(self._late)

        def _stop_timer(self):
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _expired(self, message):
            self._deadline = None
            if self._answer_unfinished():
                self.transport.close()  # a 408 would be sent inside or before that answer: only the connection can go
            else:
                self._refuse(408, message)

        def _answer_unfinished(self):
            """Whether an answer is under way that a 408 now would break into: the answer of the request whose body
            is late, once started; while a head is late, the previous request's answer until it is complete (on a
            kept-alive connection that answer's cycle is still ``self.cycle``, done)."""
            cycle = self.cycle
            if cycle is None:
                return False
            return not cycle.response_complete if self._reading_head else cycle.response_started

        def _refuse(self, status, message):
            """Answer ``status`` with the JSON error ``message`` and close the connection."""
            self._refused = True
            self._deadline = None
            self._stop_timer()
            if self.cycle is not None:
                self.cycle.keep_alive = False
            if not self.transport.is_closing():
                body = json.dumps({"error": message}).encode()
                self.transport.write(STATUS_LINE[status] + b"content-type: application/json\r\ncontent-length: "
                                     + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)
                self.transport.close()

    return GuardedProtocol


def check_open_files(soft, max_connections):
    """Warn when the open files allowed (``soft``) leave too few for ``max_connections`` and the state's files."""
    if soft is not None and soft != -1 and soft < max_connections + 64:
        print(f"olearn serve: warning: the process may open {soft} files, too few for --max-connections "
              f"{max_connections} (and the state's files): raise 'ulimit -n' or lower --max-connections",
              file=sys.stderr, flush=True)
