"""Adapters to other frameworks, each behind an optional extra: gymnasium_env (officegym[gymnasium])."""
