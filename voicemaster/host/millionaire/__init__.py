"""The Millionaire quizmaster: the question flow (`quizmaster`), its jokers and its announcements."""
