"""Static vocabulary that only the bigger worlds (`medium`, `large`) use: the squads big teams split
into, spelling variants of names (the near-duplicates that make search by name need care), more
production incidents, ticket conversations, and the extra chatter of a busy workspace.

Small worlds never read this module, so changing it never changes them.
"""

from __future__ import annotations

# ---------------------------------------------------------------- squads
# A team of the vocabulary ("area") that has more people than one team holds is split into squads:
# the first keeps the area's name and lead, the others are "<area> <qualifier>". Qualifiers per area,
# else per department; when they run out, "<area> Pod <n>".

SQUADS_BY_AREA: dict[str, list[str]] = {
    "Enterprise Sales NA": ["East", "West", "Central", "Canada", "Federal", "Northeast", "Southeast", "Midwest",
                            "Southwest", "Pacific", "Mountain", "Strategic", "Financial Services", "Healthcare"],
    "Enterprise Sales EMEA": ["UK and Ireland", "DACH", "France", "Benelux", "Nordics", "Southern Europe",
                              "Middle East", "Central Europe", "Iberia", "Africa", "Strategic"],
    "Sales Development": ["Inbound", "Outbound NA", "Outbound EMEA", "Outbound APAC", "Enterprise", "Mid-Market",
                          "Events", "Partners", "Expansion"],
    "Mid-Market Sales": ["East", "West", "Central", "Commercial", "Emerging", "Expansion", "Renewals", "Verticals"],
    "Sales Operations": ["Deal Desk", "Analytics", "Systems", "Enablement", "Territories", "Compensation"],
    "Sales APAC": ["ANZ", "Singapore", "India", "Japan", "Korea", "Southeast Asia", "Greater China"],
    "Customer Support": ["Tier 2", "Billing", "Technical", "Enterprise", "Americas", "Weekend", "Chat", "Escalations",
                         "Integrations", "Onboarding Queue", "Self-Serve", "Accounts"],
    "Support EMEA": ["UK", "DACH", "France", "Nordics", "Benelux", "Southern Europe"],
    "Account Management": ["Enterprise", "Mid-Market", "Strategic", "Renewals", "Expansion", "Healthcare",
                           "Financial Services", "Public Sector"],
    "Onboarding": ["Enterprise", "Mid-Market", "Integrations", "Training", "Migrations"],
    "IT Support": ["Service Desk", "Endpoints", "Identity and Access", "Collaboration Tools", "EMEA", "APAC",
                   "Onboarding", "Asset Management", "Network"],
    "Security": ["Operations", "Engineering", "Governance", "Incident Response", "Identity", "Application Security"],
    "Recruiting": ["Engineering", "Go-to-Market", "Executive", "Sourcing", "Coordination", "Campus", "EMEA"],
    "People Operations": ["Benefits", "Payroll", "HR Business Partners", "Learning", "Compensation", "Systems"],
    "Accounting": ["Payables", "Receivables", "Revenue", "Close", "Tax", "Payroll Accounting"],
    "Financial Planning": ["Go-to-Market", "R&D", "Corporate", "Analytics"],
    "Procurement": ["Software", "Facilities", "Vendors"],
    "Commercial Legal": ["EMEA", "Enterprise Deals", "Procurement Contracts", "Partners", "Privacy Reviews"],
    "Compliance": ["Privacy", "Regulatory", "Audit", "Policies"],
    "Office of the CEO": ["Strategy", "Business Operations", "Communications", "Corporate Development"],
}
SQUADS_BY_DEPARTMENT: dict[str, list[str]] = {
    "Engineering": ["Core", "APIs", "Reliability", "Tooling", "Performance", "Storage", "Foundations", "Experience",
                    "Automation", "Observability", "Scale", "Edge", "Quality", "Migrations", "Growth", "Identity",
                    "Search", "Messaging", "Insights", "Workflows"],
    "Product": ["Core", "Growth", "Platform", "Enterprise", "Mobile", "Insights", "Onboarding", "Research",
                "Monetisation", "Integrations"],
    "Marketing": ["NA", "EMEA", "APAC", "Enterprise", "Partners", "Web", "Lifecycle", "Social", "Analytics",
                  "Operations", "Campaigns"],
}
# What the lead of a squad (not the area's first one) is called: "<title>, <squad name>".
SQUAD_LEADS = {"Executive": "Chief of Staff", "Engineering": "Engineering Manager", "Product": "Group Manager",
               "Sales": "Sales Manager", "Marketing": "Marketing Manager", "Customer Success": "Team Lead",
               "Finance": "Finance Manager", "People": "People Manager", "IT": "IT Manager", "Legal": "Legal Manager"}
SQUAD_FANOUT = 5  # squads whose leads report to one lead: the second level of an area's tree

