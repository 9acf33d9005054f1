"""Workflow and refusal templates (being written)."""
