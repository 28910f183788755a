"""Vowpal Wabbit's daemon protocol (``olearn serve --vw-port``): VW-format lines over a plain TCP connection.

As ``vw --daemon`` does, a client writes VW lines (``label [importance] [tag]|namespace features ...``) and reads
one prediction line per example line, in order: a labelled line is predicted, then learned (its prediction is
the one made before learning, as ``/predict_learn``'s); an unlabelled line is predicted only. Blank lines are
skipped, with no answer. A prediction line is what ``olearn predict`` writes for the line (a label, or a
regressor's value), followed by a space and the line's tag when it has one (``0.5 tag``, as VW writes it).

A line is read as ``olearn run`` and ``olearn predict`` read a VW file (:mod:`olearn.data._vw`: names hashed
into ``2**n_bits`` columns, the namespace options of the model's training file), and becomes an update of the
service's writer like a JSON request whose keys are those columns: the same log, durability (a learned line is
answered once it is fsynced; consecutive labelled lines share one update), caps (``--max-features``,
``--max-index``, ``--classes``; a line at most ``--max-body-bytes``) and order. A line the service refuses is
answered ``error: MESSAGE``, the model unchanged, and the connection goes on.

Connections are bounded as the HTTP side bounds its own (:mod:`._connections`): past ``max_connections`` open
VW connections a new one is answered one error line and closed; the first line must be whole within
``header_timeout`` seconds of the connection, and every later line within ``body_timeout`` seconds of its first
byte; a connection idle (no byte after a whole line) for ``idle_timeout`` seconds is closed. Each is told why in
one error line before it is closed.

How lines are read is kept with the state (:func:`kept_reading`): a restart reads them as the first start did,
and a model file of the service (``GET /model``) records it, as ``olearn run --save`` records a VW file's reading,
so that ``olearn predict`` reads a VW file into the same columns.

Tokens: the first line of a connection may be a token of the service (the line holds the token alone): the
write token lets its lines learn, the read token predict only (a labelled line is then answered with an error).
Without it, a connection is served only from a loopback address and only with ``--vw-trust-loopback``
(the VW clients, which know of no token, on the service's own machine), with the access of the write token;
``--public-reads`` lets any connection predict. Any other connection is answered one error line and closed.
"""

import asyncio
import hmac
import ipaddress
import json
import math
import os

import numpy as np

from .._atomic import atomic_write
from ._auth import READ, WRITE
from ._connections import ConnectionLimits
from ._requests import RequestError, read_features, read_labelled
from ._wal import sync_folder
from ._writer import WriterStopped


READING_FILE = "vw-reading.json"


class VWReading:
    """How lines are read: ``n_bits`` hash bits and the namespace options (a
    :class:`~olearn.data._namespaces.Namespaces`, or None), those of the model's VW training file."""

    def __init__(self, n_bits=18, namespaces=None):
        self.n_bits = n_bits
        self.namespaces = namespaces

    def info(self):
        """The record of a model file's ``input`` entry that ``olearn run --save`` writes for a VW file read so:
        ``olearn predict`` then reads a VW file as the service reads its lines."""
        info = {"format": "vw", "bits": self.n_bits}
        if self.namespaces is not None:
            info["namespaces"] = self.namespaces.info()
        return info

    @classmethod
    def from_info(cls, info):
        from ..data._namespaces import Namespaces

        return cls(info["bits"], Namespaces.from_info(info["namespaces"]) if info.get("namespaces") else None)


def stored_reading(folder):
    """How the service of the state ``folder`` read VW lines, as its first start with ``--vw-port`` kept it (a
    :class:`VWReading`), or None when no start of it served them."""
    path = os.path.join(folder, READING_FILE)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as fh:
        return VWReading.from_info(json.load(fh))


def kept_reading(folder, asked=None):
    """How the service of the state ``folder`` reads VW lines: as its first start with ``--vw-port`` did (kept in
    :data:`READING_FILE`; the columns it learned are those), or, on that first start, ``asked`` (a
    :class:`VWReading`, or None for the default), then kept. ValueError when ``asked`` reads otherwise than the
    state."""
    kept = stored_reading(folder)
    if kept is not None:
        if asked is not None and asked.info() != kept.info():
            raise ValueError(f"--vw-port: {os.path.join(folder, READING_FILE)} says this state learned VW lines "
                             f"read as {kept.info()}, not as {asked.info()} (--vw-bits, or MODEL's VW training "
                             f"file): lines read otherwise would take other columns; start without --vw-bits, or "
                             f"with --vw-bits {kept.n_bits}")
        return kept
    path = os.path.join(folder, READING_FILE)
    reading = asked or VWReading()
    with atomic_write(path) as fh:
        fh.write(json.dumps(reading.info()).encode())
    sync_folder(folder)
    return reading


