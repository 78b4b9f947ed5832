"""`voicemaster serve`: the always-ready quizmaster. It waits quietly, hears only speech (the voice-activity detector
gates everything), reads an utterance short enough to be a start phrase against the small grammar of the start
context in every listening language, says a start back and starts the game on a yes; after the game it waits again.

- `waiting.py`: what it says and hears while waiting, pure (effects out, observations in).
- `reading.py`: one utterance read in several languages, the encoder run once.
- `live.py`: the loop on the microphone and the loudspeaker, the game played by `play.live`.
- `unit.py`: the systemd user unit that starts it with the machine (`voicemaster service`).
"""
