"""The procedure library: the handbook's procedures as pieces a template composes (`Composed`,
`Plan`), and what a lab needs to write its own (`Procedure`, `Graded`, `HARDS`). See docs/tasks.md."""

from .core import HARDS, Graded, Procedure, Reads, shifted, trajectory
from .messages import DirectRequest, ReadRule, Reply
from .sharing import ShareContacts
from .template import Composed, Plan

__all__ = ["HARDS", "Composed", "DirectRequest", "Graded", "Plan", "Procedure", "ReadRule", "Reads", "Reply",
           "ShareContacts", "shifted", "trajectory"]
