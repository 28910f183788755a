"""A connection's writes of one turn of the event loop sent as one: an answer's head and body in one system call.

uvicorn writes an answer's head when the application sends
``http.response.start`` and its body when it sends ``http.response.body``,
each at once: two ``send`` system calls and two TCP segments for an answer of
a few hundred bytes, which the client reads as two. The application's routes
send the two messages back to back, in one turn of the event loop; a
:class:`JoinedWrites` in front of the connection's transport holds the writes
of a turn and sends them at its end, together (one ``writelines``: uvloop
sends its buffers by one ``writev``, with no copy of a large body). On the
loopback interface, where a send also delivers the segment, the second one
took about a fifth of the service's CPU time per single ``/learn``.

The bytes, their order and the connection's life are those of the transport
alone: every write and close of the connection goes through the
:class:`JoinedWrites` (the protocol's, the answers', the refusals'), and a
close, or anything that reads the state of the writes, sends what is held
first. What is held when the connection is already closing is dropped, as
the transport drops what is written after its connection is lost.
"""


class JoinedWrites:
    """``transport`` (an asyncio transport) whose writes are held until the end of the turn of ``loop``, then sent
    together; its other methods and attributes are the transport's."""

    __slots__ = ("transport", "_loop", "_held")

    def __init__(self, transport, loop):
        self.transport = transport
        self._loop = loop
        self._held = None  # the bytes written in this turn, in order, or None

    def write(self, data):
        if type(data) is not bytes:  # a buffer its writer may change once written: its bytes now, as a transport takes
            data = bytes(data)
        if self._held is None:
            self._held = [data]
            self._loop.call_soon(self.flush)
        else:
            self._held.append(data)

    def writelines(self, lines):
        for data in lines:
            self.write(data)

    def flush(self):
        """Send what is held, if anything (nothing once the connection is closing)."""
        held = self._held
        if held is None:
            return
        self._held = None
        if self.transport.is_closing():
            return
        if len(held) == 1:
            self.transport.write(held[0])
        else:
            self.transport.writelines(held)

    def close(self):
        self.flush()
        self.transport.close()

    def write_eof(self):
        self.flush()
        self.transport.write_eof()

    def get_write_buffer_size(self):
        self.flush()
        return self.transport.get_write_buffer_size()

    def is_closing(self):
        return self.transport.is_closing()

    def pause_reading(self):
        self.transport.pause_reading()

    def resume_reading(self):
        self.transport.resume_reading()

    def get_extra_info(self, name, default=None):
        return self.transport.get_extra_info(name, default)

    def __getattr__(self, name):  # the rest of the transport's interface (abort, set_protocol, ...)
        return getattr(self.transport, name)
