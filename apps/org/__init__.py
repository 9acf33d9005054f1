"""org: the company directory every app shares (people, departments, teams)."""
