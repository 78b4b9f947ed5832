"""voicemaster: an offline, hands-free, voice-driven quizmaster."""

__version__ = "0.1.0"
