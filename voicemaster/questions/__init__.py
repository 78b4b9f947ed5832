"""The question bank: packs on disk, validation, statistics, selection without repeats, importers."""
