"""Static vocabulary of the seeded workbooks: what each department costs and plans to hire, and the
items of people's own expense sheets.

Figures are US dollars a year. Per-head figures are multiplied by the department's real headcount
(with a little seeded noise) so that a bigger department costs more, as it would.
"""

from __future__ import annotations

# department -> (average salary, software per head, travel per head, other per head)
BUDGET_PROFILES: dict[str, tuple[int, int, int, int]] = {
    "Executive": (265_000, 1_500, 22_000, 9_000),
    "Engineering": (168_000, 4_200, 2_500, 3_000),
    "Product": (156_000, 3_200, 3_000, 2_500),
    "Sales": (122_000, 2_900, 14_000, 4_500),
    "Marketing": (124_000, 3_600, 7_500, 18_000),  # "other" is events and paid media
    "Customer Success": (96_000, 2_300, 5_500, 2_000),
    "Finance": (132_000, 2_600, 2_000, 3_500),
    "People": (114_000, 2_400, 2_500, 6_500),  # "other" is recruiting fees and benefits admin
    "IT": (121_000, 6_800, 2_000, 4_000),
    "Legal": (178_000, 2_200, 2_500, 12_000),  # "other" is outside counsel
}
DEFAULT_PROFILE = (120_000, 2_500, 3_000, 3_000)

BENEFITS_LOAD = 0.22  # payroll taxes and benefits on top of salary

# department -> planned growth of headcount over the year (share of today's headcount)
GROWTH: dict[str, float] = {
    "Executive": 0.0, "Engineering": 0.28, "Product": 0.18, "Sales": 0.32, "Marketing": 0.15,
    "Customer Success": 0.22, "Finance": 0.1, "People": 0.15, "IT": 0.12, "Legal": 0.1,
}
QUARTER_WEIGHTS = (3, 4, 3, 2)  # hiring is heaviest in Q2, lightest before the holidays

# ---------------------------------------------------------------- personal workbooks
# (title pattern, description, weight): titles look like real ones on purpose, to make search
# over workbooks need care.
PERSONAL_KINDS = [
    ("Q1 expense report — {name}", "My expenses for January to March, to file with Finance", 4),
    ("Team offsite budget — {name}", "Rough costs for the spring team offsite", 1),
    ("Conference trip — {name}", "Travel and tickets for a conference, before approval", 1),
]

# category -> [(description, lowest amount, highest amount)]; {city} is one of CITIES
EXPENSE_ITEMS: dict[str, list[tuple[str, int, int]]] = {
    "Travel": [("Flight to {city}", 280, 940), ("Hotel in {city}, 2 nights", 320, 780),
               ("Train to {city}", 60, 190), ("Taxi from the airport", 35, 95)],
    "Meals": [("Team lunch", 80, 260), ("Customer dinner in {city}", 140, 420), ("Breakfast meeting", 25, 70)],
    "Software": [("Diagramming tool subscription", 12, 30), ("Screen recorder licence", 15, 60),
                 ("Online course", 40, 220)],
    "Office": [("Monitor for home office", 180, 420), ("Keyboard and mouse", 60, 160), ("Desk lamp", 25, 80)],
    "Events": [("Conference ticket", 350, 1_450), ("Venue deposit", 500, 1_800), ("Workshop materials", 40, 160)],
}
# which categories each kind of personal workbook draws from
KIND_CATEGORIES = {
    0: ("Travel", "Meals", "Software", "Office"),
    1: ("Meals", "Events", "Travel"),
    2: ("Travel", "Events", "Meals"),
}
CITIES = ["Chicago", "Boston", "Austin", "Denver", "London", "Berlin", "Amsterdam", "Toronto", "Seattle", "Dublin"]

# ---------------------------------------------------------------- descriptions of the shared workbooks
# {year} is the company's current year, as in the workbooks' titles.
DESCRIPTIONS = {
    "forecast": "Open pipeline by quarter and stage, weighted by stage probability, and {year} wins. "
                "Refreshed from the CRM every Friday.",
    "budget": "Approved {year} operating budget per department: people costs, software, travel and other.",
    "headcount": "Everyone on staff today, and the hires each department plans per quarter of {year}.",
    "rota": "Who is on call each week for production incidents and the IT help desk. Swap weeks "
            "with a teammate and update the sheet.",
}
