"""Adapters to other frameworks, each behind an optional extra: gymnasium_env (officegym[gymnasium]),
verifiers_taskset and verifiers_tools (officegym[verifiers]), browsergym_tasks (officegym[browsergym])
and openenv_env (officegym[openenv])."""
