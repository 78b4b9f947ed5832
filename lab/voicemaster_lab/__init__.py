"""voicemaster's lab, beside the product and never in its wheel: what measures the game and drills its faults.

`corpora/` makes and fetches the speech measured on, `harness/` runs a real game on a private PulseAudio bus,
`asr/` and `timing/` are the benchmarks of understanding and of speed, `faults/` the crash, fuzz and disk drills.
`cli.py` adds `voicemaster bench ...` to the product's command line through an entry point.
"""
