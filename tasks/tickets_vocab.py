"""Words the tickets task templates draw from (static data)."""

# Quoted texts: the other entries of each list are the candidates a text could state instead.
REPLIES = ["We rolled out a fix this morning; it should work again.", "A restart of the client clears it for now.",
           "The access is in place, please sign out and back in.", "We replaced the faulty part, all set.",
           "The vendor patched it on their side.", "Your account was re-synced, try again now."]
QUESTIONS = ["Which laptop model and OS version are you on?", "Does it also happen on the office network?",
             "Can you send a screenshot of the error message?", "Since when exactly has this been happening?",
             "Which manager approved the access?", "Does a colleague on your team see the same thing?"]
NOTES = ["Looks related to the certificate rotation last week.", "Vendor case opened, waiting for their reply.",
         "Same symptom as an incident we closed last month.", "Checked the logs: nothing on our side yet."]
REASONS = ["Engineering is investigating", "Needs a code fix", "Reproduced, handed to engineering",
           "Customer blocked, engineering needed"]
CAUSES = ["A bad config push; rolled back.", "Database connection pool exhausted; raised the limit.",
          "An expired certificate on the load balancer; renewed.", "A memory leak in the worker; deployed the fix."]
SUBTASKS = ["Write the design note", "Implement the change", "Add tests", "Update the runbook",
            "Roll out behind a flag", "Load-test the change", "Clean up the old code path"]

DUPLICATE_WORDS = ["Same problem here: {s}", "{s} - anyone else?", "{s} again today", "Urgent: {s}"]
UNRELATED = ["Keyboard missing keys", "Request: standing desk", "Badge stopped working",
             "Calendar invites arrive twice"]
INCIDENTS = ["Search results empty for some customers", "API gateway timeouts in EU",
             "Background jobs stuck in the queue", "Login page returns 500 errors", "File uploads fail above 10 MB",
             "Notifications sent twice"]

# How a reply says an incident is over, and how it would say it is not.
RESOLVED_WORDS = ("resolved", "fixed")
OPEN_WORDS = ("In Progress", "still investigating", "still open", "Waiting on customer")

# (what the reporter writes, impact, urgency, group: "IT Support" or the engineering team that owns it)
PROBLEMS = [
    ("My laptop won't start at all since this morning, so I can't do any work.", "Low", "High", "IT Support"),
    ("The Wi-Fi on our floor keeps dropping for my whole team; pages are slow but we can still work.", "Medium",
     "Medium", "IT Support"),
    ("Nobody in the company can connect to the VPN; everyone working remotely is stuck.", "High", "High",
     "IT Support"),
    ("The printer next to my desk prints faint pages; I can use the one upstairs meanwhile.", "Low", "Low",
     "IT Support"),
    ("My whole team lost access to our shared drive and we're blocked on the release notes.", "Medium", "High",
     "IT Support"),
    ("Email is slow for everyone in the company: messages arrive a few minutes late.", "High", "Medium",
     "IT Support"),
    ("Customers can't pay: every checkout has failed with an error for ten minutes, for all customers.", "High",
     "High", "Payments"),
    ("All customer invoices show yesterday's date; finance has a manual workaround for now.", "High", "Low",
     "Payments"),
    ("Deploys are failing for our whole engineering team: the CI/CD pipeline is red and nobody can ship.",
     "Medium", "High", "Platform"),
]
RULES = ("Impact is how many people it affects (one person: Low; a team: Medium; a whole office, every customer "
         "or the company: High). Urgency is how much it hurts now (a workaround exists: Low; work is slowed: "
         "Medium; work is stopped: High). Office IT goes to the IT Support group; a problem with a customer-facing "
         "or engineering service goes to the on-call group of the engineering team that owns it.")
