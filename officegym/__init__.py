"""officegym: stateful enterprise app clones for training and evaluating LLM agents."""
