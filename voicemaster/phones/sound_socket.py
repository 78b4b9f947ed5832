"""The phones' sound socket on uvicorn's WebSocket protocol, stopped safely when the server stops (`SoundSocket`)."""

from __future__ import annotations

from asyncio import BaseTransport, Transport
from typing import Any, cast

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State


class SoundSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, stopped safely. When the server stops, a phone whose page has said goodbye (its
    Close answered) but whose connection has not gone yet (its TLS close under way: a loaded machine, a slow Wi-Fi)
    is cut off, nothing more being owed to it. uvicorn would send it a Close of its own, which raises in the server's
    thread (the end of a game would print a traceback and leave the other connections open), and a gentle close
    would wait on the phone longer than the server waits for its connections, leaving its socket open."""

    def connection_made(self, transport: BaseTransport) -> None:
        super().connection_made(cast(Transport, _ClosedOnce(cast(Transport, transport))))

    def shutdown(self) -> None:
        if self.handshake_complete and self.initial_response is None and self.conn.state is not State.OPEN:
            self.stop_keepalive()
            self.transport.abort()
            return
        super().shutdown()


class _ClosedOnce:
    """A connection's transport that is closed once however often uvicorn asks: CPython's TLS transport, asked twice,
    lets go of the connection under it, which could then never be cut off (`SoundSocket.shutdown`)."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def close(self) -> None:
        if not self._transport.is_closing():
            self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)
