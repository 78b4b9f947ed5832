"""Barge-in: when a player talking over the quizmaster's voice stops it, judged in one stage (`stage.BargeIn`) with
every number in one settings object (`settings.BargeInSettings`)."""
