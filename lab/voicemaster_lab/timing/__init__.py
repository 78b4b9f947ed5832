"""How fast: rules, latency, felt latency in live games, the yes wait, voices, the screen, memory."""
