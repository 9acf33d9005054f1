"""A role's week, composed from the procedure library: days of one role whose requests mix procedures of
several families, some decided by the state (decision twins), some with a word that comes during the episode.

- tasks.w_lib_week_support: a support owner's Monday (duplicates, a customer who wrote again, two goodwill
  credits, refused when credited already: `r.lib_week_support_monday`), the same owner's merges with the
  customers' credits sent later in the conversation (`w.lib_week_support_credits_to_come`), and a kickoff
  channel's contacts beside the weekend's cases (`r.lib_week_kickoff_monday`);
- tasks.w_lib_week_it: an IT agent's day of equipment, leavers and access (`r.lib_week_it_day_word_to_come`,
  `r.lib_week_it_day_leaver`, `r.lib_week_it_offboarding_word_to_come`);
- tasks.w_lib_week_sales: a rep's Friday of renewals and a loss review (`w.lib_week_rep_friday`), and of
  renewals and a customer's credit (`r.lib_week_rep_friday_credit`).

Each module registers its templates when imported here (the registry imports this module)."""

from __future__ import annotations

from .w_lib_week_it import ItDayLeaverWhoStays, ItDayWordToCome, OffboardingWordToCome  # registered on import
from .w_lib_week_sales import RepFriday, RepFridayCredit  # registered on import
from .w_lib_week_support import CreditsToCome, KickoffMonday, SupportMonday  # registered on import

__all__ = ["CreditsToCome", "ItDayLeaverWhoStays", "ItDayWordToCome", "KickoffMonday", "OffboardingWordToCome",
           "RepFriday", "RepFridayCredit", "SupportMonday"]