def served_input(kept, reading):
    """The ``input`` entry of the service's model files: ``kept``, the state's (that of the model file it started
    from, ``{}`` if none), once the state learned VW lines read as ``reading`` (a :class:`VWReading`, or None if it
    learned none) recording that reading in place of the file format ``kept`` names, so that ``olearn predict``
    reads a VW file as the service read its lines. What holds of the model whatever its lines are kept: the K of
    ``--oaa K`` (the only labels it takes), and the names behind the hashed columns when ``kept`` is of a VW file
    read as the lines are."""
    if reading is None:
        return kept
    if kept.get("format") == "vw" and VWReading.from_info(kept).info() == reading.info():
        return kept
    return {**reading.info(), **{key: kept[key] for key in ("oaa",) if key in kept}}


def _tag(line):
    """The tag of a VW line (without its leading ``'``), or None: the last token before the first ``|`` when it
    touches the bar (a number too: ``1 2|a x`` has the tag ``2``) or starts with ``'``, as the line is read
    (:mod:`olearn.data._vw`) and as Vowpal Wabbit reads it. (A word in the label's or the weight's place, which VW
    reads as 0 with a warning, is refused before the tag is asked for.)"""
    before_bar = line.split(b"|", 1)[0]
    tokens = before_bar.split()
    if not tokens:
        return None
    last = tokens[-1]
    if last.startswith(b"'"):
        return last[1:].decode("utf-8", "replace")
    if b"|" in line and before_bar.endswith(last):
        return last.decode("utf-8", "replace")
    return None


def _label(value):
    """A VW label as JSON would give it: an integral value as an int (``1``, ``-1``)."""
    return int(value) if value == math.floor(value) and abs(value) < 2**53 else float(value)


# how long a closing connection's late lines are read and dropped (see _close_after_answers)
_CLOSE_GRACE = 2.0


async def _close_after_answers(reader, stream):
    """Close a connection so that the client reads every line written to it.

    Our side ends first (the client reads the lines, then the end); then what
    the client still sends is read and dropped until it closes too, for at most
    ``_CLOSE_GRACE`` seconds. Closing with its lines unread would make the
    system answer them with a reset, which can discard the last lines before
    the client reads them (a refused connection's one error line).
    """
    try:
        if stream.can_write_eof():
            stream.write_eof()
        await asyncio.wait_for(reader.read(), _CLOSE_GRACE)
    except (ConnectionError, OSError, asyncio.TimeoutError):
        pass  # the client went, or keeps the connection open: it is closed below either way
    stream.close()


