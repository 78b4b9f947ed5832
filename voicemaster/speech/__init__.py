"""The edges: hearing (recognizers, intents), speaking (synthesis) and audio devices, each behind a small interface."""