# ---------------------------------------------------------------- names
# Spellings that look alike in a directory: "Jon Smith" next to "John Smith".
FIRST_VARIANTS = {
    "John": "Jon", "Jon": "John", "Sarah": "Sara", "Sara": "Sarah", "Steven": "Stephen", "Stephen": "Steven",
    "Katherine": "Catherine", "Catherine": "Katherine", "Kathryn": "Katherine", "Jeffrey": "Geoffrey",
    "Brian": "Bryan", "Bryan": "Brian", "Eric": "Erik", "Erik": "Eric", "Allen": "Alan", "Alan": "Allen",
    "Matthew": "Mathew", "Philip": "Phillip", "Phillip": "Philip", "Ann": "Anne", "Anne": "Ann", "Megan": "Meghan",
    "Rebecca": "Rebekah", "Christina": "Kristina", "Kristina": "Christina", "Carl": "Karl", "Karl": "Carl",
    "Mark": "Marc", "Nicholas": "Nicolas", "Sean": "Shawn", "Shawn": "Sean", "Teresa": "Theresa",
    "Theresa": "Teresa", "Michael": "Micheal", "Jessica": "Jessika", "Ashley": "Ashlee", "Lindsay": "Lindsey",
    "Lindsey": "Lindsay", "Jacob": "Jakob", "Isaac": "Issac", "Zachary": "Zachery", "Deborah": "Debra",
    "Debra": "Deborah", "Cheryl": "Sheryl", "Tracy": "Tracey", "Tracey": "Tracy", "Kelly": "Kelley",
    "Jeremy": "Jeremey", "Danielle": "Daniella", "Caitlin": "Kaitlyn", "Kaitlyn": "Caitlin", "Vanessa": "Venessa",
}
LAST_VARIANTS = {
    "Smith": "Smyth", "Thompson": "Thomson", "Reed": "Reid", "Reid": "Reed", "Clark": "Clarke", "Clarke": "Clark",
    "Anderson": "Andersen", "Andersen": "Anderson", "Peterson": "Petersen", "Petersen": "Peterson",
    "Johnson": "Johnston", "Johnston": "Johnson", "Stewart": "Stuart", "Stuart": "Stewart", "Gray": "Grey",
    "Grey": "Gray", "Phillips": "Philips", "Davis": "Davies", "Davies": "Davis", "Meyer": "Meyers",
    "Myers": "Meyers", "Hansen": "Hanson", "Hanson": "Hansen", "Carlson": "Carlsen", "Nielsen": "Nelson",
    "Nelson": "Nielsen", "Brown": "Browne", "Green": "Greene", "Greene": "Green", "Wood": "Woods",
    "Woods": "Wood", "Harris": "Harriss", "Jensen": "Jenson", "Allen": "Allan", "Mcdonald": "Macdonald",
}

# ---------------------------------------------------------------- chat
# Replies anyone may add to a thread in a busy workspace (after the scene's own replies): to a
# question, and to anything else.
CHATTER_ASKED = ["Following", "Same question here.", "+1, I'd like to know too.", "Not that I know of.",
                 "Looping in my team on this.", "Let me know if I can help.", "I'll take a look this afternoon.",
                 "Following this thread.", "Good question."]
CHATTER = ["+1", "Thanks!", "Sounds good to me.", "Great, thank you!", "Noted.", "Makes sense.", "Thanks for sharing.",
           "Good call.", "Agreed.", "Nice!", "Will do.", "Thanks for the heads-up."]
# Short status updates people post in their team channel, when nothing else is going on.
UPDATES = [
    "Update: {work} is about half done; should wrap up by {weekday}.",
    "Heads up, I'm out {weekday} afternoon. @{m1} can cover anything urgent.",
    "Quick reminder: the {team} sync moves to {time} this week.",
    "Finished {work} today. Notes are in the team folder.",
    "Is anyone else seeing slowness in {tool} this morning?",
    "Picking up {work} next; shout if it overlaps with what you're doing.",
    "I'll be in the {hq} office on {weekday} if anyone wants to meet in person.",
    "Dropping the notes from today's sync here: decisions on {work}, follow-ups assigned.",
]

# ---------------------------------------------------------------- tickets
# Production incidents of a long history: (summary, description); {service} is one of vocab.SERVICES.
PROD_INCIDENTS = [
    ("{service} returning 502 errors", "Error rate on {service} above 5% since the last deploy."),
    ("{service} p95 latency above 2 seconds", "p95 latency of {service} jumped from 300 ms to over 2 s."),
    ("{service} queue backing up", "Messages for {service} are piling up; processing is 15 minutes behind."),
    ("{service} failing health checks", "Instances of {service} are being restarted by the load balancer."),
    ("Elevated error rate on {service}", "About 3% of requests to {service} fail with timeouts."),
    ("{service} out of memory in production", "Pods of {service} are OOM-killed every few minutes."),
    ("Partial outage of {service} in EU", "EU-region customers cannot reach {service}."),
    ("{service} dropping events", "Some events sent to {service} never arrive downstream."),
]
# Follow-ups on a ticket, in order: (speaker: "reporter" or "agent", text, internal?).
TICKET_THREADS = [
    [("reporter", "Any update on this? It is blocking my work.", False),
     ("agent", "Still on it; I'll have news by end of day.", False)],
    [("agent", "Checked the logs, nothing obvious yet.", True),
     ("agent", "Could you try again now and tell me what you see?", False),
     ("reporter", "Tried again, same result.", False)],
    [("reporter", "Adding a screenshot of the error.", False),
     ("agent", "Thanks, that helps. Escalating to the second line.", False)],
    [("agent", "Waiting for the vendor to confirm the fix.", True),
     ("reporter", "Thanks for the update.", False)],
    [("agent", "Reproduced on a test machine.", True)],
    [("reporter", "It happened again this morning.", False),
     ("agent", "Noted, I've linked it to the known issue.", False),
     ("agent", "Same root cause as last week's reports.", True)],
]
ENG_THREADS = [
    ["PR is up for review.", "Left a few comments.", "Addressed, thanks!"],
    ["Blocked on the API change from the other team.", "Unblocked now."],
    ["Can we split this into two tickets?", "Agreed, splitting it."],
    ["Added tests for the edge cases."],
    ["Is this still needed after the redesign?", "Yes, the old path is still used by two customers."],
    ["Deployed to staging.", "Looks good on staging, promoting."],
]

# ---------------------------------------------------------------- crm
# Fields of an opportunity reps change as a deal moves, besides its stage: written to field history.
DEAL_FIELDS = ("amount", "close_date", "next_step")
