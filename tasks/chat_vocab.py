"""Words the chat task templates draw from (static data)."""

FACT_QUESTIONS = {
    "timezone": "what time zone is {name} in? I want to set up a call.",
    "manager": "who does {name} report to? I need their manager's sign-off.",
    "title": "what is {name}'s job title? I'm filling in the org section of a deck.",
    "location": "which office is {name} based in?",
}

# Other ways to write a time zone a directory lists (IANA name): each spelling names one zone's
# time; zones that keep the same time share theirs (New York and Toronto are both Eastern Time).
EASTERN = ("Eastern Time", "Eastern Standard Time", "Eastern Daylight Time", "ET", "EST", "EDT")
CENTRAL_EUROPE = ("Central European Time", "Central European Summer Time", "CET", "CEST")
TIMEZONE_NAMES = {
    "America/Los_Angeles": ("Pacific Time", "Pacific Standard Time", "Pacific Daylight Time", "PT", "PST", "PDT",
                            "Los Angeles time"),
    "America/Denver": ("Mountain Time", "Mountain Standard Time", "Mountain Daylight Time", "MT", "MST", "MDT",
                       "Denver time"),
    "America/Chicago": ("Central Time", "Central Standard Time", "Central Daylight Time", "CT", "CDT",
                        "Chicago time"),
    "America/New_York": (*EASTERN, "New York time"),
    "America/Toronto": (*EASTERN, "Toronto time"),
    "Europe/London": ("UK time", "British time", "British Summer Time", "London time"),
    "Europe/Dublin": ("Irish time", "Irish Standard Time", "Ireland time", "Dublin time"),
    "Europe/Lisbon": ("Western European Time", "Western European Summer Time", "Portugal time", "Lisbon time"),
    "Europe/Paris": (*CENTRAL_EUROPE, "Paris time", "French time"),
    "Europe/Amsterdam": (*CENTRAL_EUROPE, "Amsterdam time", "Dutch time"),
    "Europe/Berlin": (*CENTRAL_EUROPE, "Berlin time", "German time"),
    "Asia/Kolkata": ("India Standard Time", "Indian Standard Time", "India time", "Kolkata time"),
    "Asia/Singapore": ("Singapore Time", "Singapore Standard Time", "SGT"),
    "Australia/Sydney": ("Australian Eastern Time", "Australian Eastern Standard Time",
                         "Australian Eastern Daylight Time", "AEST", "AEDT", "Sydney time"),
}

OPENERS = ["quick question:", "sorry to bother you,", "do you know", "hey!", "when you get a sec,"]

# topic -> (announcement text, how the task paraphrases it)
ANNOUNCEMENTS = {
    "expenses": ("the new expense tool goes live on Monday, please submit March receipts there.",
                 "a new expense tool is going live"),
    "offsite": ("the spring offsite will be in Lisbon on May 12-14, details to follow.",
                "the spring offsite location was chosen"),
    "parking": ("the office car park is closed for repairs all next week.",
                "the car park will be closed"),
    "wifi": ("guest Wi-Fi password changes every Monday from now on, ask reception.",
             "the guest Wi-Fi policy changed"),
    "benefits": ("open enrolment for health benefits closes on Friday.",
                 "benefits enrolment is closing soon"),
    "hackathon": ("our internal hackathon starts next Thursday, sign-ups are open!",
                  "a hackathon is coming up"),
    "laptops": ("laptop refreshes for 2022 machines start this month, IT will reach out.",
                "old laptops are being replaced"),
    "holiday": ("the office is closed on Good Friday, enjoy the long weekend.",
                "the office will be closed for a holiday"),
    "security-training": ("annual security training is due by the end of the month.",
                          "security training is due"),
    "cafeteria": ("the cafeteria now serves breakfast from 8am.",
                  "the cafeteria started serving breakfast"),
}

SYSTEMS = ["VPN", "Jenkins", "staging database", "Grafana", "payroll portal", "Wi-Fi controller", "CRM sandbox",
           "build server", "marketing CMS", "HR portal"]

HARMLESS = ["thanks all, that helped!", "back from lunch, catching up now", "see you at standup",
            "I'll take a look this afternoon"]

DOCUMENTS = ["Q2 roadmap", "hiring plan", "launch checklist", "budget proposal", "incident postmortem",
             "onboarding guide", "pricing memo", "design spec", "security review", "release notes",
             "customer survey results", "board deck"]

TYPOS = [("Thrusday", "Thursday"), ("recieve", "receive"), ("calender", "calendar"), ("seperate", "separate"),
         ("tommorow", "tomorrow"), ("definately", "definitely"), ("occured", "occurred"), ("untill", "until"),
         ("adress", "address"), ("wich", "which")]

TYPO_SENTENCES = ["Reminder: the planning sync is {word} after lunch.",
                  "I will follow up on the open items {word} the end of the week.",
                  "Heads up, my notes on this are {word} in the shared doc.",
                  "Let's keep the two proposals {word} for the review ({word})."]

IT_QUESTIONS = ["My laptop will not connect to the VPN since this morning, anyone else?",
                "How do I request access to the shared finance drive?",
                "The printer on floor 3 keeps jamming, who can look at it?",
                "Is there a way to recover a deleted email from last week?",
                "My second monitor stopped working after the update, any ideas?",
                "Can someone reset my 2FA? I got a new phone.",
                "Outlook keeps asking for my password every hour, is this known?",
                "Where do I download the approved screen recording tool?"]

TOPICS = ["Weekly sync on Tuesdays at 10:00", "Q2 planning: owners and deadlines in the pinned doc",
          "Release freeze until Friday", "Ask questions here, answers within a day",
          "Launch week: status updates only", "Hiring push: referrals welcome",
          "Quiet week, async updates please", "New joiners: say hi!"]

CHANNEL_SUFFIXES = ["offsite", "planning", "social", "oncall", "retro", "launch", "hiring", "budget", "okrs",
                    "reading-group"]

CODENAMES = ["falcon", "atlas", "orion", "zephyr", "nimbus", "aurora", "quartz", "sequoia", "tundra", "comet",
             "ember", "harbor", "juniper", "lumen", "mosaic", "nova", "pioneer", "redwood", "summit", "vector",
             "willow", "apollo", "borealis", "cobalt", "delta"]

GROUP_NOTES = ["Can we find 30 minutes this week to align on headcount?",
               "Sharing a heads-up: the vendor contract renews next month.",
               "Could you both review the Q3 goals doc before Friday?",
               "Let's sync on the cross-team launch plan.",
               "Quick one: are you both OK with moving the review to Monday?"]

# Words that thank someone, and words that ask for a password to be replaced.
THANKS = ["thanks", "thank you", "thank", "many thanks", "appreciate", "appreciated", "grateful", "cheers", "kudos"]

ROTATE = ["rotate", "rotated", "rotating", "rotation", "reset", "change", "changed", "replace", "replaced"]

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]

WELCOME = ["welcome", "welcome aboard", "hello", "hi", "hey", "greetings", "glad to have you"]
