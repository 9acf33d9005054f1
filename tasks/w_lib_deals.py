"""Deep templates composed from the procedure library (being written)."""
