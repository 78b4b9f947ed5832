"""What the benches measure on: eSpeak-NG and natural voices saying what players say, and recordings of people."""
