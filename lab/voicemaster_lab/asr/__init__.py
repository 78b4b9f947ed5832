"""How well the recognizers understand: `voicemaster bench asr` and its figures."""
