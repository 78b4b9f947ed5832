"""The money drop's host: the flow (`host`), reading placements (`placement`) and the announcements."""
