"""The formula engine: A1 references, a parser to syntax trees, an evaluator with the function
library, reference shifting for structural edits, and a dependency graph for recalculation.

Pure Python with no database or Flask import: services feed it cells and write back its values.
"""
