"""Whisper base as a recognizer that decides by the listening context's grammar.

One pipeline, a module a step: `features` (audio to log-mel), `model` (the encoder once, the decoder in batches),
`trie` and `search` (every phrase of the context scored, and the decoder's own free reading), `decision` (two
calibrated margins), `strategies` (one way of hearing per kind of context), `recognizer` (the steps in order).
"""
