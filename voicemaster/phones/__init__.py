"""Phones as the players' microphones: each player's phone joins by the screen's QR code (or the address and code the
quizmaster says) and carries that player's voice to the game.

`server.py` serves the join page over HTTPS (a browser gives a page the microphone only in a secure context) with a
self-signed certificate made at first use (`certificate.py`), and takes each phone's sound over a WebSocket into its
player's `speech.devices.phone.PhoneMicrophone`; the game's ear listens to it like any other source, through the
same listening pipeline.
"""

DEFAULT_PORT = 8766


class PhonesUnavailable(RuntimeError):
    """The phones' server cannot start (its port taken, its packages missing): said in one line."""
