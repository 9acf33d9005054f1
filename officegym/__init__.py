"""officegym: stateful enterprise app clones for training and evaluating LLM agents."""

# `OfficeTaskset` makes the package itself a verifiers taskset (`vf-eval officegym`); it is imported
# on first use, so officegym does not need verifiers unless it is asked for.
__all__ = ["OfficeTaskset"]


def __getattr__(name: str):
    if name == "OfficeTaskset":
        from officegym.adapters.verifiers_taskset import OfficeTaskset

        return OfficeTaskset
    raise AttributeError(f"module 'officegym' has no attribute {name!r}")
