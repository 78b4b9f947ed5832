"""A real game on a private PulseAudio bus, and the player that speaks into its microphone."""
