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

# How a reply says an incident is over, and how it would say it is not (no status name: a correct
# reply may well say which status the incident left).
RESOLVED_WORDS = ("resolved", "fixed", "back to normal")
OPEN_WORDS = ("still investigating", "still open", "still broken", "still failing")

# Later posts in #incidents by other people (so that the post a task is about is not the newest).
INCIDENT_CHATTER = ["Postmortem notes for last week's outage are in the shared doc.",
                    "Reminder: status updates go out every 30 minutes while an incident is open.",
                    "Dashboards look healthy again on my side.",
                    "Handing over to the next on-call shift at 6pm."]

# How a reply says that the reporter's problem was filed.
FILED = ("filed", "logged", "opened", "created", "raised", "tracking", "tracked", "ticket", "incident")

# How a comment says that a ticket waits for another one.
BLOCKED = ("blocked", "blocks", "blocking", "blocker", "waiting", "waits", "depends", "dependent", "dependency")

# (what the reporter writes, impact, urgency, group: "IT Support" or the engineering team that owns it).
# Each text says in RULES' own words whom it affects (only me, my team, the whole company or every
# customer) and how much it hurts now (a workaround, slowed, stopped); an engineering service is
# named as the ENG project's components describe what each team owns.
PROBLEMS = [
    ("My laptop won't start at all since this morning, so I can't do any work (nobody else is affected).",
     "Low", "High", "IT Support"),
    ("The Wi-Fi in our team room keeps dropping for everyone on my team (only us); pages are slow but we can "
     "still work.", "Medium", "Medium", "IT Support"),
    ("Nobody in the company can connect to the VPN; everyone working remotely is stuck.", "High", "High",
     "IT Support"),
    ("The printer at my desk, which only I use, prints faint pages; I can use the one upstairs meanwhile.",
     "Low", "Low", "IT Support"),
    ("My team lost access to our shared drive (only our team) and we're blocked on the release notes.",
     "Medium", "High", "IT Support"),
    ("Email is slow for everyone in the company: messages arrive a few minutes late.", "High", "Medium",
     "IT Support"),
    ("Customers can't pay: every card payment has failed with a payments error for ten minutes, for every "
     "customer.", "High", "High", "Payments"),
    ("Every customer's invoice shows yesterday's date; finance has a manual workaround for now.", "High", "Low",
     "Payments"),
    ("Deploys are failing for my team (only us): our CI/CD pipeline is red and none of us can ship.",
     "Medium", "High", "Platform"),
]
RULES = ("Impact is how many people it affects (one person: Low; a team: Medium; a whole office, every customer "
         "or the company: High). Urgency is how much it hurts now (a workaround exists: Low; work is slowed: "
         "Medium; work is stopped: High). Office IT goes to the IT Support group; a problem with a customer-facing "
         "or engineering service goes to the on-call group of the engineering team that owns it (the components "
         "of the ENG project say which team owns what).")
