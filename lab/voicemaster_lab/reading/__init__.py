"""Reading aloud: the questions said by the quizmaster's voice and heard back (`voicemaster bench read-aloud`)."""
