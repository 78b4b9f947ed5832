"""The dialogue's vocabulary: listening contexts and what was heard (`meaning`), the quizmaster's effects and the
observations it receives (`turns`). Pure data, no I/O: the host, the speech layer and every runner speak it."""
