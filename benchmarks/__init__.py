"""`make bench`: speed figures of officegym, printed as a table (never asserted by tests)."""
