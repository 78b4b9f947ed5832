"""The screen for the room: a read-only web page that shows what the quizmaster is doing (issue 29).

`board.py` folds the game's steps (the transcript's events and the stored game) into what the page shows, `feed.py`
holds them between the game's thread and the server's, `server.py` serves the page and its updates.
"""

LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8765


class ScreenUnavailable(RuntimeError):
    """The screen cannot start (its port taken, its packages missing): said in one line, the game not started."""
