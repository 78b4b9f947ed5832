"""The quizmaster: dialogue flows that drive the rules engine through speech (effects out, observations in)."""