class VWDaemon:
    """Answers VW connections for a service: ``model`` (a ServedModel) learned through ``writer``, with the
    service's ``access`` (:class:`~olearn.serve._auth.Access`), request ``limits``, largest line ``max_line_bytes``
    and :class:`VWReading`; ``trust_loopback`` serves loopback connections without a token line."""

    def __init__(self, model, writer, access, limits, reading, max_line_bytes=1 << 20, trust_loopback=False,
                 connections=None, idle_timeout=300.0):
        self.model = model
        self.writer = writer
        self.access = access
        self.limits = limits
        self.reading = reading
        self.max_line_bytes = max_line_bytes
        self.trust_loopback = trust_loopback
        self.connections = connections or ConnectionLimits()
        self.idle_timeout = idle_timeout
        self.open = 0  # the connections being served
        self.regression = getattr(model.estimator, "_estimator_type", None) == "regressor"

    async def handle(self, reader, stream):
        """Serve one connection: lines in, prediction lines out, until the client closes it (or a bound does)."""
        cap = self.connections.max_connections
        try:
            if self.open >= cap:
                stream.write(f"error: the service has {cap} VW connections open (--max-connections); retry "
                             "later\n".encode())
                await stream.drain()
                return
            self.open += 1
            try:
                await self._serve(reader, stream)
            finally:
                self.open -= 1
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went: nothing to answer
        finally:
            await _close_after_answers(reader, stream)

    async def _read(self, reader, stream, pending, lines_seen, idle_since):
        """The next bytes of the connection (b"" at its end), or None once a timeout closed it, told why: the
        first line within ``header_timeout`` of the connection, a line begun within ``body_timeout`` of its
        first byte, the next line begun within ``idle_timeout`` of the last whole one."""
        limits = self.connections
        if not lines_seen:
            seconds, why = limits.header_timeout, "the first line was not whole in time (--header-timeout)"
        elif pending:
            seconds, why = limits.body_timeout, "a line was not whole in time (--body-timeout)"
        else:
            seconds, why = self.idle_timeout, "the connection was idle too long (--vw-idle-timeout)"
        left = idle_since + seconds - asyncio.get_running_loop().time()
        try:
            return await asyncio.wait_for(reader.read(1 << 16), max(left, 0.0))
        except asyncio.TimeoutError:
            stream.write(f"error: {why}; the connection is closed\n".encode())
            await stream.drain()
            return None

    async def _serve(self, reader, stream):
        pending = b""
        access = None
        loop = asyncio.get_running_loop()
        since = loop.time()  # when the connection opened, the last lines were answered, or the line pending began
        lines_seen = False
        while True:
            chunk = await self._read(reader, stream, pending, lines_seen, since)
            if chunk is None:
                return
            if chunk:
                if lines_seen and not pending:
                    since = loop.time()  # a line begins
                pending += chunk
                *lines, pending = pending.split(b"\n")
                lines_seen = lines_seen or bool(lines)
            else:
                lines, pending = [pending], b""
            if len(pending) > self.max_line_bytes or any(len(line) > self.max_line_bytes for line in lines):
                stream.write(f"error: a line is over {self.max_line_bytes} bytes (--max-body-bytes)\n".encode())
                return
            if access is None and lines:
                access, lines = self._authenticate(lines, stream)
                if access is None:
                    await stream.drain()
                    return
            answers = await self._answer([line.rstrip(b"\r") for line in lines], access)
            if answers:
                stream.write("".join(answers).encode())
                await stream.drain()
            if not chunk:
                return
            if lines:
                since = loop.time()  # answered: idle from now on, or the line pending is timed from now

    def _authenticate(self, lines, stream):
        """The access of the connection (WRITE, READ or None: refused, told why) and the lines after a token line."""
        first = lines[0].strip()
        given = [kind for kind, token in ((WRITE, self.access.write_token),
                                          *((READ, token) for token in self.access.read_tokens))
                 if token is not None and hmac.compare_digest(first, token)]
        if given:
            return given[0], lines[1:]
        host = stream.get_extra_info("peername")[0]
        if self.trust_loopback and ipaddress.ip_address(host.split("%")[0]).is_loopback:
            return WRITE, lines
        if self.access.public_reads:
            return READ, lines
        stream.write(b"error: the first line must be a token of the service (--token-file or --read-token-file)\n")
        return None, lines

    async def _answer(self, lines, access):
        """The answer lines of ``lines``, in order: consecutive labelled lines are learned as one update."""
        answers, learned = [], []
        for line in lines:
            if not line.strip():
                continue
            try:
                x, y, weight = self._example(line)
            except RequestError as err:
                answers += await self._learn(learned)  # the lines before it first, in order
                answers.append(f"error: {err.message}\n")
                continue
            tag = _tag(line)
            if y is None:
                answers += await self._learn(learned)
                answers.append(self._predict(x, tag))
            elif access != WRITE:
                answers += await self._learn(learned)
                answers.append("error: learning needs the write token (the first line of the connection)\n")
            else:
                learned.append((x, y, weight, tag))
                if len(learned) == self.limits.max_batch:
                    answers += await self._learn(learned)
        answers += await self._learn(learned)
        return answers

    def _example(self, line):
        """``(x, y, weight)`` of a VW line: x a dict of column indices (as JSON keys), y None for no label."""
        from ..data._vw import _parse
        from ..exceptions import DataFormatError

        buf = line + b"\n"
        try:
            rows = _parse(buf, len(buf), 0, "<vw line>", self.reading.n_bits, np.float64,
                          namespaces=self.reading.namespaces)
        except DataFormatError as err:
            raise RequestError(422, str(err).replace("<vw line>:1:", "column ")) from None
        start, stop = rows.indptr[0], rows.indptr[1]
        x = {str(column): value for column, value in zip(rows.indices[start:stop].tolist(),
                                                          rows.data[start:stop].tolist())}
        label = float(rows.y[0])
        weight = float(rows.weight[0])
        return x, None if math.isnan(label) else _label(label), weight

    def _predict(self, x, tag):
        try:
            answer = self.model.predict(read_features({"x": x}, self.limits))
        except RequestError as err:
            return f"error: {err.message}\n"
        return self._line(answer["y"], tag)

    async def _learn(self, learned):
        """Learn the labelled lines gathered (one update, all or none); their answer lines. Empties ``learned``."""
        if not learned:
            return []
        batch = list(learned)
        learned.clear()
        document = {"x": [x for x, _, _, _ in batch], "y": [y for _, y, _, _ in batch],
                    "sample_weight": [w for _, _, w, _ in batch]}
        try:
            examples = read_labelled(document, self.limits)
            answer = await self.writer.update("predict_learn", examples, None)
        except RequestError as err:
            if len(batch) == 1:
                return [f"error: {err.message}\n"]
            answers = []  # one line of the batch is refused: each is learned alone, to answer each
            for item in batch:
                answers += await self._learn([item])
            return answers
        except WriterStopped as err:
            return [f"error: {err}\n" for _ in batch]
        return [self._line(y, tag) for y, (_, _, _, tag) in zip(answer["y"], batch)]

    def _line(self, y, tag):
        """What ``olearn predict`` writes for the prediction ``y``, and the tag after a space, as VW writes it."""
        if y is None:
            text = "0"
        elif self.regression:
            text = repr(float(y))
        else:
            from ..cli._tasks import format_labels

            text = format_labels([y])[0]
        return f"{text} {tag}\n" if tag is not None else f"{text}\n"
