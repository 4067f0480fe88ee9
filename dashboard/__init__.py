"""dashboard package (being built)."""
