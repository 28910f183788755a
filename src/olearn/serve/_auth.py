"""Who may call a service: bearer tokens for reads and writes, and the Host names it answers to.

Every route but the probes ``/live`` and ``/ready`` (which say only whether the
process runs and whether it takes requests) needs a token unless the
operator opts out: writes the write token (``--token-file``), reads
(``/predict``, ``/model``, ``/health``, ``/metrics``, ``/openapi.json``) the
read token (``--read-token-file``) or the write token, or nothing with
``--public-reads``. Tokens are compared in constant time (:func:`hmac.compare_digest`).

The Host header is checked on every request, so that a web page whose name an
attacker re-points at this address (DNS rebinding) is refused even when it
reaches the port: the names allowed are the bound address, ``localhost``,
``127.0.0.1`` and ``::1`` when it is a loopback one, any IP address when it is
a wildcard (``0.0.0.0``, ``::``; a page served from an IP address is that
address's own), and the names of ``--allowed-hosts`` (``*`` for any).
"""

import hmac
import ipaddress
import json

WRITE, READ = "write", "read"
_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_WILDCARDS = frozenset({"", "0.0.0.0", "::"})


class Refusal(Exception):
    """A request refused before its route runs: the HTTP status, a message, and headers of the answer."""

    def __init__(self, status, message, headers=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


class Access:
    """The tokens of a service: ``write_token`` and ``read_token`` (bytes or None), and whether reads are public.

    Raises ValueError when reads could never be made: no token at all and not ``public_reads``.
    """

    def __init__(self, write_token=None, read_token=None, public_reads=False):
        if write_token is None and read_token is None and not public_reads:
            raise ValueError("every route but /live and /ready needs a token: give --token-file (writes and reads), "
                             "--read-token-file (reads), or --public-reads to let anyone read")
        self.write_token = write_token
        self.read_tokens = [token for token in (read_token, write_token) if token is not None]
        self.public_reads = public_reads

    def check(self, headers, kind):
        """Refuse (Refusal: 401 or 403) a request of ``kind`` (WRITE or READ) whose ``headers`` lack its token."""
        if kind == READ and self.public_reads:
            return
        if kind == WRITE and self.write_token is None:
            raise Refusal(403, "this service takes no updates: it was started without --token-file")
        tokens = [self.write_token] if kind == WRITE else self.read_tokens
        scheme, _, given = headers.get("authorization", "").partition(" ")
        given = given.strip().encode()
        # every token is compared, so that the time taken does not tell which one was close
        matches = [hmac.compare_digest(given, token) for token in tokens]
        if scheme.lower() != "bearer" or not any(matches):
            raise Refusal(401, "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"})


def host_name(value):
    """The host of a Host header (its port and an IPv6 address's brackets removed, lower case), or None if empty."""
    value = value.strip().lower()
    if value.startswith("["):
        name, bracket, _ = value[1:].partition("]")
        return name if bracket else None
    name, colon, port = value.rpartition(":")
    if colon and port.isdigit() and ":" not in name:
        value = name
    return value.rstrip(".") or None


def _is_ip(name):
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _is_loopback(name):
    return name == "localhost" or (_is_ip(name) and ipaddress.ip_address(name).is_loopback)


class Hosts:
    """The Host names a service bound to ``bound`` answers to, with the names ``allowed`` (``"*"`` for any)."""

    def __init__(self, bound, allowed=()):
        bound = host_name(bound) or ""
        names = {host_name(name) for name in allowed if host_name(name)}
        self.any_name = "*" in names
        self.any_ip = bound in _WILDCARDS
        names.add(bound)
        if _is_loopback(bound) or self.any_ip:
            names |= _LOOPBACK_NAMES
        self.names = frozenset(names - {""})

    def check(self, header):
        """Refuse (Refusal: 400 or 421) a Host header this service does not answer to."""
        if header is None or not header.strip():
            raise Refusal(400, "the request has no Host header")
        name = host_name(header)
        if name is None or not (self.any_name or name in self.names or (self.any_ip and _is_ip(name))):
            raise Refusal(421, f"this service does not answer to the host {header[:100]!r}; start it with "
                               "--allowed-hosts NAME to serve a name that points at it")


class HostCheck:
    """ASGI middleware answering a request whose Host header ``hosts`` refuses (see :class:`Hosts`) with its error.

    The verdicts on the last Host headers seen are remembered (their bytes, at most :data:`_REMEMBERED_HOSTS`), so
    that the requests of a client, which all name the same host, are checked by one look-up."""

    def __init__(self, app, hosts):
        self.app = app
        self.hosts = hosts
        self._verdicts = {}  # a Host header's bytes (None for none) -> None (served), or the refusal's status and message

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            header = None
            for name, value in scope["headers"]:
                if name == b"host":
                    header = value
                    break
            refused = self._verdicts.get(header, _UNSEEN)
            if refused is _UNSEEN:
                refused = self._verdict(header)
            if refused is not None:
                status, message = refused
                body = json.dumps({"error": message}).encode()
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)

    def _verdict(self, header):
        """The status and message of the refusal of the Host ``header`` (bytes or None), or None; remembered."""
        try:
            self.hosts.check(None if header is None else header.decode("latin-1"))
            refused = None
        except Refusal as refusal:
            refused = (refusal.status, refusal.message)
        if len(self._verdicts) >= _REMEMBERED_HOSTS:  # a client sending many names: checked each time, in bounded memory
            self._verdicts.clear()
        self._verdicts[header] = refused
        return refused


# the Host headers whose verdicts a HostCheck remembers: a service sees a few (its names, and a client's spelling)
_REMEMBERED_HOSTS = 64
_UNSEEN = object()
